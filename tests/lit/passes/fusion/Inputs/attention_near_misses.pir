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

// -----
// a dynamic batch: q from x, k and v from another feed y (nothing proves the -1s one dim)
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[-1,4,16],stop_gradient:[true]} : () -> tensor<-1x4x16xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"y",place:Place(undefined:0),shape:[-1,4,16],stop_gradient:[true]} : () -> tensor<-1x4x16xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"wq",place:Place(undefined:0),shape:[16,16],stop_gradient:[true]} : () -> tensor<16x16xf32>
    (%3) = "pd_op.data" () {dtype:float32,name:"wk",place:Place(undefined:0),shape:[16,16],stop_gradient:[true]} : () -> tensor<16x16xf32>
    (%4) = "pd_op.data" () {dtype:float32,name:"wv",place:Place(undefined:0),shape:[16,16],stop_gradient:[true]} : () -> tensor<16x16xf32>
    (%10) = "pd_op.matmul" (%0, %2) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<-1x4x16xf32>, tensor<16x16xf32>) -> tensor<-1x4x16xf32>
    (%11) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0,0,2,8]} : () -> tensor<4xi64>
    (%12) = "pd_op.reshape" (%10, %11) {stop_gradient:[true]} : (tensor<-1x4x16xf32>, tensor<4xi64>) -> tensor<-1x4x2x8xf32>
    (%13) = "pd_op.transpose" (%12) {perm:[0,2,1,3],stop_gradient:[true]} : (tensor<-1x4x2x8xf32>) -> tensor<-1x2x4x8xf32>
    (%20) = "pd_op.matmul" (%1, %3) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<-1x4x16xf32>, tensor<16x16xf32>) -> tensor<-1x4x16xf32>
    (%21) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0,0,2,8]} : () -> tensor<4xi64>
    (%22) = "pd_op.reshape" (%20, %21) {stop_gradient:[true]} : (tensor<-1x4x16xf32>, tensor<4xi64>) -> tensor<-1x4x2x8xf32>
    (%23) = "pd_op.transpose" (%22) {perm:[0,2,1,3],stop_gradient:[true]} : (tensor<-1x4x2x8xf32>) -> tensor<-1x2x4x8xf32>
    (%30) = "pd_op.matmul" (%1, %4) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<-1x4x16xf32>, tensor<16x16xf32>) -> tensor<-1x4x16xf32>
    (%31) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0,0,2,8]} : () -> tensor<4xi64>
    (%32) = "pd_op.reshape" (%30, %31) {stop_gradient:[true]} : (tensor<-1x4x16xf32>, tensor<4xi64>) -> tensor<-1x4x2x8xf32>
    (%33) = "pd_op.transpose" (%32) {perm:[0,2,1,3],stop_gradient:[true]} : (tensor<-1x4x2x8xf32>) -> tensor<-1x2x4x8xf32>
    (%40) = "pd_op.matmul" (%13, %23) {stop_gradient:[true],transpose_x:false,transpose_y:true} : (tensor<-1x2x4x8xf32>, tensor<-1x2x4x8xf32>) -> tensor<-1x2x4x4xf32>
    (%41) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.35} : () -> tensor<1xf32>
    (%42) = "pd_op.scale" (%40, %41) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<-1x2x4x4xf32>, tensor<1xf32>) -> tensor<-1x2x4x4xf32>
    (%43) = "pd_op.softmax" (%42) {axis:-1,stop_gradient:[true]} : (tensor<-1x2x4x4xf32>) -> tensor<-1x2x4x4xf32>
    (%44) = "pd_op.matmul" (%43, %33) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<-1x2x4x4xf32>, tensor<-1x2x4x8xf32>) -> tensor<-1x2x4x8xf32>
    (%45) = "pd_op.fetch" (%44) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<-1x2x4x8xf32>) -> tensor<-1x2x4x8xf32>
}
