{
    (%0) = "pd_op.data" () {dtype:float32,name:"q",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"k",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"v",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%3) = "pd_op.data" () {dtype:float32,name:"m",place:Place(undefined:0),shape:[2,1,4,4],stop_gradient:[true]} : () -> tensor<2x1x4x4xf32>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.35} : () -> tensor<1xf32>
    (%5) = "pd_op.matmul" (%0, %1) {stop_gradient:[true],transpose_x:false,transpose_y:true} : (tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x4xf32>
    (%6) = "pd_op.scale" (%5, %4) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x2x4x4xf32>, tensor<1xf32>) -> tensor<2x2x4x4xf32>
    (%7) = "pd_op.add" (%6, %3) {stop_gradient:[true]} : (tensor<2x2x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%8) = "pd_op.softmax" (%7) {axis:-1,stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%9) = "pd_op.matmul" (%8, %2) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
    (%10) = "pd_op.fetch" (%9) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"q",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"k",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"v",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%3) = "pd_op.data" () {dtype:bool,name:"keep",place:Place(undefined:0),shape:[2,1,4,4],stop_gradient:[true]} : () -> tensor<2x1x4x4xb>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[2,1,4,4],stop_gradient:[true],value:0.0} : () -> tensor<2x1x4x4xf32>
    (%5) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[2,1,4,4],stop_gradient:[true],value:-3.40282e+38} : () -> tensor<2x1x4x4xf32>
    (%6) = "pd_op.where" (%3, %4, %5) {stop_gradient:[true]} : (tensor<2x1x4x4xb>, tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<2x1x4x4xf32>
    (%7) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.35} : () -> tensor<1xf32>
    (%8) = "pd_op.matmul" (%0, %1) {stop_gradient:[true],transpose_x:false,transpose_y:true} : (tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x4xf32>
    (%9) = "pd_op.scale" (%8, %7) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x2x4x4xf32>, tensor<1xf32>) -> tensor<2x2x4x4xf32>
    (%10) = "pd_op.add" (%9, %6) {stop_gradient:[true]} : (tensor<2x2x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%11) = "pd_op.softmax" (%10) {axis:-1,stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%12) = "pd_op.matmul" (%11, %2) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
    (%13) = "pd_op.fetch" (%12) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"q",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"k",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"v",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.35} : () -> tensor<1xf32>
    (%4) = "pd_op.matmul" (%0, %1) {stop_gradient:[true],transpose_x:false,transpose_y:true} : (tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x4xf32>
    (%5) = "pd_op.scale" (%4, %3) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x2x4x4xf32>, tensor<1xf32>) -> tensor<2x2x4x4xf32>
    (%6) = "pd_op.softmax" (%5) {axis:2,stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%7) = "pd_op.matmul" (%6, %2) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
    (%8) = "pd_op.fetch" (%7) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"q",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"k",place:Place(undefined:0),shape:[2,1,4,8],stop_gradient:[true]} : () -> tensor<2x1x4x8xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"v",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.35} : () -> tensor<1xf32>
    (%4) = "pd_op.matmul" (%0, %1) {stop_gradient:[true],transpose_x:false,transpose_y:true} : (tensor<2x2x4x8xf32>, tensor<2x1x4x8xf32>) -> tensor<2x2x4x4xf32>
    (%5) = "pd_op.scale" (%4, %3) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x2x4x4xf32>, tensor<1xf32>) -> tensor<2x2x4x4xf32>
    (%6) = "pd_op.softmax" (%5) {axis:-1,stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%7) = "pd_op.matmul" (%6, %2) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
    (%8) = "pd_op.fetch" (%7) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
}
