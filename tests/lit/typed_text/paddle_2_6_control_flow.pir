// Paddle 2.6 prints control flow differently: an unquoted `pd_op.if` with no
// space before `{`, regions indented by one space, `"pd_op.while"(cond=...`
// and block arguments `^%arg0, %arg1`.
// RUN: pirc-opt %s --from-version=1 --no-verify | FileCheck %s

{
 (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[2,3],stop_gradient:[true]} : () -> pd_op.tensor<2x3xf32>
 (%1) = "pd_op.full" () {dtype:(pd_op.DataType)bool,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[1],stop_gradient:[true],value:(Float)1} : () -> pd_op.tensor<1xb>
 (%2) = pd_op.if (%1) -> pd_op.tensor<2x3xf32>{
  (%3) = "pd_op.exp" (%0) {stop_gradient:[true]} : (pd_op.tensor<2x3xf32>) -> pd_op.tensor<2x3xf32>
  () = "cf.yield" (%3) {} : (pd_op.tensor<2x3xf32>) -> 
 } else {
  (%4) = "pd_op.tanh" (%0) {stop_gradient:[true]} : (pd_op.tensor<2x3xf32>) -> pd_op.tensor<2x3xf32>
  () = "cf.yield" (%4) {} : (pd_op.tensor<2x3xf32>) -> 
 }
 (%5, %6) = "pd_op.while"(cond=%1, inputs=%1, %2) { 
 ^%arg0, %arg1
  (%7) = "pd_op.exp" (%arg1) {stop_gradient:[true]} : (pd_op.tensor<2x3xf32>) -> pd_op.tensor<2x3xf32>
  () = "cf.yield" (%arg0, %arg0, %7) {} : (pd_op.tensor<1xb>, pd_op.tensor<1xb>, pd_op.tensor<2x3xf32>) -> 
 }
}

// CHECK:      (%2) = "pd_op.if" (%1) {} : (tensor<1xb>) -> tensor<2x3xf32> ({
// CHECK-NEXT:     (%3) = "pd_op.exp" (%0)
// CHECK:      }, {
// CHECK-NEXT:     (%4) = "pd_op.tanh" (%0)
// CHECK:      (%5, %6) = "pd_op.while" (%1, %1, %2) {} : (tensor<1xb>, tensor<1xb>, tensor<2x3xf32>) -> tensor<1xb>, tensor<2x3xf32> ({
// CHECK-NEXT:     ^%arg_0 : tensor<1xb>, %arg_1 : tensor<2x3xf32>
// CHECK-NEXT:     (%7) = "pd_op.exp" (%arg_1)
