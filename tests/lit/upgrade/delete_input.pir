// delete_input removes the operand at the index.
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/actions | filecheck %s

pir.version 1
{
    (%0) = "test.src" () {} : () -> f32
    (%1) = "test.src" () {} : () -> i32
    () = "test.delete_input" (%0, %1) {} : (f32, i32) -> 
}

// CHECK: () = "test.delete_input" (%1) {} : (i32) -> 
