// Canonical regions: every op with regions uses `({...}, {...})`; block
// arguments are typed; a block-argument line starts a new block.
// RUN: pirc-opt %s | FileCheck %s
// RUN: pirc-opt %s | pirc-opt - | FileCheck %s

pir.version 4
pir.graph_tags []
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)bool,name:"c",place:Place(undefined:0),shape:(pd_op.IntArray)[1],stop_gradient:[true]} : () -> tensor<1xb>
    (%1) = "test.region_op" (%0) {} : (tensor<1xb>) -> tensor<1xb> ({
        ^%arg_0 : tensor<1xb> {stop_gradient:true}
        () = "cf.yield" (%arg_0) {} : (tensor<1xb>) -> 
        ^%arg_1 : tensor<1xb>, %arg_2 : tensor<1xb>
        () = "cf.yield" (%arg_2) {} : (tensor<1xb>) -> 
    }, {
        () = "cf.yield" (%0) {} : (tensor<1xb>) -> 
    })
}

// CHECK:      (%1) = "test.region_op" (%0) {} : (tensor<1xb>) -> tensor<1xb> ({
// CHECK-NEXT:     ^%arg_0 : tensor<1xb> {stop_gradient:true}
// CHECK-NEXT:     () = "cf.yield" (%arg_0)
// CHECK-NEXT:     ^%arg_1 : tensor<1xb>, %arg_2 : tensor<1xb>
// CHECK-NEXT:     () = "cf.yield" (%arg_2)
// CHECK-NEXT: }, {
// CHECK-NEXT:     () = "cf.yield" (%0)
// CHECK-NEXT: })
