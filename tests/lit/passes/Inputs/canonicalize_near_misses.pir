// Near misses of canonicalize (tests/lit/passes/canonicalize.pir, NEAR): candidates that
// matched a producer (a constant, the first cast) and failed a named check.
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.1} : () -> tensor<1xf32>
    (%2, %3) = "pd_op.dropout" (%0, <<NULL VALUE>>, %1) {fix_seed:true,is_test:true,mode:"downgrade_in_infer",seed:1234,stop_gradient:[true,true]} : (tensor<2x3xf32>, <<NULL TYPE>>, tensor<1xf32>) -> tensor<2x3xf32>, tensor<2x3xu8>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2} : () -> tensor<1xf32>
    (%5) = "pd_op.scale" (%2, %4) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
    (%15) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%16) = "pd_op.scale" (%0, %15) {bias:0,bias_after_scale:false,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
    (%17) = "pd_op.fetch" (%16) {col:3,name:"d",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%6, %7) = "pd_op.dropout" (%0, <<NULL VALUE>>, %1) {fix_seed:true,is_test:false,mode:"upscale_in_train",seed:1234,stop_gradient:[true,true]} : (tensor<2x3xf32>, <<NULL TYPE>>, tensor<1xf32>) -> tensor<2x3xf32>, tensor<2x3xu8>
    (%8) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[3,2]} : () -> tensor<2xi64>
    (%9) = "pd_op.reshape" (%6, %8) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
    (%10) = "pd_op.cast" (%0) {dtype:float16,stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf16>
    (%11) = "pd_op.cast" (%10) {dtype:float64,stop_gradient:[true]} : (tensor<2x3xf16>) -> tensor<2x3xf64>
    (%12) = "pd_op.fetch" (%5) {col:0,name:"a",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%13) = "pd_op.fetch" (%9) {col:1,name:"b",persistable:[true],stop_gradient:[true]} : (tensor<3x2xf32>) -> tensor<3x2xf32>
    (%14) = "pd_op.fetch" (%11) {col:2,name:"c",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf64>) -> tensor<2x3xf64>
}
