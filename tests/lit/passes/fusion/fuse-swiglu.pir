// fuse-swiglu: silu(a) * b, either order, is swiglu(a, b); the two halves of a chunk of x's
// last axis (paddle.chunk(x, 2, -1)) make swiglu(x) with y absent; with fuse-silu first, a
// * sigmoid(a) * b too (fuse-swiglu may rewrite what fuse-silu made).  Each section is real
// Paddle 3.3.1's print of F.silu / paddle.chunk code.  Every PIR version (1-4: multiply,
// silu, split_with_num and swiglu have one semantic version each and swiglu one signature,
// so no version skips; docs/FUSION.md's matrix).
// RUN: pirc-opt %s --from-version=1 -p fuse-silu,fuse-swiglu --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=2 -p fuse-silu,fuse-swiglu --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=3 -p fuse-silu,fuse-swiglu --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=4 -p fuse-silu,fuse-swiglu --emit=paddle --split-input-file | FileCheck %s

// Near misses (Inputs/swiglu_near_misses.pir): b of shape [8] broadcast over a [2, 8] (swiglu
// takes y of x's shape), and a dynamic batch dim the rule cannot prove equal for a and b:
// two feeds of [-1, 8], and projections of two feeds of [-1, 4, 16] (either -1 may be 1 at
// run time and broadcast the other).
// RUN: pirc-opt %S/Inputs/swiglu_near_misses.pir --split-input-file --from-version=4 -p fuse-swiglu --explain=fuse-swiglu --emit=paddle 2>&1 | FileCheck %s --check-prefix=NEAR
// NEAR:      rule swiglu: 0 rewrites, 1 near misses
// NEAR-NEXT: swiglu_near_misses.pir:5:5: a, b and the product have one static shape, a dynamic dim provably the same one (swiglu does not broadcast)
// NEAR:      rule swiglu: 0 rewrites, 1 near misses
// NEAR-NEXT: swiglu_near_misses.pir:13:5: a, b and the product have one static shape
// NEAR:      rule swiglu: 0 rewrites, 1 near misses
// NEAR-NEXT: swiglu_near_misses.pir:25:5: a, b and the product have one static shape
// NEAR-NOT:  "pd_op.swiglu"

// F.silu(a) * b
// CHECK-LABEL: "pd_op.data"
// CHECK:       (%[[S:[0-9]+]]) = "pd_op.swiglu" (%0, %1)
// CHECK-NEXT:  "pd_op.fetch" (%[[S]])
// CHECK-NOT:   "pd_op.multiply"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"a",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"b",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%2) = "pd_op.silu" (%0) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%3) = "pd_op.multiply" (%2, %1) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}

// -----

// b * F.silu(a)
// CHECK-LABEL: // -----
// CHECK:       (%[[S:[0-9]+]]) = "pd_op.swiglu" (%0, %1)
// CHECK-NEXT:  "pd_op.fetch" (%[[S]])
// CHECK-NOT:   "pd_op.multiply"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"a",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"b",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%2) = "pd_op.silu" (%0) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%3) = "pd_op.multiply" (%1, %2) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}

// -----

// g, u = paddle.chunk(x, 2, axis=-1); F.silu(g) * u: swiglu(x), y absent
// CHECK-LABEL: // -----
// CHECK:       (%[[S:[0-9]+]]) = "pd_op.swiglu" (%0, <<NULL VALUE>>)
// CHECK-SAME:  -> tensor<2x4x8xf32>
// CHECK-NEXT:  "pd_op.fetch" (%[[S]])
// CHECK-NOT:   "pd_op.multiply"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,4,16],stop_gradient:[true]} : () -> tensor<2x4x16xf32>
    (%1) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2} : () -> tensor<1xi32>
    (%2) = "pd_op.split_with_num" (%0, %1) {num:2,stop_gradient:[true]} : (tensor<2x4x16xf32>, tensor<1xi32>) -> vec[tensor<2x4x8xf32>,tensor<2x4x8xf32>]
    (%3, %4) = "builtin.split" (%2) {stop_gradient:[true,true]} : (vec[tensor<2x4x8xf32>,tensor<2x4x8xf32>]) -> tensor<2x4x8xf32>, tensor<2x4x8xf32>
    (%5) = "pd_op.silu" (%3) {stop_gradient:[true]} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    (%6) = "pd_op.multiply" (%5, %4) {stop_gradient:[true]} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    (%7) = "pd_op.fetch" (%6) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
}

