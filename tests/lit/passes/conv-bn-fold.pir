// conv-bn-fold folds an inference batch_norm into the conv before it: a new weight, a new
// bias parameter [1,C,1,1] added after the conv, the norm and its statistics gone.
// Inputs/conv_bn.pir holds three conv + norm chains: an inference batch_norm_ (folded), a
// training one (no match: it normalises with the batch's statistics) and an inference
// pd_op.batch_norm, the out-of-place form with the same semantics (folded too).
// RUN: %python %S/Inputs/write_params.py %S/Inputs/conv_bn.pir 4 %t.in.pdiparams
// RUN: pirc-opt %S/Inputs/conv_bn.pir --from-version=4 --emit=paddle -p conv-bn-fold,dce --params %t.in.pdiparams --params-out %t.out.pdiparams --pass-report %t.report.json -o %t.pir
// RUN: FileCheck %s < %t.pir
// RUN: FileCheck %s --check-prefix=REPORT < %t.report.json
// RUN: %python -c "import pirc; p = pirc.load(r'%t.pir', from_version=4); print(*[f'{n} {list(a.shape)}' for n, a in pirc.read_params(r'%t.out.pdiparams', p).items()], sep='\n')" | FileCheck %s --check-prefix=PARAMS

// The first chain: the conv reads the folded weight, then adds the folded bias.
// CHECK:      (%[[W:[0-9]+]]) = "builtin.parameter" () {{.*}}parameter_name:"conv0.w_0.bn_folded",{{.*}} : () -> tensor<4x3x3x3xf32>
// CHECK-NEXT: (%[[B:[0-9]+]]) = "builtin.parameter" () {{.*}}parameter_name:"conv0.w_0.bn_folded_bias",{{.*}} : () -> tensor<1x4x1x1xf32>
// CHECK-NEXT: (%[[C:[0-9]+]]) = "pd_op.conv2d" (%0, %[[W]])
// CHECK-NEXT: (%[[ADD:[0-9]+]]) = "pd_op.add" (%[[C]], %[[B]]) {stop_gradient:[false]} : (tensor<-1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<-1x4x8x8xf32>
// Its old weight and statistics are gone:
// CHECK-NOT:  parameter_name:"conv0.w_0"
// CHECK-NOT:  parameter_name:"bn0.
// The training-mode norm stays; the third chain folds like the first:
// CHECK:      "pd_op.batch_norm_" {{.*}}is_test:false
// CHECK-NOT:  "pd_op.batch_norm"
// CHECK:      parameter_name:"conv2.w_0.bn_folded"
// CHECK:      (%[[ADD2:[0-9]+]]) = "pd_op.add"
// CHECK:      "pd_op.fetch" (%[[ADD]]) {col:0,name:"out0"
// CHECK:      "pd_op.fetch" (%[[ADD2]]) {col:2,name:"out2"

// REPORT:      "name": "conv-bn-fold",
// REPORT:      "matches": 2,
// REPORT-NEXT: "rewrites": 2,
// REPORT-NEXT: "skips": [],

// The parameters written are the program's, sorted, the folded ones in place of conv0's:
// PARAMS:      bn1.b_0 [4]
// PARAMS-NEXT: bn1.w_0 [4]
// PARAMS-NEXT: bn1.w_1 [4]
// PARAMS-NEXT: bn1.w_2 [4]
// PARAMS-NEXT: conv0.w_0.bn_folded [4, 3, 3, 3]
// PARAMS-NEXT: conv0.w_0.bn_folded_bias [1, 4, 1, 1]
// PARAMS-NEXT: conv1.w_0 [4, 3, 3, 3]
// PARAMS-NEXT: conv2.w_0.bn_folded [4, 3, 3, 3]
// PARAMS-NEXT: conv2.w_0.bn_folded_bias [1, 4, 1, 1]
// PARAMS-EMPTY:
