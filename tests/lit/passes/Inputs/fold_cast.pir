{
    (%0) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[2],stop_gradient:[true],value:0.1} : () -> tensor<2xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[2],stop_gradient:[true],value:0.2} : () -> tensor<2xf32>
    (%2) = "pd_op.add" (%0, %1) {stop_gradient:[true]} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    (%3) = "pd_op.cast" (%2) {dtype:float16,stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf16>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2xf16>) -> tensor<2xf16>
}
