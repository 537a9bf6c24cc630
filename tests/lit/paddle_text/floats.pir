// Paddle prints floats with %g (6 significant digits), inf/-inf/nan spelled out.
// RUN: pirc-opt %s --from-version=4 --emit=paddle | FileCheck %s --check-prefix=PADDLE
// RUN: pirc-opt %s --from-version=4 | FileCheck %s --check-prefix=PIR
// RUN: pirc-opt %s --from-version=4 | pirc-opt - | FileCheck %s --check-prefix=PIR

{
    (%0) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:inf} : () -> tensor<1xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-inf} : () -> tensor<1xf32>
    (%2) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:nan} : () -> tensor<1xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1e+30} : () -> tensor<1xf32>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1e-30} : () -> tensor<1xf32>
    (%5) = "pd_op.full" () {dtype:int64,place:Place(cpu),shape:[1],stop_gradient:[true],value:1.23457e+08} : () -> tensor<1xi64>
    (%6) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2} : () -> tensor<1xf32>
}

// PADDLE: value:inf}
// PADDLE: value:-inf}
// PADDLE: value:nan}
// PADDLE: value:1e+30}
// PADDLE: value:-1e-30}
// PADDLE: value:1.23457e+08}
// PADDLE: value:2}

// full.value is a Scalar, which Paddle stores as a Double.
// PIR: value:(Double)inf}
// PIR: value:(Double)-inf}
// PIR: value:(Double)nan}
// PIR: value:(Double)1e+30}
// PIR: value:(Double)-1e-30}
// PIR: value:(Double)123457000.0}
// PIR: value:(Double)2.0}
