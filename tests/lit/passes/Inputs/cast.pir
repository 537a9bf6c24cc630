{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.cast" (%0) {dtype:float64,stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf64>
    (%2) = "pd_op.relu" (%1) {stop_gradient:[true]} : (tensor<2x3xf64>) -> tensor<2x3xf64>
    (%3) = "pd_op.fetch" (%2) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf64>) -> tensor<2x3xf64>
}
