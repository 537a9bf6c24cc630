// fuse-fc: matmul(x, w) + b (b 1-D, either order) is fc(x, w, b, in_num_col_dims=rank(x)-1),
// and a relu after it folds into activation_type="relu", at every PIR version (1-4: matmul,
// add, relu and fc have one semantic version each and fc one signature, so no version skips;
// docs/FUSION.md's matrix).
// RUN: pirc-opt %s --from-version=1 -p fuse-fc --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=2 -p fuse-fc --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=3 -p fuse-fc --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=4 -p fuse-fc --emit=paddle --split-input-file | FileCheck %s

// Near misses, each with the check it failed: a 2-D bias, a transposed weight, a 3-D weight,
// float16 (Paddle's CPU fc has float and double kernels only), the matmul also fetched, and a
// relu6 after an fc (Paddle's CPU fc applies relu only: the matmul + add still fuse).
// RUN: pirc-opt %S/Inputs/fc_near_misses.pir --from-version=4 -p fuse-fc --explain=fuse-fc --emit=paddle 2>&1 | FileCheck %s --check-prefix=NEAR
// NEAR: fuse-fc: 1 rewrite, 6 near misses
// NEAR-NEXT: rule fc: 1 rewrites, 5 near misses
// NEAR-NEXT: pd_op.add at {{.*}}fc_near_misses.pir:6:5: bias is 1-D of the weight's width
// NEAR-NEXT: pd_op.add at {{.*}}fc_near_misses.pir:11:5: attribute transpose_y of pd_op.matmul is True, not False
// NEAR-NEXT: pd_op.add at {{.*}}fc_near_misses.pir:16:5: weight is 2-D with static dims
// NEAR-NEXT: pd_op.add at {{.*}}fc_near_misses.pir:22:5: float32 or float64
// NEAR-NEXT: pd_op.add at {{.*}}fc_near_misses.pir:26:5: one use: the pd_op.matmul result is also used by pd_op.fetch
// NEAR-NEXT: rule fc-relu: 0 rewrites, 1 near misses
// NEAR-NEXT: pd_op.relu6 at {{.*}}fc_near_misses.pir:{{[0-9]+}}:5: activation is relu
// NEAR: "pd_op.fc"
// NEAR-SAME: activation_type:""
// NEAR: "pd_op.relu6"

// CHECK-LABEL: name:"x",place:Place(undefined:0),shape:[2,4,16]
// CHECK:       (%[[F:[0-9]+]]) = "pd_op.fc" (%0, %1, %2) {activation_type:"relu",in_num_col_dims:2,padding_weights:false
// CHECK-SAME:  -> tensor<2x4x8xf32>
// CHECK-NEXT:  "pd_op.fetch" (%[[F]])
// CHECK-NOT:   "pd_op.matmul"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,4,16],stop_gradient:[true]} : () -> tensor<2x4x16xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"w",place:Place(undefined:0),shape:[16,8],stop_gradient:[true]} : () -> tensor<16x8xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"b",place:Place(undefined:0),shape:[8],stop_gradient:[true]} : () -> tensor<8xf32>
    (%3) = "pd_op.matmul" (%0, %1) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
    (%4) = "pd_op.add" (%3, %2) {stop_gradient:[true]} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
    (%5) = "pd_op.relu" (%4) {stop_gradient:[true]} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    (%6) = "pd_op.fetch" (%5) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
}

// -----

// The bias first, a dynamic batch, float64, no relu.
// CHECK-LABEL: // -----
// CHECK:       (%[[F:[0-9]+]]) = "pd_op.fc" (%0, %1, %2) {activation_type:"",in_num_col_dims:1,padding_weights:false
// CHECK-SAME:  -> tensor<-1x8xf64>
// CHECK-NEXT:  "pd_op.fetch" (%[[F]])
{
    (%0) = "pd_op.data" () {dtype:float64,name:"x",place:Place(undefined:0),shape:[-1,16],stop_gradient:[true]} : () -> tensor<-1x16xf64>
    (%1) = "pd_op.data" () {dtype:float64,name:"w",place:Place(undefined:0),shape:[16,8],stop_gradient:[true]} : () -> tensor<16x8xf64>
    (%2) = "pd_op.data" () {dtype:float64,name:"b",place:Place(undefined:0),shape:[8],stop_gradient:[true]} : () -> tensor<8xf64>
    (%3) = "pd_op.matmul" (%0, %1) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<-1x16xf64>, tensor<16x8xf64>) -> tensor<-1x8xf64>
    (%4) = "pd_op.add" (%2, %3) {stop_gradient:[true]} : (tensor<8xf64>, tensor<-1x8xf64>) -> tensor<-1x8xf64>
    (%5) = "pd_op.fetch" (%4) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<-1x8xf64>) -> tensor<-1x8xf64>
}
