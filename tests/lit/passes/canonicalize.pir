// canonicalize removes identity ops and composes cast and transpose chains; what it leaves
// unused is dce's (not run here, so the inputs of removed ops stay).
// RUN: pirc-opt %s --from-version=4 --emit=paddle -p canonicalize --split-input-file | FileCheck %s

// Version gate: casts are declared for semantic version 3 only (cast chains compose only
// where casts round to nearest), so at PIR version 2 (semantic version 1) the same-type
// cast stays and the report says why; at version 3 it goes.
// RUN: pirc-opt %S/Inputs/same_type_cast.pir --from-version=2 -p canonicalize --emit=paddle --pass-report=%t.v2.json | FileCheck %s --check-prefix=V2
// RUN: FileCheck %s --check-prefix=V2-REPORT < %t.v2.json
// RUN: pirc-opt %S/Inputs/same_type_cast.pir --from-version=3 -p canonicalize --emit=paddle | FileCheck %s --check-prefix=V3
// V2:        "pd_op.cast"
// V2-REPORT: "rewrites": 0,
// V2-REPORT: "reason": "version: pd_op.cast at PIR version 2 has semantic version 1; canonicalize was written for 3",
// V3:        (%[[R:[0-9]+]]) = "pd_op.relu"
// V3-NOT:    "pd_op.cast"
// V3:        "pd_op.fetch" (%[[R]])

// The iteration cap must allow one round.
// RUN: not pirc-opt %S/Inputs/same_type_cast.pir --from-version=4 -p 'canonicalize{max-iterations=0}' 2>&1 | FileCheck %s --check-prefix=CAP
// CAP: same_type_cast.pir: error: canonicalize: max-iterations must be at least 1, got 0

// A program read without the verifier may hold malformed ops (a transpose without perm, a
// cast without operand, a full without value, a dropout without p): no pattern indexes past
// what is there and nothing crashes; the cast of a cast without dtype still has its input's
// type, so it goes.
// RUN: pirc-opt %S/Inputs/malformed.pir --from-version=4 --no-verify -p canonicalize,const-fold --no-verify-each --emit=paddle | FileCheck %s --check-prefix=MALFORMED
// MALFORMED:      "pd_op.transpose" (%0) {stop_gradient:[true]}
// MALFORMED-NEXT: "pd_op.cast" () {dtype:float32
// MALFORMED-NEXT: "pd_op.full" () {dtype:float32,place:Place(cpu),stop_gradient:[true]}
// MALFORMED-NEXT: "pd_op.scale"
// MALFORMED-NEXT: "pd_op.add"
// MALFORMED-NEXT: "pd_op.dropout" (%{{[0-9]+}}) {is_test:true

// Near misses: a candidate that matched a producer (the scale's factor, the dropout's p,
// the first of two casts) and then failed names the check in --explain (a reshape to
// another shape matched no producer: no near miss).
// RUN: pirc-opt %S/Inputs/canonicalize_near_misses.pir --from-version=4 -p canonicalize --explain=canonicalize -o %t.pir 2>&1 | FileCheck %s --check-prefix=NEAR
// NEAR:      canonicalize: 0 rewrites, 4 near misses
// NEAR-NEXT: rule compose-casts: 0 rewrites, 1 near misses
// NEAR-NEXT: pd_op.cast at {{.*}}canonicalize_near_misses.pir:16:5: the first cast widens without loss, and the second goes to a float or all three types are integers
// NEAR-NEXT: rule identity-scale: 0 rewrites, 2 near misses
// NEAR-NEXT: pd_op.scale at {{.*}}canonicalize_near_misses.pir:8:5: scale factor is 1: constant operand 1 of pd_op.scale is 2.0
// NEAR-NEXT: pd_op.scale at {{.*}}canonicalize_near_misses.pir:10:5: bias is -0.0 or x is an integer
// NEAR-NEXT: rule inference-dropout: 0 rewrites, 1 near misses
// NEAR-NEXT: pd_op.dropout at {{.*}}canonicalize_near_misses.pir:6:5: mode is upscale_in_train, or p is 0 (downgrade_in_infer scales by 1 - p)

