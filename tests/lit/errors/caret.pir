// The error names FILE:LINE:COL, shows the line and puts a caret under the column.
// RUN: not pirc-opt %s --from-version=4 2>&1 | filecheck %s --strict-whitespace

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.relu" (%9) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}

// CHECK:      caret.pir:6:5: error: use of undefined value %9
// CHECK-NEXT: {{^}}    (%1) = "pd_op.relu" (%9) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: {{^}}    ^
// CHECK-NOT:  Traceback
