// A program newer than pirc is refused before anything is written, naming both versions
// and the first op the newest version pirc knows does not know.
// RUN: not pirc-opt %s --upgrade 2>&1 | filecheck %s
// RUN: not pirc-opt %s --target-version=2 2>&1 | filecheck %s

pir.version 7
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(undefined:0),shape:(pd_op.IntArray)[2],stop_gradient:[true]} : () -> tensor<2xf32>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[false]} : (tensor<2xf32>) -> tensor<2xf32>
    (%2) = "pd_op.relu_from_the_future" (%1) {stop_gradient:[false]} : (tensor<2xf32>) -> tensor<2xf32>
}

// CHECK: refuse_newer.pir: error: program is PIR version 7, newer than this pirc, which reads versions up to 4; the first op version 4 does not know: ops[2] pd_op.relu_from_the_future (line 10): not an op of any version pirc knows; use a pirc that knows version 7
