{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.5} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.707107} : () -> tensor<1xf32>
    (%4) = "pd_op.scale" (%0, %3) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%5) = "pd_op.tanh" (%4) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%6) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%7) = "pd_op.scale" (%5, %6) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%8) = "pd_op.multiply" (%2, %7) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%9) = "pd_op.fetch" (%8) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}
// -----
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.5} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%3) = "pd_op.pow" (%0) {stop_gradient:[true],y:2} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.044715} : () -> tensor<1xf32>
    (%5) = "pd_op.scale" (%3, %4) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%6) = "pd_op.add" (%0, %5) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%7) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.797885} : () -> tensor<1xf32>
    (%8) = "pd_op.scale" (%6, %7) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%9) = "pd_op.tanh" (%8) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%10) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%11) = "pd_op.scale" (%9, %10) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%12) = "pd_op.multiply" (%2, %11) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%13) = "pd_op.fetch" (%12) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}
// -----
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.6} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.707107} : () -> tensor<1xf32>
    (%4) = "pd_op.scale" (%0, %3) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%5) = "pd_op.erf" (%4) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%6) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%7) = "pd_op.scale" (%5, %6) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%8) = "pd_op.multiply" (%2, %7) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%9) = "pd_op.fetch" (%8) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}
