// fuse-rms-norm: x * rsqrt(mean(x^2, -1, keepdim) + eps) * w, with or without a residual add,
// is Paddle's fused RMS norm: pd_op.rms_norm at PIR 1-3, pd_op.fused_rms_norm_quant at PIR 4
// (the same operands, attributes and results; Paddle 3.3 reused the name rms_norm for another
// op).  multiply, pow, mean, scale, add and rsqrt have one semantic version at every PIR
// version (docs/FUSION.md's matrix).
// RUN: pirc-opt %s --from-version=1 -p fuse-rms-norm --emit=paddle --split-input-file | FileCheck %s --check-prefixes=CHECK,V13
// RUN: pirc-opt %s --from-version=2 -p fuse-rms-norm --emit=paddle --split-input-file | FileCheck %s --check-prefixes=CHECK,V13
// RUN: pirc-opt %s --from-version=3 -p fuse-rms-norm --emit=paddle --split-input-file | FileCheck %s --check-prefixes=CHECK,V13
// RUN: pirc-opt %s --from-version=4 -p fuse-rms-norm --emit=paddle --split-input-file | FileCheck %s --check-prefixes=CHECK,V4

// Version-gated skips: each rule builds one target and is skipped where that target is not
// the op it builds.  At PIR 4 the rms_norm rule is skipped (rms_norm is x, scale,
// normalized_shape, epsilon there) and fused_rms_norm_quant fires; at PIR 1-3 rms_norm fires
// (tests/unit/test_fuse_norm.py runs the fused_rms_norm_quant rule alone: skipped at 1-3).
// RUN: pirc-opt %S/Inputs/rms_norm_residual.pir --from-version=4 -p fuse-rms-norm --explain=fuse-rms-norm -o %t.pir 2>&1 | FileCheck %s --check-prefix=SKIP4
// SKIP4: fuse-rms-norm: 1 rewrite, 0 near misses
// SKIP4: rule fused_rms_norm_quant: 1 rewrites, 0 near misses
// SKIP4: skipped 1: version: target pd_op.rms_norm at PIR version 4 has operands (x, scale)
// RUN: pirc-opt %S/Inputs/rms_norm_residual.pir --from-version=3 -p fuse-rms-norm --explain=fuse-rms-norm -o %t.pir 2>&1 | FileCheck %s --check-prefix=SKIP3
// SKIP3: fuse-rms-norm: 1 rewrite, 0 near misses
// SKIP3: rule rms_norm: 1 rewrites, 0 near misses
// SKIP3-NOT: skipped

// Near misses, one per site, named by the check that failed (the rule of the program's
// version reports; the other target's rule records none): a pow exponent of 3, a mean over
// axis 1, epsilon 0, a float16 x, the inverse root also fetched.
// RUN: pirc-opt %S/Inputs/rms_norm_near_misses.pir --from-version=4 -p fuse-rms-norm --explain=fuse-rms-norm --emit=paddle 2>&1 | FileCheck %s --check-prefix=NEAR
// RUN: pirc-opt %S/Inputs/rms_norm_near_misses.pir --from-version=2 -p fuse-rms-norm --explain=fuse-rms-norm --emit=paddle 2>&1 | FileCheck %s --check-prefix=NEAR
// NEAR: fuse-rms-norm: 0 rewrites, 5 near misses
// NEAR-NEXT: rule {{rms_norm|fused_rms_norm_quant}}: 0 rewrites, 5 near misses
// NEAR-NEXT: pd_op.multiply at {{.*}}rms_norm_near_misses.pir:11:5: pow exponent is 2: attribute y of pd_op.pow is 3.0
// NEAR-NEXT: pd_op.multiply at {{.*}}rms_norm_near_misses.pir:22:5: mean over the last axis
// NEAR-NEXT: pd_op.multiply at {{.*}}rms_norm_near_misses.pir:33:5: epsilon > 0
// NEAR-NEXT: pd_op.multiply at {{.*}}rms_norm_near_misses.pir:44:5: x is float32
// NEAR-NEXT: pd_op.multiply at {{.*}}rms_norm_near_misses.pir:55:5: one use: the pd_op.rsqrt result is also used by pd_op.fetch
// NEAR-NOT: rms_norm"
// NEAR-NOT: fused_rms_norm_quant"

// pow / scale / rsqrt, x * r then * w.
// CHECK-LABEL: "pd_op.data" () {dtype:float32,name:"w"
// CHECK:       "pd_op.data" () {dtype:float32,name:"x"
// CHECK-NOT:   "pd_op.pow"
// V13:         (%[[Y:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}) = "pd_op.rms_norm" (%1, <<NULL VALUE>>, <<NULL VALUE>>, %0, <<NULL VALUE>>) {begin_norm_axis:2,epsilon:1e-06,quant_max_bound:0,quant_min_bound:0,quant_round_type:0,quant_scale:-1,
// V4:          (%[[Y:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}) = "pd_op.fused_rms_norm_quant" (%1, <<NULL VALUE>>, <<NULL VALUE>>, %0, <<NULL VALUE>>) {begin_norm_axis:2,epsilon:1e-06,quant_max_bound:0,quant_min_bound:0,quant_round_type:0,quant_scale:-1,
// CHECK-SAME:  -> tensor<2x8x16xf32>, <<NULL TYPE>>, tensor<2x8xf32>
// CHECK-NEXT:  "pd_op.fetch" (%[[Y]])
// CHECK-NOT:   "pd_op.rsqrt"
// CHECK-NOT:   "pd_op.multiply"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"w",place:Place(undefined:0),shape:[16],stop_gradient:[true]} : () -> tensor<16xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8,16],stop_gradient:[true]} : () -> tensor<2x8x16xf32>
    (%2) = "pd_op.pow" (%1) {stop_gradient:[true],y:2} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%3) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[-1]} : () -> tensor<1xi64>
    (%4) = "pd_op.mean" (%2, %3) {keepdim:true,stop_gradient:[true]} : (tensor<2x8x16xf32>, tensor<1xi64>) -> tensor<2x8x1xf32>
    (%5) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%6) = "pd_op.scale" (%4, %5) {bias:1e-06,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8x1xf32>, tensor<1xf32>) -> tensor<2x8x1xf32>
    (%7) = "pd_op.rsqrt" (%6) {stop_gradient:[true]} : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
    (%8) = "pd_op.multiply" (%1, %7) {stop_gradient:[true]} : (tensor<2x8x16xf32>, tensor<2x8x1xf32>) -> tensor<2x8x16xf32>
    (%9) = "pd_op.multiply" (%8, %0) {stop_gradient:[true]} : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
    (%10) = "pd_op.fetch" (%9) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
}

