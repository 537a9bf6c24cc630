// op_pair_patches delete_value [1, 0]: the producer loses result 1 and the consumer the
// operand that used it (delete_value_refused.pir: a use by another op).
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/actions | filecheck %s

pir.version 1
{
    (%0, %1) = "test.split_producer" () {} : () -> f32, i32
    () = "test.split_consumer" (%1, %0) {} : (i32, f32) -> 
}

// CHECK:      (%0) = "test.split_producer" () {} : () -> f32
// CHECK-NEXT: () = "test.split_consumer" (%0) {} : (f32) -> 
