// The same Paddle text means different attribute kinds at different PIR
// versions: leaky_relu.negative_slope is a Float at 1 and a Double at 4.
// RUN: pirc-opt %s --from-version=1 | FileCheck %s --check-prefix=V1
// RUN: pirc-opt %s --from-version=4 | FileCheck %s --check-prefix=V4

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.leaky_relu" (%0) {negative_slope:0.02,stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}

// V1: pir.version 1
// V1: negative_slope:(Float)0.02
// V4: pir.version 4
// V4: negative_slope:(Double)0.02
