// --verify-diagnostics as in mlir-opt: every form of placing an expected diagnostic.
// RUN: pirc-opt %s --from-version=4 --split-input-file --verify-diagnostics

// The same line.
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.relu" (%7) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32> // expected-error {{use of undefined value %7}}
}

// -----

// @+N and @-N count from the comment's line.
{
// expected-error@+2 {{use of undefined value %7}}
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.relu" (%7) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.relu" (%7) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>

// expected-error@-2 {{use of undefined value %7}}
}

// -----

// @above: the nearest line above that holds no expectation; @below: the nearest below
// (any other line counts, an ordinary comment too).
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.relu" (%7) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
// expected-error@above {{use of undefined value %7}}
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
// expected-error@below {{value %0 is defined twice}}
    (%0) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}

// -----

// -re: {{regex}} inside the text.
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.relu" (%9) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32> // expected-error-re {{use of undefined value %{{[0-9]+}}}}
}
