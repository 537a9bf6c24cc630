// Paddle 3.x op lines: results, quoted names, operands, a sorted attribute
// dictionary and the type signature; printed back byte for byte with
// --emit=paddle and with exact attribute kinds in canonical text.
// RUN: pirc-opt %s --from-version=4 --emit=paddle | FileCheck %s --check-prefix=PADDLE
// RUN: pirc-opt %s --from-version=4 | FileCheck %s --check-prefix=PIR

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[-1,784],stop_gradient:[true]} : () -> tensor<-1x784xf32>
    (%1) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"w",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> tensor<784x10xf32>
    (%2) = "pd_op.matmul" (%0, %1) {stop_gradient:[false],transpose_x:false,transpose_y:false} : (tensor<-1x784xf32>, tensor<784x10xf32>) -> tensor<-1x10xf32>
    (%3) = "pd_op.leaky_relu" (%2) {negative_slope:0.02,stop_gradient:[false]} : (tensor<-1x10xf32>) -> tensor<-1x10xf32>
    (%4) = "pd_op.softmax" (%3) {axis:-1,stop_gradient:[false]} : (tensor<-1x10xf32>) -> tensor<-1x10xf32>
}

// PADDLE:      {
// PADDLE-NEXT:     (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[-1,784],stop_gradient:[true]} : () -> tensor<-1x784xf32>
// PADDLE-NEXT:     (%1) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"w",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> tensor<784x10xf32>
// PADDLE-NEXT:     (%2) = "pd_op.matmul" (%0, %1) {stop_gradient:[false],transpose_x:false,transpose_y:false} : (tensor<-1x784xf32>, tensor<784x10xf32>) -> tensor<-1x10xf32>
// PADDLE-NEXT:     (%3) = "pd_op.leaky_relu" (%2) {negative_slope:0.02,stop_gradient:[false]} : (tensor<-1x10xf32>) -> tensor<-1x10xf32>
// PADDLE-NEXT:     (%4) = "pd_op.softmax" (%3) {axis:-1,stop_gradient:[false]} : (tensor<-1x10xf32>) -> tensor<-1x10xf32>
// PADDLE-NEXT: }

// At PIR version 4 leaky_relu's slope is a Double; data's shape an IntArray.
// PIR:      pir.version 4
// PIR-NEXT: pir.graph_tags []
// PIR:      "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(undefined:0),shape:(pd_op.IntArray)[-1,784],stop_gradient:[true]}
// PIR:      "pd_op.leaky_relu" (%2) {negative_slope:(Double)0.02,stop_gradient:[false]}
// PIR:      "pd_op.softmax" (%3) {axis:(Int32)-1,stop_gradient:[false]}
