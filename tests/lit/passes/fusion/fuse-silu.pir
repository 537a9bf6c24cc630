// fuse-silu: x * sigmoid(x), either operand order, is silu(x) at every PIR version (1-4:
// multiply and sigmoid have one semantic version, docs/FUSION.md's matrix).
// RUN: pirc-opt %s --from-version=1 -p fuse-silu --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=2 -p fuse-silu --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=3 -p fuse-silu --emit=paddle --split-input-file | FileCheck %s
// RUN: pirc-opt %s --from-version=4 -p fuse-silu --emit=paddle --split-input-file | FileCheck %s

// Near misses: sigmoid of another value; a sigmoid also fetched (swallowing it would lose
// an output); y written in place between the sigmoid and the multiply (the alias model: a
// silu at the multiply would read the new y).  Nothing fuses, and --explain names each
// failed check with its line (x is the rule's variable).
// RUN: pirc-opt %S/Inputs/silu_near_misses.pir --from-version=4 -p fuse-silu --explain=fuse-silu --emit=paddle 2>&1 | FileCheck %s --check-prefix=NEAR
// NEAR: fuse-silu: 0 rewrites, 3 near misses
// NEAR-NEXT: rule silu: 0 rewrites, 3 near misses
// NEAR-NEXT: pd_op.multiply at {{.*}}silu_near_misses.pir:5:5: structure: operand 0 of pd_op.sigmoid is not x
// NEAR-NEXT: pd_op.multiply at {{.*}}silu_near_misses.pir:8:5: one use: the pd_op.sigmoid result is also used by pd_op.fetch
// NEAR-NEXT: pd_op.multiply at {{.*}}silu_near_misses.pir:13:5: aliasing: x is written between pd_op.sigmoid and pd_op.multiply
// NEAR-NOT: "pd_op.silu"

// CHECK-LABEL: "pd_op.data"
// CHECK-NEXT:  (%[[S:[0-9]+]]) = "pd_op.silu" (%0)
// CHECK-NEXT:  "pd_op.fetch" (%[[S]])
// CHECK-NOT:   "pd_op.sigmoid"
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.sigmoid" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = "pd_op.multiply" (%0, %1) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%3) = "pd_op.fetch" (%2) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}

// -----

// The other operand order.
// CHECK-LABEL: "pd_op.data"
// CHECK-NEXT:  (%[[S:[0-9]+]]) = "pd_op.silu" (%0)
// CHECK-NEXT:  "pd_op.fetch" (%[[S]])
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.sigmoid" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = "pd_op.multiply" (%1, %0) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%3) = "pd_op.fetch" (%2) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}

