// fuse-gelu: the erf and tanh gelu compositions, in the spellings real Paddle 3.3.1 writes
// (each section is Paddle's own print of the Python code named; the decomposed ones are
// paddle.decomposition of F.gelu), become gelu(approximate=false) and gelu(approximate=true)
// -- never the other -- at every PIR version (1-4: scale, multiply, add, erf, tanh, pow, divide
// and gelu have one semantic version each and gelu one signature, so no version skips;
// docs/FUSION.md's matrix).
// RUN: pirc-opt %s --from-version=1 -p fuse-gelu --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=2 -p fuse-gelu --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=3 -p fuse-gelu --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=4 -p fuse-gelu --emit=paddle --split-input-file | FileCheck %s

// Near misses (Inputs/gelu_near_misses.pir, three programs): tanh of x / sqrt(2) (the erf
// gelu's argument under tanh), x^2 for x^3, 0.6 for 0.5.  Nothing fuses; each rule names the
// check that failed.
// RUN: pirc-opt %S/Inputs/gelu_near_misses.pir --split-input-file --from-version=4 -p fuse-gelu --explain=fuse-gelu --emit=paddle 2>&1 | FileCheck %s --check-prefix=NEAR
// NEAR:      rule gelu-erf: 0 rewrites, 1 near misses
// NEAR-NEXT: gelu_near_misses.pir:10:5: structure: operand 0 of pd_op.scale is pd_op.tanh, not pd_op.erf
// NEAR-NEXT: rule gelu-tanh: 0 rewrites, 1 near misses
// NEAR-NEXT: gelu_near_misses.pir:10:5: structure: operand 0 of pd_op.scale is pd_op.data, not pd_op.add
// NEAR:      gelu_near_misses.pir:27:5: pow exponent is 3: attribute y of pd_op.pow is 2.0
// NEAR:      gelu_near_misses.pir:40:5: constant operand 1 of pd_op.scale is 0.6, not 0.5
// NEAR-NOT:  "pd_op.gelu"

// 0.5 * x * (1 + paddle.erf(x / math.sqrt(2)))
// CHECK-LABEL: name:"x"
// CHECK:       (%[[G:[0-9]+]]) = "pd_op.gelu" (%0) {approximate:false
// CHECK-NEXT:  "pd_op.fetch" (%[[G]])
// CHECK-NOT:   "pd_op.erf"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.5} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.707107} : () -> tensor<1xf32>
    (%4) = "pd_op.scale" (%0, %3) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%5) = "pd_op.erf" (%4) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%6) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%7) = "pd_op.scale" (%5, %6) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%8) = "pd_op.multiply" (%2, %7) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%9) = "pd_op.fetch" (%8) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}

// -----

// paddle.decomposition of F.gelu(x): multiplies and adds of 0-D fulls
// CHECK-LABEL: // -----
// CHECK:       (%[[G:[0-9]+]]) = "pd_op.gelu" (%0) {approximate:false
// CHECK-NEXT:  "pd_op.fetch" (%[[G]])
// CHECK-NOT:   "pd_op.erf"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],value:0.5} : () -> tensor<f32>
    (%2) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],value:1} : () -> tensor<f32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],value:0.707107} : () -> tensor<f32>
    (%4) = "pd_op.multiply" (%0, %3) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    (%5) = "pd_op.erf" (%4) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%6) = "pd_op.add" (%2, %5) {stop_gradient:[true]} : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%7) = "pd_op.multiply" (%0, %1) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    (%8) = "pd_op.multiply" (%7, %6) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%9) = "pd_op.fetch" (%8) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}

// -----

// 0.5 * (x * (1.0 + paddle.erf(x * (1 / math.sqrt(2)))))
// CHECK-LABEL: // -----
// CHECK:       (%[[G:[0-9]+]]) = "pd_op.gelu" (%0) {approximate:false
// CHECK-NEXT:  "pd_op.fetch" (%[[G]])
// CHECK-NOT:   "pd_op.erf"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.707107} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%3) = "pd_op.erf" (%2) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%5) = "pd_op.scale" (%3, %4) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%6) = "pd_op.multiply" (%0, %5) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%7) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.5} : () -> tensor<1xf32>
    (%8) = "pd_op.scale" (%6, %7) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%9) = "pd_op.fetch" (%8) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}

