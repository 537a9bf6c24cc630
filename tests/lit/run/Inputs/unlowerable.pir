{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = "pd_op.frobnicate" (%1) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%3) = "pd_op.frobnicate" (%2) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%4) = "pd_op.rms_norm" (%3) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%5) = "pd_op.fetch" (%4) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
