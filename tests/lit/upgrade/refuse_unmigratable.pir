// An op that a release removed with no successor (patches/unmigratable.yaml) makes the
// upgrade refuse before anything is written: the op, the release, the reason and the advice.
// RUN: rm -f %t.out
// RUN: not pirc-opt %s --upgrade -o %t.out 2>&1 | filecheck %s
// RUN: not test -e %t.out
// A target before the step that removed it is still reachable.
// RUN: pirc-opt %s --upgrade --target-version=1 | filecheck %s --check-prefix=KEEP

pir.version 1
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"in0",place:Place(cpu),shape:(pd_op.IntArray)[1]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"in1",place:Place(cpu),shape:(pd_op.IntArray)[1]} : () -> tensor<2x3xf32>
    (%2) = "pd_op.pool2d" (%0, %1) {adaptive:false,ceil_mode:false,data_format:"NCHW",exclusive:true,global_pooling:false,padding_algorithm:"EXPLICIT",paddings:[(Int32)0,(Int32)0],pooling_type:"max",strides:[(Int32)2,(Int32)2]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%3, %4, %5, %6, %7) = "pd_op.moe_dispatch" (%0, %1) {group_moe:false,moe_topk:(Int32)2,topk_only_mode:false} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK: refuse_unmigratable.pir: error: cannot upgrade from version 1 to 4: 1 op has no migration:
// CHECK-NEXT: ops[3] pd_op.moe_dispatch (line 14): cannot be upgraded past PIR version 1: Paddle 3.1 (PIR version 2) removed pd_op.moe_dispatch: Paddle 3.1 dropped its first mixture-of-experts ops.
// CHECK-SAME: What you can do: Keep the program at PIR version 1 and serve it with Paddle 3.0, or re-export the model
// CHECK-SAME: unmigratable.yaml:{{[0-9]+}})
// KEEP: pir.version 1
// KEEP: "pd_op.moe_dispatch"