// -----

// PaddleNLP's gelu_new: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * pow(x, 3))))
// CHECK-LABEL: // -----
// CHECK:       (%[[G:[0-9]+]]) = "pd_op.gelu" (%0) {approximate:true
// CHECK-NEXT:  "pd_op.fetch" (%[[G]])
// CHECK-NOT:   "pd_op.tanh"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.5} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%3) = "pd_op.pow" (%0) {stop_gradient:[true],y:3} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.044715} : () -> tensor<1xf32>
    (%5) = "pd_op.scale" (%3, %4) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%6) = "pd_op.add" (%0, %5) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%7) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.797885} : () -> tensor<1xf32>
    (%8) = "pd_op.scale" (%6, %7) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%9) = "pd_op.tanh" (%8) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%10) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%11) = "pd_op.scale" (%9, %10) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%12) = "pd_op.multiply" (%2, %11) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%13) = "pd_op.fetch" (%12) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}

// -----

// paddle.decomposition of F.gelu(x, approximate=True): x * x * x
// CHECK-LABEL: // -----
// CHECK:       (%[[G:[0-9]+]]) = "pd_op.gelu" (%0) {approximate:true
// CHECK-NEXT:  "pd_op.fetch" (%[[G]])
// CHECK-NOT:   "pd_op.tanh"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],value:0.5} : () -> tensor<f32>
    (%2) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],value:1} : () -> tensor<f32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],value:0.797885} : () -> tensor<f32>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],value:0.044715} : () -> tensor<f32>
    (%5) = "pd_op.multiply" (%0, %0) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%6) = "pd_op.multiply" (%5, %0) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%7) = "pd_op.multiply" (%6, %4) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    (%8) = "pd_op.add" (%0, %7) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%9) = "pd_op.multiply" (%3, %8) {stop_gradient:[true]} : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%10) = "pd_op.tanh" (%9) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%11) = "pd_op.add" (%2, %10) {stop_gradient:[true]} : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%12) = "pd_op.multiply" (%0, %1) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    (%13) = "pd_op.multiply" (%12, %11) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%14) = "pd_op.fetch" (%13) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}

// -----

// PaddleNLP BLOOM's bloom_gelu_forward: x * 0.5 * (1 + tanh(0.79788456 * x * (1 + 0.044715 * x * x)))
// CHECK-LABEL: // -----
// CHECK:       (%[[G:[0-9]+]]) = "pd_op.gelu" (%0) {approximate:true
// CHECK-NEXT:  "pd_op.fetch" (%[[G]])
// CHECK-NOT:   "pd_op.tanh"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.5} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.797885} : () -> tensor<1xf32>
    (%4) = "pd_op.scale" (%0, %3) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%5) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.044715} : () -> tensor<1xf32>
    (%6) = "pd_op.scale" (%0, %5) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%7) = "pd_op.multiply" (%6, %0) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%8) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%9) = "pd_op.scale" (%7, %8) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%10) = "pd_op.multiply" (%4, %9) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%11) = "pd_op.tanh" (%10) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%12) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%13) = "pd_op.scale" (%11, %12) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%14) = "pd_op.multiply" (%2, %13) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%15) = "pd_op.fetch" (%14) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}

// -----

// PaddleNLP's FastGELUActivation: 0.5 * x * (1 + tanh(x * 0.7978845608 * (1 + 0.044715 * x * x)))
// CHECK-LABEL: // -----
// CHECK:       (%[[G:[0-9]+]]) = "pd_op.gelu" (%0) {approximate:true
// CHECK-NEXT:  "pd_op.fetch" (%[[G]])
// CHECK-NOT:   "pd_op.tanh"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.5} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.797885} : () -> tensor<1xf32>
    (%4) = "pd_op.scale" (%0, %3) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%5) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.044715} : () -> tensor<1xf32>
    (%6) = "pd_op.scale" (%0, %5) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%7) = "pd_op.multiply" (%6, %0) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%8) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%9) = "pd_op.scale" (%7, %8) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%10) = "pd_op.multiply" (%4, %9) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%11) = "pd_op.tanh" (%10) {stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%12) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%13) = "pd_op.scale" (%11, %12) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
    (%14) = "pd_op.multiply" (%2, %13) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    (%15) = "pd_op.fetch" (%14) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
}
