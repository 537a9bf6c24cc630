// fuse-rotary: x*cos + concat(-x2, x1)*sin (halves by slice or split) is
// pd_op.fused_rotary_position_embedding (use_neox_rotary_style false = rotate-half) where x is
// float32 [B, S, H, D] with cos/sin [1, S, 1, D], else npu.rotary_mul(x, cos, sin, "half"), at
// every PIR version (1-4: add, multiply, concat, scale, slice have one semantic version).
// RUN: pirc-opt %s --from-version=1 --device=npu -p fuse-rotary,dce --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=2 --device=npu -p fuse-rotary,dce --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=3 --device=npu -p fuse-rotary,dce --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=4 --device=npu -p fuse-rotary,dce --emit=paddle --split-input-file | FileCheck %s

// Near misses: slices [0, 3) and [3, end) of a last axis of 8; cos/sin ending in 1 (broadcast
// over the head dim); -x2 as scale(x2, -2).  Nothing fuses; --explain names each.
// RUN: pirc-opt %S/Inputs/rotary_near_misses.pir --from-version=4 --device=npu -p fuse-rotary --explain=fuse-rotary --emit=paddle --split-input-file 2>&1 | FileCheck %s --check-prefix=NEAR
// NEAR: x1 and x2 are the halves
// NEAR: end in its last dim
// NEAR: not -1.0
// NEAR-NOT: "pd_op.fused_rotary_position_embedding"

// float32, cos/sin [1, S, 1, D]: Paddle's fused op (q only, sin before cos, no position ids).
// CHECK-LABEL: name:"x"
// CHECK: "pd_op.fused_rotary_position_embedding" (%0, <<NULL VALUE>>, <<NULL VALUE>>, %2, %1, <<NULL VALUE>>) {rotary_emb_base:10000,{{.*}}time_major:false,use_neox_rotary_style:false}
// CHECK-NOT: "pd_op.concat"
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
    (%10) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1.0} : () -> tensor<1xf32>
    (%11) = "pd_op.scale" (%9, %10) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x4x2x4xf32>, tensor<1xf32>) -> tensor<2x4x2x4xf32>
    (%12) = "builtin.combine" (%11, %6) {stop_gradient:[true]} : (tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>) -> vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>]
    (%13) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1} : () -> tensor<1xi32>
    (%14) = "pd_op.concat" (%12, %13) {stop_gradient:[true]} : (vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>], tensor<1xi32>) -> tensor<2x4x2x8xf32>
    (%15) = "pd_op.multiply" (%14, %2) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1x4x1x8xf32>) -> tensor<2x4x2x8xf32>
    (%16) = "pd_op.add" (%3, %15) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
    (%17) = "pd_op.fetch" (%16) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
}

// -----

// float16: the fused op computes in float32; npu.rotary_mul keeps the dtype.
// CHECK-LABEL: name:"x"
// CHECK: "npu.rotary_mul" (%0, %1, %2, <<NULL VALUE>>) {rotary_mode:"half"
// CHECK-NOT: "pd_op.concat"
{
    (%0) = "pd_op.data" () {dtype:float16,name:"x",place:Place(undefined:0),shape:[2,4,2,8],stop_gradient:[true]} : () -> tensor<2x4x2x8xf16>
    (%1) = "pd_op.data" () {dtype:float16,name:"cos",place:Place(undefined:0),shape:[1,4,1,8],stop_gradient:[true]} : () -> tensor<1x4x1x8xf16>
    (%2) = "pd_op.data" () {dtype:float16,name:"sin",place:Place(undefined:0),shape:[1,4,1,8],stop_gradient:[true]} : () -> tensor<1x4x1x8xf16>
    (%3) = "pd_op.multiply" (%0, %1) {stop_gradient:[true]} : (tensor<2x4x2x8xf16>, tensor<1x4x1x8xf16>) -> tensor<2x4x2x8xf16>
    (%4) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0]} : () -> tensor<1xi64>
    (%5) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[4]} : () -> tensor<1xi64>
    (%6) = "pd_op.slice" (%0, %4, %5) {axes:[3],decrease_axis:[],infer_flags:[1],stop_gradient:[true]} : (tensor<2x4x2x8xf16>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4x2x4xf16>
    (%7) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[4]} : () -> tensor<1xi64>
    (%8) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2147483647]} : () -> tensor<1xi64>
    (%9) = "pd_op.slice" (%0, %7, %8) {axes:[3],decrease_axis:[],infer_flags:[1],stop_gradient:[true]} : (tensor<2x4x2x8xf16>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4x2x4xf16>
    (%10) = "pd_op.full" () {dtype:float16,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1.0} : () -> tensor<1xf16>
    (%11) = "pd_op.scale" (%9, %10) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x4x2x4xf16>, tensor<1xf16>) -> tensor<2x4x2x4xf16>
    (%12) = "builtin.combine" (%11, %6) {stop_gradient:[true]} : (tensor<2x4x2x4xf16>, tensor<2x4x2x4xf16>) -> vec[tensor<2x4x2x4xf16>,tensor<2x4x2x4xf16>]
    (%13) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1} : () -> tensor<1xi32>
    (%14) = "pd_op.concat" (%12, %13) {stop_gradient:[true]} : (vec[tensor<2x4x2x4xf16>,tensor<2x4x2x4xf16>], tensor<1xi32>) -> tensor<2x4x2x8xf16>
    (%15) = "pd_op.multiply" (%14, %2) {stop_gradient:[true]} : (tensor<2x4x2x8xf16>, tensor<1x4x1x8xf16>) -> tensor<2x4x2x8xf16>
    (%16) = "pd_op.add" (%3, %15) {stop_gradient:[true]} : (tensor<2x4x2x8xf16>, tensor<2x4x2x8xf16>) -> tensor<2x4x2x8xf16>
    (%17) = "pd_op.fetch" (%16) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x4x2x8xf16>) -> tensor<2x4x2x8xf16>
}


