// const-fold evaluates ops on constants and writes the value back as the constant op
// Paddle uses; the constants it read stay for dce (not run here).
// RUN: pirc-opt %s --from-version=4 --emit=paddle -p const-fold --split-input-file | FileCheck %s

// Version gate, in canonical text (exact values): the float32 sum 0.1f + 0.2f folds at any
// version, to float32's 0.30000001192092896 (not 0.3); the cast to float16 folds only where
// casts round to nearest (semantic version 3, from PIR version 3: version 1 truncates,
// which the pass does not compute), so at PIR version 2 it stays and the report says why.
// RUN: pirc-opt %S/Inputs/fold_cast.pir --from-version=2 -p const-fold,dce --pass-report=%t.v2.json | FileCheck %s --check-prefix=V2
// RUN: FileCheck %s --check-prefix=V2-REPORT < %t.v2.json
// RUN: pirc-opt %S/Inputs/fold_cast.pir --from-version=3 -p const-fold,dce | FileCheck %s --check-prefix=V3
// V2:        (%0) = "pd_op.full" () {dtype:(pd_op.DataType)float32,{{.*}}value:(Double)0.30000001192092896}
// V2-NEXT:   (%1) = "pd_op.cast" (%0)
// V2-REPORT: "name": "const-fold",
// V2-REPORT: "rewrites": 1,
// V2-REPORT: "reason": "version: pd_op.cast at PIR version 2 has semantic version 1; const-fold was written for 3",
// V3:        (%0) = "pd_op.full" () {dtype:(pd_op.DataType)float16,{{.*}}value:(Double)0.300048828125} : () -> tensor<2xf16>
// V3-NEXT:   "pd_op.fetch" (%0)

// A chain on constants folds whole: (2 + 0.5) * [1.5, -2, 3.25] scaled by 2 plus 1, in
// float32 as the kernels compute it.  The non-uniform result is a full + assign_value_.
// CHECK-LABEL: "pd_op.data"
// CHECK-NOT:   "pd_op.multiply"
// CHECK-NOT:   "pd_op.scale"
// CHECK:       (%[[C:[0-9]+]]) = "pd_op.assign_value_" (%{{[0-9]+}}) {dtype:float32,place:Place(cpu),shape:[3],stop_gradient:[true],values:[8.5,-9,17.25]}
// CHECK-NEXT:  "pd_op.add" (%0, %[[C]])
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[3],stop_gradient:[true],value:2} : () -> tensor<3xf32>
    (%2) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.5} : () -> tensor<1xf32>
    (%3) = "pd_op.add" (%1, %2) {stop_gradient:[true]} : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[3],stop_gradient:[true],value:0} : () -> tensor<3xf32>
    (%5) = "pd_op.assign_value_" (%4) {dtype:float32,place:Place(cpu),shape:[3],stop_gradient:[true],values:[1.5,-2,3.25]} : (tensor<3xf32>) -> tensor<3xf32>
    (%6) = "pd_op.multiply" (%3, %5) {stop_gradient:[true]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    (%7) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2} : () -> tensor<1xf32>
    (%8) = "pd_op.scale" (%6, %7) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
    (%9) = "pd_op.add" (%0, %8) {stop_gradient:[true]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    (%10) = "pd_op.fetch" (%9) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}

// -----

