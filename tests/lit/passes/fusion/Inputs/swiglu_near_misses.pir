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