// -----

// a chunk along axis 0 is not swiglu(x) (which halves the last axis): swiglu(g, u) of the two results
// CHECK-LABEL: // -----
// CHECK:       (%[[H:[0-9]+]], %[[U:[0-9]+]]) = "builtin.split"
// CHECK:       (%[[S:[0-9]+]]) = "pd_op.swiglu" (%[[H]], %[[U]])
// CHECK-NEXT:  "pd_op.fetch" (%[[S]])
// CHECK-NOT:   "pd_op.multiply"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[4,16],stop_gradient:[true]} : () -> tensor<4x16xf32>
    (%1) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0} : () -> tensor<1xi32>
    (%2) = "pd_op.split_with_num" (%0, %1) {num:2,stop_gradient:[true]} : (tensor<4x16xf32>, tensor<1xi32>) -> vec[tensor<2x16xf32>,tensor<2x16xf32>]
    (%3, %4) = "builtin.split" (%2) {stop_gradient:[true,true]} : (vec[tensor<2x16xf32>,tensor<2x16xf32>]) -> tensor<2x16xf32>, tensor<2x16xf32>
    (%5) = "pd_op.silu" (%3) {stop_gradient:[true]} : (tensor<2x16xf32>) -> tensor<2x16xf32>
    (%6) = "pd_op.multiply" (%5, %4) {stop_gradient:[true]} : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
    (%7) = "pd_op.fetch" (%6) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x16xf32>) -> tensor<2x16xf32>
}

// -----

// a * F.sigmoid(a) * b: fuse-silu, then fuse-swiglu
// CHECK-LABEL: // -----
// CHECK:       (%[[S:[0-9]+]]) = "pd_op.swiglu" (%0, %1)
// CHECK-NEXT:  "pd_op.fetch" (%[[S]])
// CHECK-NOT:   "pd_op.multiply"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"a",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"b",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%2) = "pd_op.sigmoid" (%0) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%3) = "pd_op.multiply" (%0, %2) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%4) = "pd_op.multiply" (%3, %1) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%5) = "pd_op.fetch" (%4) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}

// -----

