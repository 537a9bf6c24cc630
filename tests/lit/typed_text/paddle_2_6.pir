// Paddle 2.6 typed text: kind tags on attributes, `pd_op.tensor<...>` types,
// one-space indentation, `is_persisable` on parameters.  It predates PIR
// versions, so it is read at a stated version and need not verify.
// RUN: pirc-opt %s --from-version=1 --no-verify | FileCheck %s

{
 (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[-1,784],stop_gradient:[true]} : () -> pd_op.tensor<-1x784xf32>
 (%1) = "builtin.parameter" () {is_persisable:[true],parameter_name:"linear_0.w_0",stop_gradient:[false]} : () -> pd_op.tensor<784x32xf32>
 (%2) = "pd_op.matmul" (%0, %1) {stop_gradient:[false],transpose_x:false,transpose_y:false} : (pd_op.tensor<-1x784xf32>, pd_op.tensor<784x32xf32>) -> pd_op.tensor<-1x32xf32>
 (%3) = "pd_op.leaky_relu" (%2) {negative_slope:(Float)0.02,stop_gradient:[false]} : (pd_op.tensor<-1x32xf32>) -> pd_op.tensor<-1x32xf32>
 (%4) = "pd_op.full_int_array" () {dtype:(pd_op.DataType)int64,place:(pd_op.Place)Place(cpu),stop_gradient:[true],value:[(Int64)-1,(Int64)1,(Int64)2,(Int64)2]} : () -> pd_op.tensor<4xi64>
 (%5) = "pd_op.softmax" (%3) {axis:(Int32)-1,stop_gradient:[false]} : (pd_op.tensor<-1x32xf32>) -> pd_op.tensor<-1x32xf32>
 (%6) = "pd_op.full" () {dtype:(pd_op.DataType)float32,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[1],stop_gradient:[true],value:(Float)nan} : () -> pd_op.tensor<1xf32>
}

// CHECK: pir.version 1
// CHECK: "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(undefined:0),shape:(pd_op.IntArray)[-1,784],stop_gradient:[true]} : () -> tensor<-1x784xf32>
// CHECK: "builtin.parameter" () {is_persisable:[true],parameter_name:"linear_0.w_0",stop_gradient:[false]} : () -> tensor<784x32xf32>
// CHECK: {negative_slope:(Float)0.02,
// CHECK: value:[(Int64)-1,(Int64)1,(Int64)2,(Int64)2]
// CHECK: {axis:(Int32)-1,
// The tag wins over the spec: 2.6 wrote full.value as a Float.
// CHECK: value:(Float)nan}
