// dce removes pure ops whose results are unused, and keeps what has an effect.
// RUN: pirc-opt %s --from-version=4 --emit=paddle -p dce | FileCheck %s
// RUN: pirc-opt %s --from-version=4 --emit=paddle -p dce --pass-stats 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// CHECK:      "pd_op.data"
// The unused relu and the tanh only it used are gone:
// CHECK-NOT:  "pd_op.relu"
// CHECK-NOT:  "pd_op.tanh"
// An unused feed and an in-place op stay: they have effects.
// CHECK:      "pd_op.data" () {dtype:float32,name:"unused"
// CHECK:      "pd_op.relu_"
// CHECK:      "pd_op.fetch"
// STATS:      pass  version  ran  matches  rewrites  skips  ops before  ops after
// STATS-NEXT: dce   1        yes  2        2         0      7           5
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.tanh" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = "pd_op.relu" (%1) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%3) = "pd_op.data" () {dtype:float32,name:"unused",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%4) = "pd_op.abs" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%5) = "pd_op.relu_" (%4) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%6) = "pd_op.fetch" (%4) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