// paddle.split(x, [8, 8], -1) and x[..., :8], x[..., 8:] (Paddle's print, INT_MAX the open
// end): swiglu(x); the slices the other way round, silu of the second half: swiglu(b, a).
// CHECK-LABEL: // -----
// CHECK:       (%[[A:[0-9]+]]) = "pd_op.swiglu" (%0, <<NULL VALUE>>)
// CHECK:       (%[[B:[0-9]+]]) = "pd_op.swiglu" (%0, <<NULL VALUE>>)
// CHECK:       (%[[H:[0-9]+]]) = "pd_op.slice" (%0, %[[S8:[0-9]+]], %[[MAX:[0-9]+]])
// CHECK:       (%[[L:[0-9]+]]) = "pd_op.slice" (%0, %[[S0:[0-9]+]], %[[S8b:[0-9]+]])
// CHECK:       (%[[C:[0-9]+]]) = "pd_op.swiglu" (%[[H]], %[[L]])
// CHECK:       "pd_op.fetch" (%[[A]])
// CHECK:       "pd_op.fetch" (%[[B]])
// CHECK:       "pd_op.fetch" (%[[C]])
// CHECK-NOT:   "pd_op.multiply"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,16],stop_gradient:[true]} : () -> tensor<2x16xf32>
    (%1) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[8,8]} : () -> tensor<2xi64>
    (%2) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xi32>
    (%3) = "pd_op.split" (%0, %1, %2) {stop_gradient:[true]} : (tensor<2x16xf32>, tensor<2xi64>, tensor<1xi32>) -> vec[tensor<2x8xf32>,tensor<2x8xf32>]
    (%4, %5) = "builtin.split" (%3) {stop_gradient:[true,true]} : (vec[tensor<2x8xf32>,tensor<2x8xf32>]) -> tensor<2x8xf32>, tensor<2x8xf32>
    (%6) = "pd_op.silu" (%4) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%7) = "pd_op.multiply" (%6, %5) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%8) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0]} : () -> tensor<1xi64>
    (%9) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[8]} : () -> tensor<1xi64>
    (%10) = "pd_op.slice" (%0, %8, %9) {axes:[1],decrease_axis:[],infer_flags:[1],stop_gradient:[true]} : (tensor<2x16xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x8xf32>
    (%11) = "pd_op.silu" (%10) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%12) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[8]} : () -> tensor<1xi64>
    (%13) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2147483647]} : () -> tensor<1xi64>
    (%14) = "pd_op.slice" (%0, %12, %13) {axes:[1],decrease_axis:[],infer_flags:[1],stop_gradient:[true]} : (tensor<2x16xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x8xf32>
    (%15) = "pd_op.multiply" (%11, %14) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%16) = "pd_op.slice" (%0, %12, %13) {axes:[1],decrease_axis:[],infer_flags:[1],stop_gradient:[true]} : (tensor<2x16xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x8xf32>
    (%17) = "pd_op.silu" (%16) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%18) = "pd_op.slice" (%0, %8, %9) {axes:[1],decrease_axis:[],infer_flags:[1],stop_gradient:[true]} : (tensor<2x16xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x8xf32>
    (%19) = "pd_op.multiply" (%17, %18) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%20) = "pd_op.fetch" (%7) {col:0,name:"a",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%21) = "pd_op.fetch" (%15) {col:1,name:"b",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%22) = "pd_op.fetch" (%19) {col:2,name:"c",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}

// -----

// A dynamic batch: the gate and up projections of one hidden state x * w_norm, [-1, 4, 32]
// both (LLaMA's MLP), copy x's batch dim: provably one shape, fused.
// CHECK-LABEL: name:"w_norm"
// CHECK:       (%[[S:[0-9]+]]) = "pd_op.swiglu" (%{{[0-9]+}}, %{{[0-9]+}}) {{.*}} -> tensor<-1x4x32xf32>
// CHECK-NEXT:  "pd_op.fetch" (%[[S]])
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[-1,4,16],stop_gradient:[true]} : () -> tensor<-1x4x16xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"w_norm",place:Place(undefined:0),shape:[16],stop_gradient:[true]} : () -> tensor<16xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"gate",place:Place(undefined:0),shape:[16,32],stop_gradient:[true]} : () -> tensor<16x32xf32>
    (%3) = "pd_op.data" () {dtype:float32,name:"up",place:Place(undefined:0),shape:[16,32],stop_gradient:[true]} : () -> tensor<16x32xf32>
    (%4) = "pd_op.multiply" (%0, %1) {stop_gradient:[true]} : (tensor<-1x4x16xf32>, tensor<16xf32>) -> tensor<-1x4x16xf32>
    (%5) = "pd_op.matmul" (%4, %2) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<-1x4x16xf32>, tensor<16x32xf32>) -> tensor<-1x4x32xf32>
    (%6) = "pd_op.matmul" (%4, %3) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<-1x4x16xf32>, tensor<16x32xf32>) -> tensor<-1x4x32xf32>
    (%7) = "pd_op.silu" (%5) {stop_gradient:[true]} : (tensor<-1x4x32xf32>) -> tensor<-1x4x32xf32>
    (%8) = "pd_op.multiply" (%7, %6) {stop_gradient:[true]} : (tensor<-1x4x32xf32>, tensor<-1x4x32xf32>) -> tensor<-1x4x32xf32>
    (%9) = "pd_op.fetch" (%8) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<-1x4x32xf32>) -> tensor<-1x4x32xf32>
}
