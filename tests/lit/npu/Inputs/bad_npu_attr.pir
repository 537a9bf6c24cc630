{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1, %2) = "npu.rms_norm" (%0, %0) {epsilon:"small"} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>, tensor<2x1xf32>
}
