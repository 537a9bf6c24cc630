// fuse-attention: softmax(s * q k^T [+ where(b, 0, -inf)]) v is npu.fusion_attention (BNSD,
// scale s, atten_mask = not b), or self_dp_attention for a packed QKV, at every PIR version
// (1-4: matmul, scale, add, softmax, dropout, transpose have one semantic version; npu ops and
// self_dp_attention exist at every version: docs/FUSION.md's matrix).
// RUN: pirc-opt %s --from-version=1 --device=npu -p fuse-attention,dce --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=2 --device=npu -p fuse-attention,dce --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=3 --device=npu -p fuse-attention,dce --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=4 --device=npu -p fuse-attention,dce --emit=paddle --split-input-file | FileCheck %s

// Near misses: an additive float mask, finfo.min instead of -inf, a softmax over another
// axis, k with one head (matmul would broadcast it), a dynamic batch of q from one feed and
// of k, v from another (either may be 1 at run time and broadcast).  Nothing fuses; --explain names each.
// RUN: pirc-opt %S/Inputs/attention_near_misses.pir --from-version=4 --device=npu -p fuse-attention --explain=fuse-attention --emit=paddle --split-input-file 2>&1 | FileCheck %s --check-prefix=NEAR
// NEAR: mask is provably 0/-inf
// NEAR: mask is provably 0/-inf
// NEAR: softmax over the last axis
// NEAR: static, equal B and N
// NEAR: static, equal B and N
// NEAR-NOT: "npu.fusion_attention"

// The plain form: scale after q k^T.
// CHECK-LABEL: name:"q"
// CHECK: "npu.fusion_attention" (%0, %1, %2, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>) {{.*}}head_num:2,{{.*}}input_layout:"BNSD"{{.*}}scale:0.35
// CHECK-NOT: "pd_op.softmax"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"q",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"k",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"v",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.35} : () -> tensor<1xf32>
    (%4) = "pd_op.matmul" (%0, %1) {stop_gradient:[true],transpose_x:false,transpose_y:true} : (tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x4xf32>
    (%5) = "pd_op.scale" (%4, %3) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x2x4x4xf32>, tensor<1xf32>) -> tensor<2x2x4x4xf32>
    (%6) = "pd_op.softmax" (%5) {axis:-1,stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%7) = "pd_op.matmul" (%6, %2) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
    (%8) = "pd_op.fetch" (%7) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
}

// -----

// A bool mask: atten_mask is logical_not(keep).
// CHECK-LABEL: name:"q"
// CHECK: %[[NOT:[0-9]+]]) = "pd_op.logical_not" (%3)
// CHECK: "npu.fusion_attention" (%0, %1, %2, <<NULL VALUE>>, <<NULL VALUE>>, %[[NOT]],
// CHECK-NOT: "pd_op.softmax"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"q",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"k",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"v",place:Place(undefined:0),shape:[2,2,4,8],stop_gradient:[true]} : () -> tensor<2x2x4x8xf32>
    (%3) = "pd_op.data" () {dtype:bool,name:"keep",place:Place(undefined:0),shape:[2,1,4,4],stop_gradient:[true]} : () -> tensor<2x1x4x4xb>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[2,1,4,4],stop_gradient:[true],value:0.0} : () -> tensor<2x1x4x4xf32>
    (%5) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[2,1,4,4],stop_gradient:[true],value:-inf} : () -> tensor<2x1x4x4xf32>
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

