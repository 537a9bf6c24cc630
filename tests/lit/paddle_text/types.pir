// Tensor types: dynamic (-1) and zero dims, 0-d tensors, every element type,
// and vec[...] types of builtin.combine / builtin.split.
// RUN: pirc-opt %s --from-version=4 --emit=paddle | FileCheck %s

{
    (%0) = "pd_op.data" () {dtype:float16,name:"a",place:Place(undefined:0),shape:[-1,0],stop_gradient:[true]} : () -> tensor<-1x0xf16>
    (%1) = "pd_op.data" () {dtype:bfloat16,name:"b",place:Place(undefined:0),shape:[],stop_gradient:[true]} : () -> tensor<bf16>
    (%2) = "pd_op.data" () {dtype:float64,name:"c",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xf64>
    (%3) = "pd_op.data" () {dtype:int8,name:"d",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xi8>
    (%4) = "pd_op.data" () {dtype:uint8,name:"e",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xu8>
    (%5) = "pd_op.data" () {dtype:int16,name:"f",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xi16>
    (%6) = "pd_op.data" () {dtype:int32,name:"g",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xi32>
    (%7) = "pd_op.data" () {dtype:bool,name:"h",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xb>
    (%8) = "pd_op.data" () {dtype:complex64,name:"i",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xc64>
    (%9) = "pd_op.data" () {dtype:complex128,name:"j",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xc128>
    (%10) = "builtin.combine" (%2, %2) {stop_gradient:[true]} : (tensor<2xf64>, tensor<2xf64>) -> vec[tensor<2xf64>,tensor<2xf64>]
    (%11, %12) = "builtin.split" (%10) {stop_gradient:[true,true]} : (vec[tensor<2xf64>,tensor<2xf64>]) -> tensor<2xf64>, tensor<2xf64>
}

// CHECK: -> tensor<-1x0xf16>
// CHECK: -> tensor<bf16>
// CHECK: -> tensor<2xf64>
// CHECK: -> tensor<2xi8>
// CHECK: -> tensor<2xu8>
// CHECK: -> tensor<2xi16>
// CHECK: -> tensor<2xi32>
// CHECK: -> tensor<2xb>
// CHECK: -> tensor<2xc64>
// CHECK: -> tensor<2xc128>
// CHECK: (%10) = "builtin.combine" (%2, %2) {stop_gradient:[true]} : (tensor<2xf64>, tensor<2xf64>) -> vec[tensor<2xf64>,tensor<2xf64>]
// CHECK: (%11, %12) = "builtin.split" (%10) {stop_gradient:[true,true]} : (vec[tensor<2xf64>,tensor<2xf64>]) -> tensor<2xf64>, tensor<2xf64>
