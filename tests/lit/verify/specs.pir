// The verifier checks a program against the op specs of its own PIR version.
// RUN: pirc-opt %s --split-input-file --verify-diagnostics

// At version 1 leaky_relu's slope is a Float; a Double is an error.
pir.version 1
pir.graph_tags []
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(undefined:0),shape:(pd_op.IntArray)[2],stop_gradient:[true]} : () -> tensor<2xf32>
// expected-error@+1 {{pd_op.leaky_relu: attribute negative_slope is double, expects float}}
    (%1) = "pd_op.leaky_relu" (%0) {negative_slope:(Double)0.02,stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
}

// -----

pir.version 4
pir.graph_tags []
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(undefined:0),shape:(pd_op.IntArray)[2,2],stop_gradient:[true]} : () -> tensor<2x2xf32>
// expected-error@+1 {{pd_op.matmul: expects 2 operands (x, y), got 1}}
    (%1) = "pd_op.matmul" (%0) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<2x2xf32>) -> tensor<2x2xf32>
}

// -----

pir.version 4
pir.graph_tags []
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(undefined:0),shape:(pd_op.IntArray)[2],stop_gradient:[true]} : () -> tensor<2xf32>
// expected-error@+1 {{pd_op.softmax: missing attribute axis}}
    (%1) = "pd_op.softmax" (%0) {stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
}