// A packed QKV (reshape [B, S, 3, N, H], transpose [2, 0, 3, 1, 4], slices 0, 1, 2) with
// the transpose back to [B, S, N, H]: Paddle's self_dp_attention, the transpose swallowed.
// CHECK-LABEL: name:"qkv"
// CHECK: %[[R:[0-9]+]]) = "pd_op.reshape"
// CHECK-NEXT: (%[[O:[0-9]+]]) = "pd_op.self_dp_attention" (%[[R]]) {alpha:0.353553,head_number:2,
// CHECK-NEXT: "pd_op.fetch" (%[[O]])
{
    (%0) = "pd_op.data" () {dtype:float32,name:"qkv",place:Place(undefined:0),shape:[2,4,48],stop_gradient:[true]} : () -> tensor<2x4x48xf32>
    (%1) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0,0,3,2,8]} : () -> tensor<5xi64>
    (%2) = "pd_op.reshape" (%0, %1) {stop_gradient:[true]} : (tensor<2x4x48xf32>, tensor<5xi64>) -> tensor<2x4x3x2x8xf32>
    (%3) = "pd_op.transpose" (%2) {perm:[2,0,3,1,4],stop_gradient:[true]} : (tensor<2x4x3x2x8xf32>) -> tensor<3x2x2x4x8xf32>
    (%4) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0]} : () -> tensor<1xi64>
    (%5) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[1]} : () -> tensor<1xi64>
    (%6) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2]} : () -> tensor<1xi64>
    (%7) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[3]} : () -> tensor<1xi64>
    (%8) = "pd_op.slice" (%3, %4, %5) {axes:[0],decrease_axis:[0],infer_flags:[1],stop_gradient:[true]} : (tensor<3x2x2x4x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x2x4x8xf32>
    (%9) = "pd_op.slice" (%3, %5, %6) {axes:[0],decrease_axis:[0],infer_flags:[1],stop_gradient:[true]} : (tensor<3x2x2x4x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x2x4x8xf32>
    (%10) = "pd_op.slice" (%3, %6, %7) {axes:[0],decrease_axis:[0],infer_flags:[1],stop_gradient:[true]} : (tensor<3x2x2x4x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x2x4x8xf32>
    (%11) = "pd_op.matmul" (%8, %9) {stop_gradient:[true],transpose_x:false,transpose_y:true} : (tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x4xf32>
    (%12) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.35355339} : () -> tensor<1xf32>
    (%13) = "pd_op.scale" (%11, %12) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x2x4x4xf32>, tensor<1xf32>) -> tensor<2x2x4x4xf32>
    (%14) = "pd_op.softmax" (%13) {axis:-1,stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%15) = "pd_op.matmul" (%14, %10) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
    (%16) = "pd_op.transpose" (%15) {perm:[0,2,1,3],stop_gradient:[true]} : (tensor<2x2x4x8xf32>) -> tensor<2x4x2x8xf32>
    (%17) = "pd_op.fetch" (%16) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
}

// -----

// The same without the transpose back: one is added to give [B, N, S, H].
// CHECK-LABEL: name:"qkv"
// CHECK: (%[[O:[0-9]+]]) = "pd_op.self_dp_attention"
// CHECK-NEXT: (%[[T:[0-9]+]]) = "pd_op.transpose" (%[[O]]) {perm:[0,2,1,3]
// CHECK-NEXT: "pd_op.fetch" (%[[T]])
{
    (%0) = "pd_op.data" () {dtype:float32,name:"qkv",place:Place(undefined:0),shape:[2,4,48],stop_gradient:[true]} : () -> tensor<2x4x48xf32>
    (%1) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0,0,3,2,8]} : () -> tensor<5xi64>
    (%2) = "pd_op.reshape" (%0, %1) {stop_gradient:[true]} : (tensor<2x4x48xf32>, tensor<5xi64>) -> tensor<2x4x3x2x8xf32>
    (%3) = "pd_op.transpose" (%2) {perm:[2,0,3,1,4],stop_gradient:[true]} : (tensor<2x4x3x2x8xf32>) -> tensor<3x2x2x4x8xf32>
    (%4) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0]} : () -> tensor<1xi64>
    (%5) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[1]} : () -> tensor<1xi64>
    (%6) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2]} : () -> tensor<1xi64>
    (%7) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[3]} : () -> tensor<1xi64>
    (%8) = "pd_op.slice" (%3, %4, %5) {axes:[0],decrease_axis:[0],infer_flags:[1],stop_gradient:[true]} : (tensor<3x2x2x4x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x2x4x8xf32>
    (%9) = "pd_op.slice" (%3, %5, %6) {axes:[0],decrease_axis:[0],infer_flags:[1],stop_gradient:[true]} : (tensor<3x2x2x4x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x2x4x8xf32>
    (%10) = "pd_op.slice" (%3, %6, %7) {axes:[0],decrease_axis:[0],infer_flags:[1],stop_gradient:[true]} : (tensor<3x2x2x4x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x2x4x8xf32>
    (%11) = "pd_op.matmul" (%8, %9) {stop_gradient:[true],transpose_x:false,transpose_y:true} : (tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x4xf32>
    (%12) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.35355339} : () -> tensor<1xf32>
    (%13) = "pd_op.scale" (%11, %12) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x2x4x4xf32>, tensor<1xf32>) -> tensor<2x2x4x4xf32>
    (%14) = "pd_op.softmax" (%13) {axis:-1,stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%15) = "pd_op.matmul" (%14, %10) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
    (%16) = "pd_op.fetch" (%15) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
}

// -----

// LLaMA's layout: q, k, v [B, S, N, D] under transposes (k^T by [0, 2, 3, 1]) and the
// output transposed back: the fused op reads them as BSND, the transposes go.
// CHECK-LABEL: name:"q"
// CHECK: "npu.fusion_attention" (%0, %1, %2, <<NULL VALUE>>, <<NULL VALUE>>, %{{[0-9]+}}, {{.*}}input_layout:"BSND"{{.*}}scale:0.25
// CHECK-NOT: "pd_op.transpose"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"q",place:Place(undefined:0),shape:[2,4,2,8],stop_gradient:[true]} : () -> tensor<2x4x2x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"k",place:Place(undefined:0),shape:[2,4,2,8],stop_gradient:[true]} : () -> tensor<2x4x2x8xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"v",place:Place(undefined:0),shape:[2,4,2,8],stop_gradient:[true]} : () -> tensor<2x4x2x8xf32>
    (%3) = "pd_op.data" () {dtype:bool,name:"keep",place:Place(undefined:0),shape:[2,1,4,4],stop_gradient:[true]} : () -> tensor<2x1x4x4xb>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[2,1,4,4],stop_gradient:[true],value:0.0} : () -> tensor<2x1x4x4xf32>
    (%5) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[2,1,4,4],stop_gradient:[true],value:-inf} : () -> tensor<2x1x4x4xf32>
    (%6) = "pd_op.where" (%3, %4, %5) {stop_gradient:[true]} : (tensor<2x1x4x4xb>, tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<2x1x4x4xf32>
    (%7) = "pd_op.transpose" (%0) {perm:[0,2,1,3],stop_gradient:[true]} : (tensor<2x4x2x8xf32>) -> tensor<2x2x4x8xf32>
    (%8) = "pd_op.transpose" (%2) {perm:[0,2,1,3],stop_gradient:[true]} : (tensor<2x4x2x8xf32>) -> tensor<2x2x4x8xf32>
    (%9) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.25} : () -> tensor<1xf32>
    (%10) = "pd_op.scale" (%7, %9) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x2x4x8xf32>, tensor<1xf32>) -> tensor<2x2x4x8xf32>
    (%11) = "pd_op.transpose" (%1) {perm:[0,2,3,1],stop_gradient:[true]} : (tensor<2x4x2x8xf32>) -> tensor<2x2x8x4xf32>
    (%12) = "pd_op.matmul" (%10, %11) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<2x2x4x8xf32>, tensor<2x2x8x4xf32>) -> tensor<2x2x4x4xf32>
    (%13) = "pd_op.add" (%12, %6) {stop_gradient:[true]} : (tensor<2x2x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%14) = "pd_op.softmax" (%13) {axis:-1,stop_gradient:[true]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    (%15) = "pd_op.matmul" (%14, %8) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
    (%16) = "pd_op.transpose" (%15) {perm:[0,2,1,3],stop_gradient:[true]} : (tensor<2x2x4x8xf32>) -> tensor<2x4x2x8xf32>
    (%17) = "pd_op.fetch" (%16) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
}

