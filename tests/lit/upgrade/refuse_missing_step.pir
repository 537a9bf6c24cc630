// A plan through a step with no patch file is refused, naming both versions, the
// missing N.yaml and the first op whose definition changed at that version.
// RUN: not pirc-opt %s --upgrade --patch-dir=%S/Inputs/missing-step 2>&1 | filecheck %s
// A program past the gap does not need the step.
// RUN: pirc-opt %S/Inputs/version2.pir --upgrade --patch-dir=%S/Inputs/missing-step | filecheck %s --check-prefix=PAST

pir.version 1
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(undefined:0),shape:(pd_op.IntArray)[1,1,4,4],stop_gradient:[true]} : () -> tensor<1x1x4x4xf32>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[false]} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
    (%2) = "pd_op.full_int_array" () {dtype:(pd_op.DataType)int64,place:Place(cpu),stop_gradient:[true],value:[(Int64)2,(Int64)2]} : () -> tensor<2xi64>
    (%3) = "pd_op.pool2d" (%1, %2) {adaptive:false,ceil_mode:false,data_format:"NCHW",exclusive:true,global_pooling:false,padding_algorithm:"EXPLICIT",paddings:[(Int32)0,(Int32)0],pooling_type:"max",stop_gradient:[false],strides:[(Int32)2,(Int32)2]} : (tensor<1x1x4x4xf32>, tensor<2xi64>) -> tensor<1x1x2x2xf32>
}

// CHECK: refuse_missing_step.pir: error: cannot upgrade from version 1 to 3: the patch set {{.*}}missing-step has no 2.yaml (the step 1 -> 2); the first op that needs it: ops[3] pd_op.pool2d (line 12)
// PAST: pir.version 3
