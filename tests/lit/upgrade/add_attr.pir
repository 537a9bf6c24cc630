// add_attr: the attribute is added with the patch's value only where the op lacks it;
// an op that has it keeps the file's value (as Paddle's reader does).
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/actions | filecheck %s

pir.version 1
{
    () = "test.add_attr" () {} : () -> 
    () = "test.add_attr" () {added:(Int64)7} : () -> 
}

// CHECK:      pir.version 2
// CHECK:      () = "test.add_attr" () {added:(Int64)-1} : () -> 
// CHECK-NEXT: () = "test.add_attr" () {added:(Int64)7} : () -> 
