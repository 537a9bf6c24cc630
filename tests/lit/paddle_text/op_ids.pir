// `[id:N]` (FLAGS_print_ir) is accepted and dropped: the ids are
// process-global counters, not part of the program.
// RUN: pirc-opt %s --from-version=4 --emit=paddle | FileCheck %s

{
    (%0) = "pd_op.data" [id:1683] () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.relu" [id:1684] (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}

// CHECK:      (%0) = "pd_op.data" () {dtype:float32
// CHECK-NEXT: (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT:  [id:
