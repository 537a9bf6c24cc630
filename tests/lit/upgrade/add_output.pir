// add_output gives the op a new result of the patch's type at the index; an op that
// already has a result there is left alone (idempotent).
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/actions | filecheck %s
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/actions --emit=json | pirc-opt - -x json --emit=pir | filecheck %s

pir.version 1
{
    (%0) = "test.add_output" () {stop_gradient:[true]} : () -> f32
    (%1, %2) = "test.add_output" () {} : () -> f32, i64
}

// CHECK:      (%0, %1) = "test.add_output" () {stop_gradient:[true,true]} : () -> f32, tensor<-1x30xf32>
// CHECK-NEXT: (%2, %3) = "test.add_output" () {} : () -> f32, i64
