// Each malformed construct is reported at its line and column with what was
// expected; mlir-opt's --verify-diagnostics checks the messages.
// RUN: pirc-opt %s --from-version=4 --split-input-file --verify-diagnostics

{
// expected-error@+1 {{unexpected ': () -> tensor<f32>'; expected ','}}
    (%0) = "pd_op.data" () {dtype:float32 : () -> tensor<f32>
}

// -----

{
// expected-error@+1 {{unknown element type 'q32'}}
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xq32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
// expected-error@+1 {{use of undefined value %7}}
    (%1) = "pd_op.relu" (%7) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
// expected-error@+1 {{value %0 is defined twice}}
    (%0) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
// expected-error@+1 {{2 results but 1 result types}}
    (%1, %2) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
// expected-error@+1 {{pd_op.softmax: attribute axis is str, expects int32}}
    (%1) = "pd_op.softmax" (%0) {axis:"last",stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
// expected-error@+1 {{1 operands but 2 operand types}}
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
}

// -----

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
// expected-error@+1 {{malformed op: expected an op name}}
    (%1) == "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}

// -----

// expected-error@+2 {{unexpected end of input}}
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
