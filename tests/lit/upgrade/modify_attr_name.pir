// modify_attr_name renames the attribute, value and position kept.
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/actions | filecheck %s

pir.version 1
{
    () = "test.modify_attr_name" () {before:(Int32)3,z:"z"} : () -> 
}

// CHECK: () = "test.modify_attr_name" () {after:(Int32)3,z:"z"} : () -> 
