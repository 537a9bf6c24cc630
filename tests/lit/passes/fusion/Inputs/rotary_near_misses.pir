{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,4,2,8],stop_gradient:[true]} : () -> tensor<2x4x2x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"cos",place:Place(undefined:0),shape:[1,4,1,8],stop_gradient:[true]} : () -> tensor<1x4x1x8xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"sin",place:Place(undefined:0),shape:[1,4,1,8],stop_gradient:[true]} : () -> tensor<1x4x1x8xf32>
    (%3) = "pd_op.multiply" (%0, %1) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1x4x1x8xf32>) -> tensor<2x4x2x8xf32>
    (%4) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0]} : () -> tensor<1xi64>
    (%5) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[3]} : () -> tensor<1xi64>
    (%6) = "pd_op.slice" (%0, %4, %5) {axes:[3],decrease_axis:[],infer_flags:[1],stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4x2x3xf32>
    (%7) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[3]} : () -> tensor<1xi64>
    (%8) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2147483647]} : () -> tensor<1xi64>
    (%9) = "pd_op.slice" (%0, %7, %8) {axes:[3],decrease_axis:[],infer_flags:[1],stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4x2x5xf32>
    (%10) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1.0} : () -> tensor<1xf32>
    (%11) = "pd_op.scale" (%9, %10) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x4x2x5xf32>, tensor<1xf32>) -> tensor<2x4x2x5xf32>
    (%12) = "builtin.combine" (%11, %6) {stop_gradient:[true]} : (tensor<2x4x2x5xf32>, tensor<2x4x2x3xf32>) -> vec[tensor<2x4x2x5xf32>,tensor<2x4x2x3xf32>]
    (%13) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1} : () -> tensor<1xi32>
    (%14) = "pd_op.concat" (%12, %13) {stop_gradient:[true]} : (vec[tensor<2x4x2x5xf32>,tensor<2x4x2x3xf32>], tensor<1xi32>) -> tensor<2x4x2x8xf32>
    (%15) = "pd_op.multiply" (%14, %2) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1x4x1x8xf32>) -> tensor<2x4x2x8xf32>
    (%16) = "pd_op.add" (%3, %15) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
    (%17) = "pd_op.fetch" (%16) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,4,2,8],stop_gradient:[true]} : () -> tensor<2x4x2x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"cos",place:Place(undefined:0),shape:[1,4,1,1],stop_gradient:[true]} : () -> tensor<1x4x1x1xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"sin",place:Place(undefined:0),shape:[1,4,1,1],stop_gradient:[true]} : () -> tensor<1x4x1x1xf32>
    (%3) = "pd_op.multiply" (%0, %1) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1x4x1x1xf32>) -> tensor<2x4x2x8xf32>
    (%4) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0]} : () -> tensor<1xi64>
    (%5) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[4]} : () -> tensor<1xi64>
    (%6) = "pd_op.slice" (%0, %4, %5) {axes:[3],decrease_axis:[],infer_flags:[1],stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4x2x4xf32>
    (%7) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[4]} : () -> tensor<1xi64>
    (%8) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2147483647]} : () -> tensor<1xi64>
    (%9) = "pd_op.slice" (%0, %7, %8) {axes:[3],decrease_axis:[],infer_flags:[1],stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4x2x4xf32>
    (%10) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1.0} : () -> tensor<1xf32>
    (%11) = "pd_op.scale" (%9, %10) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x4x2x4xf32>, tensor<1xf32>) -> tensor<2x4x2x4xf32>
    (%12) = "builtin.combine" (%11, %6) {stop_gradient:[true]} : (tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>) -> vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>]
    (%13) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1} : () -> tensor<1xi32>
    (%14) = "pd_op.concat" (%12, %13) {stop_gradient:[true]} : (vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>], tensor<1xi32>) -> tensor<2x4x2x8xf32>
    (%15) = "pd_op.multiply" (%14, %2) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1x4x1x1xf32>) -> tensor<2x4x2x8xf32>
    (%16) = "pd_op.add" (%3, %15) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
    (%17) = "pd_op.fetch" (%16) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,4,2,8],stop_gradient:[true]} : () -> tensor<2x4x2x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"cos",place:Place(undefined:0),shape:[1,4,1,8],stop_gradient:[true]} : () -> tensor<1x4x1x8xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"sin",place:Place(undefined:0),shape:[1,4,1,8],stop_gradient:[true]} : () -> tensor<1x4x1x8xf32>
    (%3) = "pd_op.multiply" (%0, %1) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1x4x1x8xf32>) -> tensor<2x4x2x8xf32>
    (%4) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0]} : () -> tensor<1xi64>
    (%5) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[4]} : () -> tensor<1xi64>
    (%6) = "pd_op.slice" (%0, %4, %5) {axes:[3],decrease_axis:[],infer_flags:[1],stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4x2x4xf32>
    (%7) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[4]} : () -> tensor<1xi64>
    (%8) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2147483647]} : () -> tensor<1xi64>
    (%9) = "pd_op.slice" (%0, %7, %8) {axes:[3],decrease_axis:[],infer_flags:[1],stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4x2x4xf32>
    (%10) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-2.0} : () -> tensor<1xf32>
    (%11) = "pd_op.scale" (%9, %10) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x4x2x4xf32>, tensor<1xf32>) -> tensor<2x4x2x4xf32>
    (%12) = "builtin.combine" (%11, %6) {stop_gradient:[true]} : (tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>) -> vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>]
    (%13) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1} : () -> tensor<1xi32>
    (%14) = "pd_op.concat" (%12, %13) {stop_gradient:[true]} : (vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>], tensor<1xi32>) -> tensor<2x4x2x8xf32>
    (%15) = "pd_op.multiply" (%14, %2) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1x4x1x8xf32>) -> tensor<2x4x2x8xf32>
    (%16) = "pd_op.add" (%3, %15) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
    (%17) = "pd_op.fetch" (%16) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
}
