// pd_op.if (no operand types, `} else {`) and pd_op.while (`(cond=..., inputs=...)`,
// block arguments on a `^` line) print back byte for byte; in canonical
// text they take the generic region form with typed block arguments.
// RUN: pirc-opt %s --from-version=4 --emit=paddle | FileCheck %s --check-prefix=PADDLE
// RUN: pirc-opt %s --from-version=4 | FileCheck %s --check-prefix=PIR
// RUN: pirc-opt %s --from-version=4 | pirc-opt - --emit=paddle | cmp - %S/Inputs/control_flow.expected.txt

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.data" () {dtype:int64,name:"n",place:Place(undefined:0),shape:[1],stop_gradient:[true]} : () -> tensor<1xi64>
    (%2) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],value:0} : () -> tensor<f32>
    (%3) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[]} : () -> tensor<0xi64>
    (%4) = "pd_op.sum" (%0, %3) {dtype:Undefined,keepdim:false,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<0xi64>) -> tensor<f32>
    (%5) = "pd_op.greater_than" (%4, %2) {stop_gradient:[true]} : (tensor<f32>, tensor<f32>) -> tensor<b>
    (%6) = "pd_op.if" (%5) {stop_gradient:[true]} -> tensor<2x3xf32> {
        (%7) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
        () = "cf.yield" (%7) {} : (tensor<2x3xf32>) -> 
    } else {
        (%8) = "pd_op.tanh" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
        () = "cf.yield" (%8) {} : (tensor<2x3xf32>) -> 
    }
    (%9) = "pd_op.full" () {dtype:int64,place:Place(undefined:0),shape:[1],stop_gradient:[true],value:0} : () -> tensor<1xi64>
    (%10) = "pd_op.less_than" (%9, %1) {stop_gradient:[true]} : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xb>
    (%11, %12) = "pd_op.while" (cond=%10, inputs=%9, %6) { 
    ^%arg_0 {stop_gradient:true}, %arg_1 {}
        (%13) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
        (%14) = "pd_op.scale" (%arg_0, %13) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<1xi64>, tensor<1xf32>) -> tensor<1xi64>
        (%15) = "pd_op.less_than" (%14, %1) {stop_gradient:[true]} : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xb>
        () = "cf.yield" (%15, %14, %arg_1) {} : (tensor<1xb>, tensor<1xi64>, tensor<2x3xf32>) -> 
    }
}

// PADDLE:      (%6) = "pd_op.if" (%5) {stop_gradient:[true]} -> tensor<2x3xf32> {
// PADDLE-NEXT:     (%7) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// PADDLE-NEXT:     () = "cf.yield" (%7) {} : (tensor<2x3xf32>) ->{{ $}}
// PADDLE-NEXT: } else {
// PADDLE:      (%11, %12) = "pd_op.while" (cond=%10, inputs=%9, %6) {{[{] $}}
// PADDLE-NEXT: ^%arg_0 {stop_gradient:true}, %arg_1 {}
// PADDLE-NEXT:     (%13) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>

// PIR:      (%6) = "pd_op.if" (%5) {stop_gradient:[true]} : (tensor<b>) -> tensor<2x3xf32> ({
// PIR-NEXT:     (%7) = "pd_op.exp" (%0)
// PIR-NEXT:     () = "cf.yield" (%7) {} : (tensor<2x3xf32>) ->
// PIR-NEXT: }, {
// PIR-NEXT:     (%8) = "pd_op.tanh" (%0)
// PIR:      (%11, %12) = "pd_op.while" (%10, %9, %6) {} : (tensor<1xb>, tensor<1xi64>, tensor<2x3xf32>) -> tensor<1xi64>, tensor<2x3xf32> ({
// PIR-NEXT:     ^%arg_0 : tensor<1xi64> {stop_gradient:true}, %arg_1 : tensor<2x3xf32>
// PIR:      (%14) = "pd_op.scale" (%arg_0, %13) {bias:(Float)1.0,bias_after_scale:true,stop_gradient:[true]}
// PIR:      })
