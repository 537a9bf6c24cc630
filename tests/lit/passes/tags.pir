// The pass manager tags each pass that changed the program with the program's fingerprints
// before and after it, chained, and stamps a manifest; both read back, and a second run
// appends to the tags it finds.
// RUN: pirc-opt %s --from-version=4 -p default -o %t.pir
// RUN: FileCheck %s < %t.pir
// CHECK: pir.version 4
// CHECK-NEXT: pir.graph_tags [("cse", 1, "enabled", "pfp1:[[START:[0-9a-f]+]]", "pfp1:[[MID:[0-9a-f]+]]"), ("dce", 1, "enabled", "pfp1:[[MID]]", "pfp1:[[END:[0-9a-f]+]]")]
// CHECK-NEXT: pir.manifest {pirc_version: "{{[0-9.]+}}", pir_version: 4, op_versions: "ovs1:{{[0-9a-f]+}}", pipeline: "{{.*}}cse,dce", pipeline_version: {{[0-9]+}}}
// RUN: pirc-opt %t.pir --emit=json -o %t.json
// RUN: pirc-opt %t.json -p cse --emit=pir | FileCheck %s --check-prefix=AGAIN
// The second cse finds nothing to merge: no new tag, the manifest names the new pipeline.
// AGAIN: pir.graph_tags [("cse", 1, "enabled", "pfp1:{{[0-9a-f]+}}", "pfp1:[[MID2:[0-9a-f]+]]"), ("dce", 1, "enabled", "pfp1:[[MID2]]", "pfp1:{{[0-9a-f]+}}")]
// AGAIN-NEXT: pir.manifest {{{.*}}pipeline: "cse"}
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = "pd_op.tanh" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%3) = "pd_op.tanh" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%4) = "pd_op.add" (%2, %3) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%5) = "pd_op.fetch" (%4) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
