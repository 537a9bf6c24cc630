// --split-input-file processes each part alone and joins the outputs with
// `// -----`; line numbers in errors stay those of the whole file.
// RUN: pirc-opt %s --from-version=4 --split-input-file --emit=paddle | filecheck %s

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
}

// -----
// Each part numbers its values from %0 again.
{
    (%0) = "pd_op.data" () {dtype:int64,name:"y",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xi64>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<3xi64>) -> tensor<3xi64>
}

// CHECK:      {
// CHECK-NEXT:     (%0) = "pd_op.data" () {dtype:float32
// CHECK-NEXT: }
// CHECK-NEXT: // -----
// CHECK-NEXT: {
// CHECK-NEXT:     (%0) = "pd_op.data" () {dtype:int64
// CHECK-NEXT:     (%1) = "pd_op.relu" (%0)
// CHECK-NEXT: }


// Split output is text: JSON output is refused as a usage error.
// RUN: not pirc-opt %s --from-version=4 --split-input-file --emit=json 2>&1 | filecheck %s --check-prefix=NOJSON
// NOJSON: error: --split-input-file writes text
