// A trailing `//` comment, braces and all, never reaches the lexer; `//` inside a string
// attribute is no comment.  Errors keep their line and column.
// RUN: pirc-opt %s --from-version=4 | filecheck %s

{ // the block {{ opens }}
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32> // {a comment} {{with braces}}
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true],struct_name:"http://x//y"} : (tensor<3xf32>) -> tensor<3xf32> // ( ) { } : -> tensor<9xf64>
} // done }
// CHECK: (%0) = "pd_op.data" () {{.*}} : () -> tensor<3xf32>
// CHECK-NEXT: (%1) = "pd_op.relu" (%0) {{.*}}struct_name:"http://x//y"{{.*}} : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: }
