// fuse-scaled-softmax: softmax(scale(x, s, bias 0), -1) is npu.scaled_masked_softmax(x,
// all-False mask, scale s) at every PIR version (1-4: scale and softmax have one semantic
// version).
// RUN: pirc-opt %s --from-version=1 --device=npu -p fuse-scaled-softmax,dce --emit=paddle | FileCheck %s
// RUN: pirc-opt %s --from-version=2 --device=npu -p fuse-scaled-softmax,dce --emit=paddle | FileCheck %s
// RUN: pirc-opt %s --from-version=3 --device=npu -p fuse-scaled-softmax,dce --emit=paddle | FileCheck %s
// RUN: pirc-opt %s --from-version=4 --device=npu -p fuse-scaled-softmax,dce --emit=paddle | FileCheck %s

// Near misses: a bias of 1; softmax over axis 1; float16 (the reference scales in float32).
// RUN: pirc-opt %S/Inputs/scaled_softmax_near_misses.pir --from-version=4 --device=npu -p fuse-scaled-softmax --explain=fuse-scaled-softmax --emit=paddle --split-input-file 2>&1 | FileCheck %s --check-prefix=NEAR
// NEAR: attribute bias of pd_op.scale is 1.0, not 0.0
// NEAR: softmax over the last axis
// NEAR: x is float32
// NEAR-NOT: "npu.scaled_masked_softmax"

// CHECK: %[[Z:[0-9]+]]) = "pd_op.full" () {dtype:bool,{{.*}}value:0}
// CHECK: %[[M:[0-9]+]]) = "pd_op.full_like" (%0, %[[Z]]) {dtype:bool
// CHECK: "npu.scaled_masked_softmax" (%0, %[[M]]) {fixed_triu_mask:false,scale:0.125
// CHECK-NOT: "pd_op.softmax"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,2,4,4],stop_gradient:[true]} : () -> tensor<2x2x4x4xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.125} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x2x4x4xf32>, tensor<1xf32>) -> tensor<2x2x4x4xf32>
    (%3) = "pd_op.softmax" (%2) {axis:-1,stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
}
