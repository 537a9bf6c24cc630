{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,2,4,4],stop_gradient:[true]} : () -> tensor<2x2x4x4xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.125} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x2x4x4xf32>, tensor<1xf32>) -> tensor<2x2x4x4xf32>
    (%3) = "pd_op.softmax" (%2) {axis:-1,stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,2,4,4],stop_gradient:[true]} : () -> tensor<2x2x4x4xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.125} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x2x4x4xf32>, tensor<1xf32>) -> tensor<2x2x4x4xf32>
    (%3) = "pd_op.softmax" (%2) {axis:1,stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float16,name:"x",place:Place(undefined:0),shape:[2,2,4,4],stop_gradient:[true]} : () -> tensor<2x2x4x4xf16>
    (%1) = "pd_op.full" () {dtype:float16,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.125} : () -> tensor<1xf16>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x2x4x4xf16>, tensor<1xf16>) -> tensor<2x2x4x4xf16>
    (%3) = "pd_op.softmax" (%2) {axis:-1,stop_gradient:[true]} : (tensor<2x2x4x4xf16>) -> tensor<2x2x4x4xf16>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x2x4x4xf16>) -> tensor<2x2x4x4xf16>
}