// An assign chain, a float scale by 1 with bias -0.0 (x * 1 + -0.0 is x bit for bit, -0.0
// included), an inference dropout (upscale_in_train) and a transpose pair that composes to the identity: the fetch reads the relu again, and the
// ops those rewrites matched and left unused (the fulls, the first transpose) go too.
// CHECK-LABEL: "pd_op.data"
// CHECK-NEXT:  (%[[X:[0-9]+]]) = "pd_op.relu"
// CHECK-NEXT:  "pd_op.fetch" (%[[X]])
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = "pd_op.assign" (%1) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%3) = "pd_op.assign" (%2) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%5) = "pd_op.scale" (%3, %4) {bias:-0.0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
    (%6) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.1} : () -> tensor<1xf32>
    (%7, %8) = "pd_op.dropout" (%5, <<NULL VALUE>>, %6) {fix_seed:true,is_test:true,mode:"upscale_in_train",seed:1234,stop_gradient:[true,true]} : (tensor<2x3xf32>, <<NULL TYPE>>, tensor<1xf32>) -> tensor<2x3xf32>, tensor<2x3xu8>
    (%9) = "pd_op.transpose" (%7) {perm:[1,0],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    (%10) = "pd_op.transpose" (%9) {perm:[1,0],stop_gradient:[true]} : (tensor<3x2xf32>) -> tensor<2x3xf32>
    (%11) = "pd_op.fetch" (%10) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}

// -----

// Two transposes compose into one ([0,2,1] after [1,0,2] reads x by [1,2,0]; the first
// stays for dce); a same-type cast and a reshape to the same static shape go; a cast
// through a lossless float64 is one cast from the source.
// CHECK-LABEL: "pd_op.data"
// CHECK:       (%[[T:[0-9]+]]) = "pd_op.transpose" (%0) {perm:[1,0,2]
// CHECK-NEXT:  (%{{[0-9]+}}) = "pd_op.transpose" (%0) {perm:[1,2,0]
// CHECK:       "pd_op.cast" (%0) {dtype:float64
// CHECK-NEXT:  "pd_op.cast" (%0) {dtype:float16
// CHECK-NOT:   "pd_op.reshape"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3,4],stop_gradient:[true]} : () -> tensor<2x3x4xf32>
    (%1) = "pd_op.transpose" (%0) {perm:[1,0,2],stop_gradient:[true]} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
    (%2) = "pd_op.transpose" (%1) {perm:[0,2,1],stop_gradient:[true]} : (tensor<3x2x4xf32>) -> tensor<3x4x2xf32>
    (%3) = "pd_op.cast" (%0) {dtype:float64,stop_gradient:[true]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf64>
    (%4) = "pd_op.cast" (%3) {dtype:float16,stop_gradient:[true]} : (tensor<2x3x4xf64>) -> tensor<2x3x4xf16>
    (%5) = "pd_op.cast" (%0) {dtype:float32,stop_gradient:[true]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    (%6) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2,3,4]} : () -> tensor<3xi64>
    (%7) = "pd_op.reshape" (%5, %6) {stop_gradient:[true]} : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
    (%8) = "pd_op.fetch" (%2) {col:0,name:"t",persistable:[true],stop_gradient:[true]} : (tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
    (%9) = "pd_op.fetch" (%4) {col:1,name:"h",persistable:[true],stop_gradient:[true]} : (tensor<2x3x4xf16>) -> tensor<2x3x4xf16>
    (%10) = "pd_op.relu" (%7) {stop_gradient:[true]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    (%11) = "pd_op.fetch" (%10) {col:2,name:"r",persistable:[true],stop_gradient:[true]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
}

// -----

// Not identities, so they stay: a dropout in downgrade_in_infer mode with p = 0.1 (it
// multiplies by 0.9), a scale by 2, a float scale by 1 with bias +0.0 (x * 1 + 0.0 turns
// -0.0 into +0.0, as Paddle computes it), a training dropout, a reshape to another shape, a
// cast that narrows first.
// CHECK-LABEL: "pd_op.data"
// CHECK:       "pd_op.dropout" (%0, <<NULL VALUE>>, %{{[0-9]+}}) {{.*}}mode:"downgrade_in_infer"
// CHECK:       "pd_op.scale"
// CHECK:       "pd_op.scale" (%0, %{{[0-9]+}}) {bias:0
// CHECK:       "pd_op.dropout" (%0, <<NULL VALUE>>, %{{[0-9]+}}) {fix_seed:true,is_test:false
// CHECK:       "pd_op.reshape"
// CHECK:       (%[[N:[0-9]+]]) = "pd_op.cast" (%0) {dtype:float16
// CHECK-NEXT:  "pd_op.cast" (%[[N]]) {dtype:float64
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.1} : () -> tensor<1xf32>
    (%2, %3) = "pd_op.dropout" (%0, <<NULL VALUE>>, %1) {fix_seed:true,is_test:true,mode:"downgrade_in_infer",seed:1234,stop_gradient:[true,true]} : (tensor<2x3xf32>, <<NULL TYPE>>, tensor<1xf32>) -> tensor<2x3xf32>, tensor<2x3xu8>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2} : () -> tensor<1xf32>
    (%5) = "pd_op.scale" (%2, %4) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
    (%15) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%16) = "pd_op.scale" (%0, %15) {bias:0,bias_after_scale:false,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
    (%17) = "pd_op.fetch" (%16) {col:3,name:"d",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%6, %7) = "pd_op.dropout" (%0, <<NULL VALUE>>, %1) {fix_seed:true,is_test:false,mode:"upscale_in_train",seed:1234,stop_gradient:[true,true]} : (tensor<2x3xf32>, <<NULL TYPE>>, tensor<1xf32>) -> tensor<2x3xf32>, tensor<2x3xu8>
    (%8) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[3,2]} : () -> tensor<2xi64>
    (%9) = "pd_op.reshape" (%6, %8) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
    (%10) = "pd_op.cast" (%0) {dtype:float16,stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf16>
    (%11) = "pd_op.cast" (%10) {dtype:float64,stop_gradient:[true]} : (tensor<2x3xf16>) -> tensor<2x3xf64>
    (%12) = "pd_op.fetch" (%5) {col:0,name:"a",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%13) = "pd_op.fetch" (%9) {col:1,name:"b",persistable:[true],stop_gradient:[true]} : (tensor<3x2xf32>) -> tensor<3x2xf32>
    (%14) = "pd_op.fetch" (%11) {col:2,name:"c",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf64>) -> tensor<2x3xf64>
}

