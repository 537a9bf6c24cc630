// delete_attr removes the attribute (nothing, where it is absent).
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/actions | filecheck %s

pir.version 1
{
    () = "test.delete_attr" () {gone:true,kept:"k"} : () -> 
    () = "test.delete_attr" () {} : () -> 
}

// CHECK:      () = "test.delete_attr" () {kept:"k"} : () -> 
// CHECK-NEXT: () = "test.delete_attr" () {} : () -> 
