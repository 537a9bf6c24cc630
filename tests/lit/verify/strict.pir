// Unknown op names parse and round-trip unchanged; --strict rejects them.
// RUN: pirc-opt %s | filecheck %s
// RUN: not pirc-opt %s --strict 2>&1 | filecheck %s --check-prefix=STRICT
// RUN: pirc-opt %s --emit=json | pirc-opt -x json - --emit=pir | filecheck %s

pir.version 4
pir.graph_tags []
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(undefined:0),shape:(pd_op.IntArray)[2],stop_gradient:[true]} : () -> tensor<2xf32>
    (%1) = "my_dialect.frobnicate" (%0) {level:(Int64)3,mode:"fast"} : (tensor<2xf32>) -> tensor<2xf32>
}

// CHECK: (%1) = "my_dialect.frobnicate" (%0) {level:(Int64)3,mode:"fast"} : (tensor<2xf32>) -> tensor<2xf32>
// STRICT: unknown op my_dialect.frobnicate at PIR version 4
