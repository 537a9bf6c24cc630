{
    (%0) = "pd_op.data" () {dtype:float32,name:"a",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"b",place:Place(undefined:0),shape:[8],stop_gradient:[true]} : () -> tensor<8xf32>
    (%2) = "pd_op.silu" (%0) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%3) = "pd_op.multiply" (%2, %1) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}
// -----
{
    (%0) = "pd_op.data" () {dtype:float32,name:"a",place:Place(undefined:0),shape:[-1,8],stop_gradient:[true]} : () -> tensor<-1x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"b",place:Place(undefined:0),shape:[-1,8],stop_gradient:[true]} : () -> tensor<-1x8xf32>
    (%2) = "pd_op.silu" (%0) {stop_gradient:[true]} : (tensor<-1x8xf32>) -> tensor<-1x8xf32>
    (%3) = "pd_op.multiply" (%2, %1) {stop_gradient:[true]} : (tensor<-1x8xf32>, tensor<-1x8xf32>) -> tensor<-1x8xf32>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<-1x8xf32>) -> tensor<-1x8xf32>
}
// -----
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[-1,4,16],stop_gradient:[true]} : () -> tensor<-1x4x16xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"y",place:Place(undefined:0),shape:[-1,4,16],stop_gradient:[true]} : () -> tensor<-1x4x16xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"gate",place:Place(undefined:0),shape:[16,32],stop_gradient:[true]} : () -> tensor<16x32xf32>
    (%3) = "pd_op.data" () {dtype:float32,name:"up",place:Place(undefined:0),shape:[16,32],stop_gradient:[true]} : () -> tensor<16x32xf32>
    (%4) = "pd_op.matmul" (%0, %2) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<-1x4x16xf32>, tensor<16x32xf32>) -> tensor<-1x4x32xf32>
    (%5) = "pd_op.matmul" (%1, %3) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<-1x4x16xf32>, tensor<16x32xf32>) -> tensor<-1x4x32xf32>
    (%7) = "pd_op.silu" (%4) {stop_gradient:[true]} : (tensor<-1x4x32xf32>) -> tensor<-1x4x32xf32>
    (%8) = "pd_op.multiply" (%7, %5) {stop_gradient:[true]} : (tensor<-1x4x32xf32>, tensor<-1x4x32xf32>) -> tensor<-1x4x32xf32>
    (%9) = "pd_op.fetch" (%8) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<-1x4x32xf32>) -> tensor<-1x4x32xf32>
}
