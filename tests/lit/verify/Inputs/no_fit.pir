pir.version 4
pir.graph_tags []
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(undefined:0),shape:(pd_op.IntArray)[2],stop_gradient:[true]} : () -> tensor<2xf32>
    (%1) = "pd_op.softmax" (%0) {stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
}
