// pirc-opt prints Paddle text as pirc's canonical text; the round trip is stable.
// RUN: pirc-opt %s --from-version=4 | FileCheck %s
// RUN: pirc-opt %s --from-version=4 | pirc-opt - | FileCheck %s

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}
// CHECK: pir.version 4
// CHECK: (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