// -----

// The other spellings and orders: multiply(x, x) for the square, epsilon by add(full, mean),
// pow(., -0.5) for the inverse root, r * x, then w * (r * x).
// CHECK-LABEL: "pd_op.data" () {dtype:float32,name:"w"
// V13:         (%[[Y:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}) = "pd_op.rms_norm" (%1, <<NULL VALUE>>, <<NULL VALUE>>, %0, <<NULL VALUE>>) {begin_norm_axis:2,epsilon:1e-06,
// V4:          (%[[Y:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}) = "pd_op.fused_rms_norm_quant" (%1, <<NULL VALUE>>, <<NULL VALUE>>, %0, <<NULL VALUE>>) {begin_norm_axis:2,epsilon:1e-06,
// CHECK-NEXT:  "pd_op.fetch" (%[[Y]])
// CHECK-NOT:   "pd_op.multiply"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"w",place:Place(undefined:0),shape:[16],stop_gradient:[true]} : () -> tensor<16xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8,16],stop_gradient:[true]} : () -> tensor<2x8x16xf32>
    (%2) = "pd_op.multiply" (%1, %1) {stop_gradient:[true]} : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%3) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2]} : () -> tensor<1xi64>
    (%4) = "pd_op.mean" (%2, %3) {keepdim:true,stop_gradient:[true]} : (tensor<2x8x16xf32>, tensor<1xi64>) -> tensor<2x8x1xf32>
    (%5) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1e-06} : () -> tensor<1xf32>
    (%6) = "pd_op.add" (%5, %4) {stop_gradient:[true]} : (tensor<1xf32>, tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
    (%7) = "pd_op.pow" (%6) {stop_gradient:[true],y:-0.5} : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
    (%8) = "pd_op.multiply" (%7, %1) {stop_gradient:[true]} : (tensor<2x8x1xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%9) = "pd_op.multiply" (%0, %8) {stop_gradient:[true]} : (tensor<16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%10) = "pd_op.fetch" (%9) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
}

// -----

// With a residual: x = a + b (one type, no broadcast) is matched too; the fused op adds a + b
// itself and its residual_out replaces the add, whose other use (the fetched sum) stays.
// CHECK-LABEL: "pd_op.data" () {dtype:float32,name:"w"
// CHECK-NOT:   "pd_op.add"
// V13:         (%[[Y:[0-9]+]], %[[S:[0-9]+]], %{{[0-9]+}}) = "pd_op.rms_norm" (%1, <<NULL VALUE>>, %2, %0, <<NULL VALUE>>)
// V4:          (%[[Y:[0-9]+]], %[[S:[0-9]+]], %{{[0-9]+}}) = "pd_op.fused_rms_norm_quant" (%1, <<NULL VALUE>>, %2, %0, <<NULL VALUE>>)
// CHECK-SAME:  -> tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8xf32>
// CHECK-NEXT:  "pd_op.fetch" (%[[Y]])
// CHECK-NEXT:  "pd_op.fetch" (%[[S]])
{
    (%0) = "pd_op.data" () {dtype:float32,name:"w",place:Place(undefined:0),shape:[16],stop_gradient:[true]} : () -> tensor<16xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"a",place:Place(undefined:0),shape:[2,8,16],stop_gradient:[true]} : () -> tensor<2x8x16xf32>
    (%2) = "pd_op.data" () {dtype:float32,name:"b",place:Place(undefined:0),shape:[2,8,16],stop_gradient:[true]} : () -> tensor<2x8x16xf32>
    (%3) = "pd_op.add" (%1, %2) {stop_gradient:[true]} : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%4) = "pd_op.pow" (%3) {stop_gradient:[true],y:2} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%5) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[-1]} : () -> tensor<1xi64>
    (%6) = "pd_op.mean" (%4, %5) {keepdim:true,stop_gradient:[true]} : (tensor<2x8x16xf32>, tensor<1xi64>) -> tensor<2x8x1xf32>
    (%7) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%8) = "pd_op.scale" (%6, %7) {bias:1e-06,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8x1xf32>, tensor<1xf32>) -> tensor<2x8x1xf32>
    (%9) = "pd_op.rsqrt" (%8) {stop_gradient:[true]} : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
    (%10) = "pd_op.multiply" (%9, %3) {stop_gradient:[true]} : (tensor<2x8x1xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%11) = "pd_op.multiply" (%0, %10) {stop_gradient:[true]} : (tensor<16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%12) = "pd_op.fetch" (%11) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    (%13) = "pd_op.fetch" (%3) {col:1,name:"sum",persistable:[true],stop_gradient:[true]} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
}
