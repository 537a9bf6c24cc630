// modify_output_type sets the result's type; its uses see the new type.
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/actions | filecheck %s

pir.version 1
{
    (%0) = "test.modify_output_type" () {} : () -> tensor<2xf32>
    () = "test.use" (%0) {} : (tensor<2xf32>) -> 
}

// CHECK:      (%0) = "test.modify_output_type" () {} : () -> tensor<2xf64,layout:NHWC>
// CHECK-NEXT: () = "test.use" (%0) {} : (tensor<2xf64,layout:NHWC>) -> 
