// type_patches modify_name renames a type kind everywhere: results, block arguments,
// tensor dtypes, vec[...] elements and types held in attributes.  f32 inside c64
// (its own kind in PIR) is not renamed.
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/type-kind | filecheck %s

pir.version 1
{
    (%0) = "test.op" () {t:(Type)vec[tensor<2xf32>,f16]} : () -> tensor<2xf32>
    (%1) = "test.vec" () {} : () -> vec[tensor<3xf32>,f32,c64]
    () = "test.holder" () {} : () ->  ({
        ^%arg_0 : tensor<4xf32>
        () = "test.use" (%arg_0, %0) {} : (tensor<4xf32>, tensor<2xf32>) -> 
    })
}

// CHECK:      (%0) = "test.op" () {t:(Type)vec[tensor<2xf64>,f16]} : () -> tensor<2xf64>
// CHECK-NEXT: (%1) = "test.vec" () {} : () -> vec[tensor<3xf64>,f64,c64]
// CHECK:      ^%arg_0 : tensor<4xf64>
// CHECK-NEXT: () = "test.use" (%arg_0, %0) {} : (tensor<4xf64>, tensor<2xf64>) -> 
