{
    (%0) = "pd_op.data" () {dtype:float32 : () -> tensor<3xf32>
}
