// --verify-diagnostics reports, at their own line and column, a diagnostic nobody expected
// and an expectation nothing met, with mlir-opt's wording; exit status 1.
// RUN: not pirc-opt %s --from-version=4 --split-input-file --verify-diagnostics 2>&1 | filecheck %s

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.relu" (%7) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}
// CHECK: {{^[^ ]*}}failures.pir:7:5: error: unexpected error: use of undefined value %7

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32> // expected-error {{no such error}}
}
// CHECK: {{^[^ ]*}}failures.pir:14:126: error: expected error "no such error" was not produced

// -----

// The right text on the right line, but of another kind.
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.relu" (%7) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32> // expected-warning {{undefined value}}
}
// CHECK: {{^[^ ]*}}failures.pir:23:5: error: 'error' diagnostic emitted when expecting a 'warning'

// -----

// An error on the wrong line: both are reported.
{
// expected-error@+1 {{use of undefined value %7}}
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.relu" (%7) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}
// CHECK: {{^[^ ]*}}failures.pir:33:5: error: unexpected error: use of undefined value %7
// CHECK: {{^[^ ]*}}failures.pir:31:4: error: expected error "use of undefined value %7" was not produced
