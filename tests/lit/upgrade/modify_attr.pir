// modify_attr: a kind change keeps the value (Float 0.02 becomes the Double Paddle 3.3.1
// writes, 0.019999999552965164); array element types change with values kept (Paddle's
// element-type list, and the ArrayAttribute<X> shorthand); `data:` replaces the value;
// an op without the attribute is left alone.
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/actions | filecheck %s

pir.version 1
{
    () = "test.modify_attr" () {mode:"old",scale:[(Float)1.5,(Float)0.1],sizes:[(Int32)2,(Int32)3,(Int32)4],slope:(Float)0.02} : () -> 
    () = "test.modify_attr" () {} : () -> 
}

// CHECK: () = "test.modify_attr" () {mode:"new",scale:[(Double)1.5,(Double)0.10000000149011612],sizes:[(Int64)2,(Int64)3,(Int64)4],slope:(Double)0.019999999552965164} : () -> 
// CHECK-NEXT: () = "test.modify_attr" () {} : () -> 
