// A tensor array written inside a while body and an if branch (issue 21): -p default keeps
// every array_write_ in its region, and the identical array_length / array_read ops before
// the while, after it and after the if stay apart (each reads the array as the writes left
// it: 1, 4 and 5 elements).  The while's results are unused; it stays for its writes.
// RUN: pirc-opt %s --from-version=4 --emit=paddle -p default | FileCheck %s

// CHECK:      (%[[ARR:[0-9]+]]) = "pd_op.create_array"
// CHECK:      "pd_op.array_write_" (%[[ARR]],
// CHECK-NEXT: (%[[LEN0:[0-9]+]]) = "pd_op.array_length" (%[[ARR]])
// CHECK-NEXT: (%[[READ0:[0-9]+]]) = "pd_op.array_read" (%[[ARR]],
// CHECK:      "pd_op.while"
// CHECK:        "pd_op.array_length" (%[[ARR]])
// CHECK:        "pd_op.array_write_" (%[[ARR]],
// CHECK:        "pd_op.array_read" (%[[ARR]],
// CHECK:        "pd_op.array_write_" (%[[ARR]],
// CHECK:        "cf.yield"
// CHECK-NEXT: }
// CHECK-NEXT: (%[[LEN1:[0-9]+]]) = "pd_op.array_length" (%[[ARR]])
// CHECK-NEXT: (%[[READ1:[0-9]+]]) = "pd_op.array_read" (%[[ARR]],
// CHECK:      "pd_op.if"
// CHECK:        "pd_op.array_write_" (%[[ARR]],
// CHECK:      } else {
// CHECK:      (%[[LEN2:[0-9]+]]) = "pd_op.array_length" (%[[ARR]])
// CHECK:      "pd_op.array_to_tensor" (%[[ARR]])
// CHECK-NEXT: "pd_op.fetch" (%[[LEN0]])
// CHECK-NEXT: "pd_op.fetch" (%[[READ0]])
// CHECK-NEXT: "pd_op.fetch" (%[[LEN1]])
// CHECK-NEXT: "pd_op.fetch" (%[[READ1]])
// CHECK-NEXT: "pd_op.fetch" (%[[LEN2]])
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.create_array" () {dtype:float32,stop_gradient:[true]} : () -> pd_op.tensor_array<f32>
    (%2) = "pd_op.full" () {dtype:int64,place:Place(cpu),shape:[1],stop_gradient:[true],value:0} : () -> tensor<1xi64>
    (%3) = "pd_op.array_write_" (%1, %0, %2) {} : (pd_op.tensor_array<f32>, tensor<2x3xf32>, tensor<1xi64>) -> pd_op.tensor_array<f32>
    (%4) = "pd_op.array_length" (%1) {} : (pd_op.tensor_array<f32>) -> tensor<1xi64>
    (%5) = "pd_op.array_read" (%1, %2) {stop_gradient:[true]} : (pd_op.tensor_array<f32>, tensor<1xi64>) -> tensor<2x3xf32>
    (%6) = "pd_op.full" () {dtype:int64,place:Place(cpu),shape:[1],stop_gradient:[true],value:3} : () -> tensor<1xi64>
    (%7) = "pd_op.less_than" (%2, %6) {stop_gradient:[true]} : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xb>
    (%8) = "pd_op.while" (cond=%7, inputs=%2) {
    ^%arg_0 {}
        (%9) = "pd_op.array_length" (%1) {} : (pd_op.tensor_array<f32>) -> tensor<1xi64>
        (%10) = "pd_op.cast" (%9) {dtype:float32,stop_gradient:[true]} : (tensor<1xi64>) -> tensor<1xf32>
        (%11) = "pd_op.multiply" (%0, %10) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
        (%12) = "pd_op.array_write_" (%1, %11, %9) {} : (pd_op.tensor_array<f32>, tensor<2x3xf32>, tensor<1xi64>) -> pd_op.tensor_array<f32>
        (%13) = "pd_op.array_read" (%1, %2) {stop_gradient:[true]} : (pd_op.tensor_array<f32>, tensor<1xi64>) -> tensor<2x3xf32>
        (%14) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
        (%15) = "pd_op.scale" (%13, %14) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
        (%16) = "pd_op.array_write_" (%1, %15, %2) {} : (pd_op.tensor_array<f32>, tensor<2x3xf32>, tensor<1xi64>) -> pd_op.tensor_array<f32>
        (%17) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
        (%18) = "pd_op.scale" (%arg_0, %17) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<1xi64>, tensor<1xf32>) -> tensor<1xi64>
        (%19) = "pd_op.less_than" (%18, %6) {stop_gradient:[true]} : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xb>
        () = "cf.yield" (%19, %18) {} : (tensor<1xb>, tensor<1xi64>) -> 
    }
    (%20) = "pd_op.array_length" (%1) {} : (pd_op.tensor_array<f32>) -> tensor<1xi64>
    (%21) = "pd_op.array_read" (%1, %2) {stop_gradient:[true]} : (pd_op.tensor_array<f32>, tensor<1xi64>) -> tensor<2x3xf32>
    (%22) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[]} : () -> tensor<0xi64>
    (%23) = "pd_op.sum" (%0, %22) {dtype:float32,keepdim:false,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<0xi64>) -> tensor<f32>
    (%24) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[],stop_gradient:[true],value:-100} : () -> tensor<f32>
    (%25) = "pd_op.greater_than" (%23, %24) {stop_gradient:[true]} : (tensor<f32>, tensor<f32>) -> tensor<b>
    (%26) = "pd_op.if" (%25) {stop_gradient:[true]} -> tensor<2x3xf32> {
        (%27) = "pd_op.array_length" (%1) {} : (pd_op.tensor_array<f32>) -> tensor<1xi64>
        (%28) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
        (%29) = "pd_op.array_write_" (%1, %28, %27) {} : (pd_op.tensor_array<f32>, tensor<2x3xf32>, tensor<1xi64>) -> pd_op.tensor_array<f32>
        () = "cf.yield" (%28) {} : (tensor<2x3xf32>) -> 
    } else {
        () = "cf.yield" (%0) {} : (tensor<2x3xf32>) -> 
    }
    (%30) = "pd_op.array_length" (%1) {} : (pd_op.tensor_array<f32>) -> tensor<1xi64>
    (%31, %32) = "pd_op.array_to_tensor" (%1) {axis:0,stop_gradient:[true,true],use_stack:false} : (pd_op.tensor_array<f32>) -> tensor<-1x3xf32>, tensor<-1xi32>
    (%33) = "pd_op.fetch" (%4) {col:0,name:"length_before",persistable:[true],stop_gradient:[true]} : (tensor<1xi64>) -> tensor<1xi64>
    (%34) = "pd_op.fetch" (%5) {col:1,name:"first_before",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%35) = "pd_op.fetch" (%20) {col:2,name:"length_after_while",persistable:[true],stop_gradient:[true]} : (tensor<1xi64>) -> tensor<1xi64>
    (%36) = "pd_op.fetch" (%21) {col:3,name:"first_after_while",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%37) = "pd_op.fetch" (%30) {col:4,name:"length_after_if",persistable:[true],stop_gradient:[true]} : (tensor<1xi64>) -> tensor<1xi64>
    (%38) = "pd_op.fetch" (%31) {col:5,name:"all",persistable:[true],stop_gradient:[true]} : (tensor<-1x3xf32>) -> tensor<-1x3xf32>
    (%39) = "pd_op.fetch" (%26) {col:6,name:"branch",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
