{
    (%0) = "pd_op.data" () {dtype:float32,name:"w",place:Place(undefined:0),shape:[16],stop_gradient:[true]} : () -> tensor<16xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"a",place:Place(undefined:0),shape:[2,8,16],stop_gradient:[true]} : () -> tensor<2x8x16xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"b",place:Place(undefined:0),shape:[2,8,16],stop_gradient:[true]} : () -> tensor<2x8x16xf32>
    (%3) = "pd_op.add" (%1, %2) {stop_gradient:[true]} : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%4) = "pd_op.pow" (%3) {stop_gradient:[true],y:2} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%5) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[-1]} : () -> tensor<1xi64>
    (%6) = "pd_op.mean" (%4, %5) {keepdim:true,stop_gradient:[true]} : (tensor<2x8x16xf32>, tensor<1xi64>) -> tensor<2x8x1xf32>
    (%7) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%8) = "pd_op.scale" (%6, %7) {bias:1e-06,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8x1xf32>, tensor<1xf32>) -> tensor<2x8x1xf32>
    (%9) = "pd_op.rsqrt" (%8) {stop_gradient:[true]} : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
    (%10) = "pd_op.multiply" (%9, %3) {stop_gradient:[true]} : (tensor<2x8x1xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%11) = "pd_op.multiply" (%0, %10) {stop_gradient:[true]} : (tensor<16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%12) = "pd_op.fetch" (%11) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%13) = "pd_op.fetch" (%3) {col:1,name:"sum",persistable:[true],stop_gradient:[true]} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
}
