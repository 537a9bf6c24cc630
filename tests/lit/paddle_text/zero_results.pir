// An op with no results prints `() = ...` and ends in `-> ` with a trailing space.
// RUN: pirc-opt %s --from-version=4 --emit=paddle | FileCheck %s

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xf32>
    () = "builtin.shadow_output" (%0) {output_name:"out"} : (tensor<2xf32>) -> 
}

// CHECK: () = "builtin.shadow_output" (%0) {output_name:"out"} : (tensor<2xf32>) ->{{ $}}
