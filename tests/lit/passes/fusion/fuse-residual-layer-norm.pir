// fuse-residual-layer-norm: layer_norm(add(x, r), scale, bias) is
// fused_bias_residual_layernorm(x, residual=r, norm_weight=scale, norm_bias=bias) at every PIR
// version; its residual_out replaces the add (whose other use, the fetched sum, stays).
// Version gating: add, layer_norm and fused_bias_residual_layernorm have one semantic version
// and the same operands and attributes at PIR 1-4, so no version skips this fusion: the same
// checks hold at each (docs/FUSION.md's matrix); the gate would refuse a later version.
// RUN: pirc-opt %s --from-version=1 -p fuse-residual-layer-norm --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=2 -p fuse-residual-layer-norm --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=3 -p fuse-residual-layer-norm --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=4 -p fuse-residual-layer-norm --emit=paddle --split-input-file | FileCheck %s

// Near misses: the layer_norm's mean fetched (the fused op's statistics differ: its variance
// holds 1/sqrt(var + eps)); a [1, 8, 16] residual broadcast over the batch; neither scale nor
// bias (the fused kernel then only adds); a float16 x (the kernel is float32 only).
// RUN: pirc-opt %S/Inputs/residual_layer_norm_near_misses.pir --from-version=1 -p fuse-residual-layer-norm --explain=fuse-residual-layer-norm --emit=paddle 2>&1 | FileCheck %s --check-prefix=NEAR
// RUN: pirc-opt %S/Inputs/residual_layer_norm_near_misses.pir --from-version=4 -p fuse-residual-layer-norm --explain=fuse-residual-layer-norm --emit=paddle 2>&1 | FileCheck %s --check-prefix=NEAR
// NEAR: fuse-residual-layer-norm: 0 rewrites, 4 near misses
// NEAR-NEXT: rule residual-layer-norm: 0 rewrites, 4 near misses
// NEAR-NEXT: pd_op.layer_norm at {{.*}}residual_layer_norm_near_misses.pir:7:5: layer_norm statistics unused
// NEAR-NEXT: pd_op.layer_norm at {{.*}}residual_layer_norm_near_misses.pir:16:5: residual add without broadcast
// NEAR-NEXT: pd_op.layer_norm at {{.*}}residual_layer_norm_near_misses.pir:24:5: layer_norm has a scale or a bias
// NEAR-NEXT: pd_op.layer_norm at {{.*}}residual_layer_norm_near_misses.pir:32:5: x is float32
// NEAR-NOT: fused_bias_residual_layernorm"

// CHECK-LABEL: "pd_op.data" () {dtype:float32,name:"scale"
// CHECK-NOT:   "pd_op.add"
// CHECK:       (%[[Y:[0-9]+]], %[[S:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}) = "pd_op.fused_bias_residual_layernorm" (%2, <<NULL VALUE>>, %3, %0, %1) {begin_norm_axis:2,epsilon:1e-05,quant_max_bound:0,quant_min_bound:0,quant_round_type:0,quant_scale:-1,residual_alpha:1,
// CHECK-SAME:  -> tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>
// CHECK-NEXT:  "pd_op.fetch" (%[[Y]])
// CHECK-NEXT:  "pd_op.fetch" (%[[S]])
// CHECK-NOT:   "pd_op.layer_norm"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"scale",place:Place(undefined:0),shape:[16],stop_gradient:[true]} : () -> tensor<16xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"bias",place:Place(undefined:0),shape:[16],stop_gradient:[true]} : () -> tensor<16xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8,16],stop_gradient:[true]} : () -> tensor<2x8x16xf32>
    (%3) = "pd_op.data" () {dtype:float32,name:"r",place:Place(undefined:0),shape:[2,8,16],stop_gradient:[true]} : () -> tensor<2x8x16xf32>
    (%4) = "pd_op.add" (%2, %3) {stop_gradient:[true]} : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%5, %6, %7) = "pd_op.layer_norm" (%4, %0, %1) {begin_norm_axis:2,epsilon:1e-05,stop_gradient:[true,true,true]} : (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>
    (%8) = "pd_op.fetch" (%5) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%9) = "pd_op.fetch" (%4) {col:1,name:"sum",persistable:[true],stop_gradient:[true]} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
}

// -----

// A scale and no bias: the absent bias stays absent; the add is used only by the norm.
// CHECK-LABEL: "pd_op.data" () {dtype:float32,name:"scale"
// CHECK:       (%[[Y:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) = "pd_op.fused_bias_residual_layernorm" (%2, <<NULL VALUE>>, %3, %0, <<NULL VALUE>>)
// CHECK-NEXT:  "pd_op.fetch" (%[[Y]])
// CHECK-NOT:   "pd_op.add"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"scale",place:Place(undefined:0),shape:[16],stop_gradient:[true]} : () -> tensor<16xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"bias",place:Place(undefined:0),shape:[16],stop_gradient:[true]} : () -> tensor<16xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8,16],stop_gradient:[true]} : () -> tensor<2x8x16xf32>
    (%3) = "pd_op.data" () {dtype:float32,name:"r",place:Place(undefined:0),shape:[2,8,16],stop_gradient:[true]} : () -> tensor<2x8x16xf32>
    (%4) = "pd_op.add" (%2, %3) {stop_gradient:[true]} : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%5, %6, %7) = "pd_op.layer_norm" (%4, %0, <<NULL VALUE>>) {begin_norm_axis:2,epsilon:1e-05,stop_gradient:[true,true,true]} : (tensor<2x8x16xf32>, tensor<16xf32>, <<NULL TYPE>>) -> tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>
    (%8) = "pd_op.fetch" (%5) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
}
