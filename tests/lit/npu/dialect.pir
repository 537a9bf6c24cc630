// The npu dialect (dialects/npu.yaml): ops parse, verify strictly, print in canonical text
// with their attribute kinds, and survive Paddle JSON, whose writing warns once that Paddle
// cannot load the file.
// RUN: pirc-opt %s --from-version=4 --strict | filecheck %s --check-prefix=TEXT
// TEXT:      "npu.rms_norm" (%1, %0) {epsilon:(Double)1e-06}
// TEXT:      "npu.gelu" (%2) {approximate:"tanh"}
// TEXT:      "npu.swiglu" (%4) {}
// TEXT:      "npu.layer_norm_eval" (%5, <<NULL VALUE>>, <<NULL VALUE>>) {normalized_shape:[(Int64)4]}
// RUN: pirc-opt %s --from-version=4 --emit=json -o %t.json 2>&1 | filecheck %s --check-prefix=WARN
// WARN:      warning: the Paddle JSON written holds ops of pirc's npu dialect (npu.gelu, npu.layer_norm_eval, npu.rms_norm, npu.swiglu): Paddle cannot load it (pirc reads it back)
// WARN-NOT:  warning
// RUN: pirc-opt %t.json --emit=pir > %t.again.pir
// RUN: pirc-opt %s --from-version=4 > %t.first.pir
// RUN: diff %t.first.pir %t.again.pir
// RUN: not pirc-opt %S/Inputs/bad_npu_attr.pir --from-version=4 2>&1 | filecheck %s --check-prefix=BAD
// BAD: bad_npu_attr.pir:3:5: error: npu.rms_norm: attribute epsilon is str, expects double
{
    (%0) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"w",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> tensor<8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%2, %3) = "npu.rms_norm" (%1, %0) {epsilon:1e-06} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>, tensor<2x1xf32>
    (%4) = "npu.gelu" (%2) {approximate:"tanh"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%5) = "npu.swiglu" (%4) {} : (tensor<2x8xf32>) -> tensor<2x4xf32>
    (%6) = "npu.layer_norm_eval" (%5, <<NULL VALUE>>, <<NULL VALUE>>) {normalized_shape:[4]} : (tensor<2x4xf32>, <<NULL TYPE>>, <<NULL TYPE>>) -> tensor<2x4xf32>
    (%7) = "pd_op.fetch" (%6) {col:0,name:"y",persistable:[true],stop_gradient:[false]} : (tensor<2x4xf32>) -> tensor<2x4xf32>
}
