pir.version 4
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"in0",place:Place(cpu),shape:(pd_op.IntArray)[1]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"in1",place:Place(cpu),shape:(pd_op.IntArray)[1]} : () -> tensor<3xf32>
    (%2, %3) = "pd_op.rms_norm" (%0, %1) {epsilon:(Double)1e-06,normalized_shape:[(Int64)3]} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>, tensor<2xf32>
}
