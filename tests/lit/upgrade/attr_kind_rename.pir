// attr_patches modify_name renames an attribute kind everywhere: top level, inside
// arrays at any depth, and in nested regions (Paddle reaches only the top level).
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/attr-kind | filecheck %s

pir.version 1
{
    (%0) = "test.op" () {a:(Float)0.5,b:[[(Float)1.5],[]],c:(Int32)1} : () -> f32
    () = "test.holder" () {} : () ->  ({
        () = "test.inner" () {d:(Float)2.5} : () -> 
    })
}

// CHECK:      (%0) = "test.op" () {a:(Double)0.5,b:[[(Double)1.5],[]],c:(Int32)1} : () -> f32
// CHECK:      () = "test.inner" () {d:(Double)2.5} : () -> 
// CHECK-NOT:  (Float)
