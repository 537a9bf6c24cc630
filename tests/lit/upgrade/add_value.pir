// op_pair_patches add_value [1, 1]: the producer gets result 1 and the consumer takes it
// as operand 1; each consumer takes it from the producer that feeds it (else the nearest
// one before it), and a consumer that has it already is left alone.
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/actions | filecheck %s

pir.version 1
{
    (%0) = "test.producer" () {} : () -> f32
    (%1) = "test.producer" () {} : () -> f32
    (%2) = "test.consumer" (%0) {} : (f32) -> f32
    (%3) = "test.consumer" (%2) {} : (f32) -> f32
}

// CHECK:      (%0, %1) = "test.producer" () {} : () -> f32, tensor<1xi32>
// CHECK-NEXT: (%2, %3) = "test.producer" () {} : () -> f32, tensor<1xi32>
// CHECK-NEXT: (%4) = "test.consumer" (%0, %1) {} : (f32, tensor<1xi32>) -> f32
// CHECK-NEXT: (%5) = "test.consumer" (%4, %3) {} : (f32, tensor<1xi32>) -> f32