// Shapes of static types are int arrays; int arrays concatenate and slice; a uniform
// result is one full.
// CHECK-LABEL: "pd_op.data"
// CHECK:       "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2,3]}
// CHECK:       "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2,3,4,5]}
// CHECK:       "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[3,4]}
// CHECK:       (%[[S:[0-9]+]]) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[2,3],stop_gradient:[true],value:0.3}
// CHECK-NEXT:  "pd_op.add" (%0, %[[S]])
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.shape64" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2xi64>
    (%2) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[4,5]} : () -> tensor<2xi64>
    (%3) = "builtin.combine" (%1, %2) {} : (tensor<2xi64>, tensor<2xi64>) -> vec[tensor<2xi64>,tensor<2xi64>]
    (%4) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0} : () -> tensor<1xi32>
    (%5) = "pd_op.concat" (%3, %4) {stop_gradient:[true]} : (vec[tensor<2xi64>,tensor<2xi64>], tensor<1xi32>) -> tensor<4xi64>
    (%6) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[1]} : () -> tensor<1xi64>
    (%7) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[3]} : () -> tensor<1xi64>
    (%8) = "pd_op.slice" (%5, %6, %7) {axes:[0],decrease_axis:[],infer_flags:[1],stop_gradient:[true]} : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    (%9) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[2,3],stop_gradient:[true],value:0.1} : () -> tensor<2x3xf32>
    (%10) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[2,3],stop_gradient:[true],value:0.2} : () -> tensor<2x3xf32>
    (%11) = "pd_op.add" (%9, %10) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%12) = "pd_op.add" (%0, %11) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%13) = "pd_op.fetch" (%12) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%14) = "pd_op.fetch" (%8) {col:1,name:"mid",persistable:[true],stop_gradient:[true]} : (tensor<2xi64>) -> tensor<2xi64>
}

// -----

// Not folded: an operand that is fed, an integer divide (Paddle divides in float32), a sum
// of two dtypes (promotion is not guessed), the shape of a dynamic type, and a full that an
// in-place op writes.
// CHECK-LABEL: "pd_op.data"
// CHECK:       "pd_op.add" (%0,
// CHECK:       "pd_op.divide"
// CHECK:       "pd_op.add" (%{{[0-9]+}}, %{{[0-9]+}}) {stop_gradient:[true]} : (tensor<2xf32>, tensor<2xf64>)
// CHECK:       "pd_op.shape64"
// CHECK:       "pd_op.relu_"
// CHECK-NEXT:  "pd_op.multiply"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[-1,2],stop_gradient:[true]} : () -> tensor<-1x2xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[2],stop_gradient:[true],value:1} : () -> tensor<2xf32>
    (%2) = "pd_op.add" (%0, %1) {stop_gradient:[true]} : (tensor<-1x2xf32>, tensor<2xf32>) -> tensor<-1x2xf32>
    (%3) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[2],stop_gradient:[true],value:7} : () -> tensor<2xi32>
    (%4) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[2],stop_gradient:[true],value:2} : () -> tensor<2xi32>
    (%5) = "pd_op.divide" (%3, %4) {stop_gradient:[true]} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
    (%6) = "pd_op.full" () {dtype:float64,place:Place(cpu),shape:[2],stop_gradient:[true],value:1} : () -> tensor<2xf64>
    (%7) = "pd_op.add" (%1, %6) {stop_gradient:[true]} : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xf64>
    (%8) = "pd_op.shape64" (%0) {stop_gradient:[true]} : (tensor<-1x2xf32>) -> tensor<2xi64>
    (%9) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[2],stop_gradient:[true],value:-1} : () -> tensor<2xf32>
    (%10) = "pd_op.relu_" (%9) {stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
    (%11) = "pd_op.multiply" (%9, %1) {stop_gradient:[true]} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    (%12) = "pd_op.fetch" (%2) {col:0,name:"a",persistable:[true],stop_gradient:[true]} : (tensor<-1x2xf32>) -> tensor<-1x2xf32>
    (%13) = "pd_op.fetch" (%5) {col:1,name:"b",persistable:[true],stop_gradient:[true]} : (tensor<2xi32>) -> tensor<2xi32>
    (%14) = "pd_op.fetch" (%7) {col:2,name:"c",persistable:[true],stop_gradient:[true]} : (tensor<2xf64>) -> tensor<2xf64>
    (%15) = "pd_op.fetch" (%8) {col:3,name:"d",persistable:[true],stop_gradient:[true]} : (tensor<2xi64>) -> tensor<2xi64>
    (%16) = "pd_op.fetch" (%11) {col:4,name:"e",persistable:[true],stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
}