// -----

// Aliasing keeps two assigns (each counted as a skip): one whose result is written in place
// (relu_), and one that would make a fetch read a feed.
// CHECK-LABEL: "pd_op.data"
// CHECK:       (%[[A:[0-9]+]]) = "pd_op.assign" (%0)
// CHECK-NEXT:  "pd_op.relu_" (%[[A]])
// CHECK:       (%[[B:[0-9]+]]) = "pd_op.assign" (%0)
// CHECK-NEXT:  "pd_op.fetch" (%[[B]])
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.assign" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = "pd_op.relu_" (%1) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%3) = "pd_op.assign" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%5) = "pd_op.fetch" (%2) {col:1,name:"out2",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}

// -----

// A transpose pair that composes to the identity is its input only if what the second
// transpose reads is what the first computed from the input it would forward: the first
// one's result written in place (exp_) between the two, or the input written between the
// two, keeps both (skips; before the declarative layer these two were forwarded and the
// fetch read the wrong value).
// CHECK-LABEL: "pd_op.data"
// CHECK:       (%[[T:[0-9]+]]) = "pd_op.transpose" (%[[X:[0-9]+]]) {perm:[1,0]
// CHECK-NEXT:  "pd_op.exp_" (%[[T]])
// CHECK-NEXT:  (%[[Y:[0-9]+]]) = "pd_op.transpose" (%[[T]]) {perm:[1,0]
// CHECK:       (%[[U:[0-9]+]]) = "pd_op.transpose" (%[[X]]) {perm:[1,0]
// CHECK-NEXT:  "pd_op.exp_" (%[[X]])
// CHECK-NEXT:  (%[[Z:[0-9]+]]) = "pd_op.transpose" (%[[U]]) {perm:[1,0]
// CHECK-NEXT:  "pd_op.fetch" (%[[Y]])
// CHECK-NEXT:  "pd_op.fetch" (%[[Z]])
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = "pd_op.transpose" (%1) {perm:[1,0],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    (%3) = "pd_op.exp_" (%2) {stop_gradient:[true]} : (tensor<3x2xf32>) -> tensor<3x2xf32>
    (%4) = "pd_op.transpose" (%2) {perm:[1,0],stop_gradient:[true]} : (tensor<3x2xf32>) -> tensor<2x3xf32>
    (%5) = "pd_op.transpose" (%1) {perm:[1,0],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    (%6) = "pd_op.exp_" (%1) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%7) = "pd_op.transpose" (%5) {perm:[1,0],stop_gradient:[true]} : (tensor<3x2xf32>) -> tensor<2x3xf32>
    (%8) = "pd_op.fetch" (%4) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%9) = "pd_op.fetch" (%7) {col:1,name:"out2",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
