// Paddle's own test patches (test/cpp/pir/serialize_deserialize/patch/, copied in
// tests/fixtures/paddle_patches/test) with --patch-dir, renumbered for pirc's version
// rule (Inputs/paddle-test-chain/versions.yaml says how).  The results are what Paddle's
// save_load_version_compat_test asserts, except new_attribute on builtin.parameter,
// which Paddle drops through a bug in its patch merge (docs/PATCHES.md).
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/paddle-test-chain --no-verify | filecheck %s
// Paddle's unrenumbered folder: a version-1 program takes only its 0.yaml.
// RUN: pirc-opt %s --upgrade --patch-dir=%fixtures/paddle_patches/test --no-verify | filecheck %s --check-prefix=AS-IS

pir.version 1
{
    (%0) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"a",persistable:[true],stop_gradient:[true],trainable:[true]} : () -> f32
    (%1) = "builtin.constant" () {value:(Float)2.0} : () -> f32
    (%2) = "test.operation1" () {op1_attr1:"op1_attr1",op1_attr2:"op1_attr2"} : () -> f32
    () = "test.operation2" () {} : () -> 
    (%3, %4) = "test1.operation4" () {} : () -> f32, f32
    (%5) = "test1.operation3" (%3, %4) {} : (f32, f32) -> f32
    (%6) = "test1.operation1" () {} : () -> f32
    (%7) = "test1.operation2" () {} : () -> f32
}

// CHECK:      pir.version 0
// CHECK:      (%0) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],new_attribute:"new.attribute",parameter_name:"fc_0",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> f64
// CHECK-NEXT: (%1) = "builtin.constant" () {value:(Double)1.0} : () -> f64
// CHECK-NEXT: (%2, %3) = "test1.operation1" () {op1_attr1:"op1_attr1_value",op1_attr3:"op1_attr3_value"} : () -> f64, tensor<1xi32>
// CHECK-NEXT: (%4) = "test.operation2" () {op2_attr1:"op2_attr1_value"} : () -> tensor<-1xf64>
// CHECK-NEXT: (%5) = "test1.operation4" () {} : () -> f64
// CHECK-NEXT: (%6) = "test1.operation3" () {} : () -> f64
// CHECK-NEXT: (%7, %8) = "test1.operation1" () {} : () -> f64, tensor<1xi32>
// CHECK-NEXT: (%9) = "test1.operation2" (%8) {} : (tensor<1xi32>) -> f64

// AS-IS:      pir.version 0
// AS-IS:      (%0) = "builtin.parameter" () {{{.*}}new_attribute:"new.attribute",parameter_name:"a",{{.*}}} : () -> f32
// AS-IS:      (%2) = "test.operation1" () {op1_attr1:"op1_attr1",op1_attr2:"op1_attr2"} : () -> f32
