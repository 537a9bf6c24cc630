// mlir-opt's habits: no input file reads stdin, and --pass-pipeline='builtin.module(...)'
// is the pipeline -p names (tests/unit/test_frictions.py has the error cases).
// RUN: pirc-opt --from-version=4 --emit=paddle < %s | FileCheck %s
// RUN: pirc-opt %s --from-version=4 --pass-pipeline='builtin.module(cse,dce)' --emit=paddle | FileCheck %s --check-prefix=PIPE
// RUN: pirc-opt %s --from-version=4 -p cse,dce --emit=paddle | FileCheck %s --check-prefix=PIPE
// RUN: not pirc-opt %s --from-version=4 --pass-pipeline='func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// CHECK-COUNT-2: "pd_op.tanh"
// PIPE-COUNT-1: "pd_op.tanh"
// PIPE-NOT: "pd_op.tanh"
// ANCHOR: error: --pass-pipeline 'func.func(cse)': at column 1: pirc's passes run on the whole program, anchored on `builtin.module` only, not `func.func`

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.tanh" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%2) = "pd_op.tanh" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%3) = "pd_op.add" (%1, %2) {stop_gradient:[true]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}