// -----

// The halves by split_with_num(x, 2, axis 3) -> builtin.split.
// CHECK-LABEL: name:"x"
// CHECK: "pd_op.fused_rotary_position_embedding" (%0, <<NULL VALUE>>, <<NULL VALUE>>, %2, %1, <<NULL VALUE>>)
// CHECK-NOT: "pd_op.concat"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,4,2,8],stop_gradient:[true]} : () -> tensor<2x4x2x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"cos",place:Place(undefined:0),shape:[1,4,1,8],stop_gradient:[true]} : () -> tensor<1x4x1x8xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"sin",place:Place(undefined:0),shape:[1,4,1,8],stop_gradient:[true]} : () -> tensor<1x4x1x8xf32>
    (%3) = "pd_op.multiply" (%0, %1) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1x4x1x8xf32>) -> tensor<2x4x2x8xf32>
    (%4) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:3} : () -> tensor<1xi32>
    (%5) = "pd_op.split_with_num" (%0, %4) {num:2,stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1xi32>) -> vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>]
    (%6, %7) = "builtin.split" (%5) {stop_gradient:[true,true]} : (vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>]) -> tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>
    (%8) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1.0} : () -> tensor<1xf32>
    (%9) = "pd_op.scale" (%7, %8) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x4x2x4xf32>, tensor<1xf32>) -> tensor<2x4x2x4xf32>
    (%10) = "builtin.combine" (%9, %6) {stop_gradient:[true]} : (tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>) -> vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>]
    (%11) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1} : () -> tensor<1xi32>
    (%12) = "pd_op.concat" (%10, %11) {stop_gradient:[true]} : (vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>], tensor<1xi32>) -> tensor<2x4x2x8xf32>
    (%13) = "pd_op.multiply" (%12, %2) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1x4x1x8xf32>) -> tensor<2x4x2x8xf32>
    (%14) = "pd_op.add" (%3, %13) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
    (%15) = "pd_op.fetch" (%14) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
}

// -----

// The halves by split(x, [-1, 4], axis 3) -> builtin.split.
// CHECK-LABEL: name:"x"
// CHECK: "pd_op.fused_rotary_position_embedding" (%0, <<NULL VALUE>>, <<NULL VALUE>>, %2, %1, <<NULL VALUE>>)
// CHECK-NOT: "pd_op.concat"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,4,2,8],stop_gradient:[true]} : () -> tensor<2x4x2x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"cos",place:Place(undefined:0),shape:[1,4,1,8],stop_gradient:[true]} : () -> tensor<1x4x1x8xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"sin",place:Place(undefined:0),shape:[1,4,1,8],stop_gradient:[true]} : () -> tensor<1x4x1x8xf32>
    (%3) = "pd_op.multiply" (%0, %1) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1x4x1x8xf32>) -> tensor<2x4x2x8xf32>
    (%4) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:3} : () -> tensor<1xi32>
    (%100) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[-1,4]} : () -> tensor<2xi64>
    (%5) = "pd_op.split" (%0, %100, %4) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<2xi64>, tensor<1xi32>) -> vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>]
    (%6, %7) = "builtin.split" (%5) {stop_gradient:[true,true]} : (vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>]) -> tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>
    (%8) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1.0} : () -> tensor<1xf32>
    (%9) = "pd_op.scale" (%7, %8) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x4x2x4xf32>, tensor<1xf32>) -> tensor<2x4x2x4xf32>
    (%10) = "builtin.combine" (%9, %6) {stop_gradient:[true]} : (tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>) -> vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>]
    (%11) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1} : () -> tensor<1xi32>
    (%12) = "pd_op.concat" (%10, %11) {stop_gradient:[true]} : (vec[tensor<2x4x2x4xf32>,tensor<2x4x2x4xf32>], tensor<1xi32>) -> tensor<2x4x2x8xf32>
    (%13) = "pd_op.multiply" (%12, %2) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<1x4x1x8xf32>) -> tensor<2x4x2x8xf32>
    (%14) = "pd_op.add" (%3, %13) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
    (%15) = "pd_op.fetch" (%14) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
}

// -----

// Every operand order swapped: cos * x + sin * concat(-x2, x1).
// CHECK-LABEL: name:"x"
// CHECK: "pd_op.fused_rotary_position_embedding" (%0, <<NULL VALUE>>, <<NULL VALUE>>, %2, %1, <<NULL VALUE>>)
// CHECK-NOT: "pd_op.concat"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,4,2,8],stop_gradient:[true]} : () -> tensor<2x4x2x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"cos",place:Place(undefined:0),shape:[1,4,1,8],stop_gradient:[true]} : () -> tensor<1x4x1x8xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"sin",place:Place(undefined:0),shape:[1,4,1,8],stop_gradient:[true]} : () -> tensor<1x4x1x8xf32>
    (%3) = "pd_op.multiply" (%1, %0) {stop_gradient:[true]} : (tensor<1x4x1x8xf32>, tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
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
    (%15) = "pd_op.multiply" (%2, %14) {stop_gradient:[true]} : (tensor<1x4x1x8xf32>, tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
    (%16) = "pd_op.add" (%15, %3) {stop_gradient:[true]} : (tensor<2x4x2x8xf32>, tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
    (%17) = "pd_op.fetch" (%16) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x4x2x8xf32>) -> tensor<2x4x2x8xf32>
}