// -----

// A dynamic batch, LLaMA's head split: q, k, v = transpose(reshape(x @ w, [0, 0, 2, 8]),
// [0, 2, 1, 3]) of one x of [-1, 4, 16] all copy x's batch dim: one B, fused (BNSD).
// CHECK-LABEL: name:"wv"
// CHECK: "npu.fusion_attention" ({{.*}}) {{.*}}head_num:2,{{.*}}input_layout:"BNSD"{{.*}}scale:0.35{{.*}} -> tensor<-1x2x4x8xf32>
// CHECK-NOT: "pd_op.softmax"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[-1,4,16],stop_gradient:[true]} : () -> tensor<-1x4x16xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"wq",place:Place(undefined:0),shape:[16,16],stop_gradient:[true]} : () -> tensor<16x16xf32>
    (%3) = "pd_op.data" () {dtype:float32,name:"wk",place:Place(undefined:0),shape:[16,16],stop_gradient:[true]} : () -> tensor<16x16xf32>
    (%4) = "pd_op.data" () {dtype:float32,name:"wv",place:Place(undefined:0),shape:[16,16],stop_gradient:[true]} : () -> tensor<16x16xf32>
    (%10) = "pd_op.matmul" (%0, %2) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<-1x4x16xf32>, tensor<16x16xf32>) -> tensor<-1x4x16xf32>
    (%11) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0,0,2,8]} : () -> tensor<4xi64>
    (%12) = "pd_op.reshape" (%10, %11) {stop_gradient:[true]} : (tensor<-1x4x16xf32>, tensor<4xi64>) -> tensor<-1x4x2x8xf32>
    (%13) = "pd_op.transpose" (%12) {perm:[0,2,1,3],stop_gradient:[true]} : (tensor<-1x4x2x8xf32>) -> tensor<-1x2x4x8xf32>
    (%20) = "pd_op.matmul" (%0, %3) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<-1x4x16xf32>, tensor<16x16xf32>) -> tensor<-1x4x16xf32>
    (%21) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0,0,2,8]} : () -> tensor<4xi64>
    (%22) = "pd_op.reshape" (%20, %21) {stop_gradient:[true]} : (tensor<-1x4x16xf32>, tensor<4xi64>) -> tensor<-1x4x2x8xf32>
    (%23) = "pd_op.transpose" (%22) {perm:[0,2,1,3],stop_gradient:[true]} : (tensor<-1x4x2x8xf32>) -> tensor<-1x2x4x8xf32>
    (%30) = "pd_op.matmul" (%0, %4) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<-1x4x16xf32>, tensor<16x16xf32>) -> tensor<-1x4x16xf32>
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
