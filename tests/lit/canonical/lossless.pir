// Canonical text keeps what Paddle's printer loses: Float vs Double, Int32 vs
// Int64, IntArray vs an array of Int64, exact values, layout/lod/offset, the
// version and graph tags.  print -> parse -> print is a fixpoint.
// RUN: pirc-opt %s > %t.1.pir
// RUN: pirc-opt %t.1.pir > %t.2.pir
// RUN: cmp %t.1.pir %t.2.pir
// RUN: FileCheck %s < %t.1.pir
// RUN: pirc-opt %s --emit=paddle | FileCheck %s --check-prefix=PADDLE

pir.version 3
pir.graph_tags [("fold-scale", 2, "enabled"), ("dce", 1, "shadow")]
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x\"y\\z",place:Place(undefined:0),shape:(pd_op.IntArray)[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32,layout:NHWC,lod:[[0,1,2]],offset:4>
    (%1) = "pd_op.full" () {dtype:(pd_op.DataType)float64,place:Place(cpu),shape:(pd_op.IntArray)[1],stop_gradient:[true],value:(Double)0.1} : () -> tensor<1xf64>
    (%2) = "pd_op.full" () {dtype:(pd_op.DataType)float32,place:Place(cpu),shape:(pd_op.IntArray)[1],stop_gradient:[true],value:(Float)0.1} : () -> tensor<1xf32>
    (%3) = "test.unknown" (%0, %1) {a:(Int32)7,b:(Int64)7,c:[(Int64)1,(Int64)2],d:(pd_op.IntArray)[1,2],e:(Double)123456789.123,f:(Float)-0.0,g:(Double)1e-300,h:(Index)3,i:(pd_op.DataLayout)NCHW,j:(Type)vec[tensor<2xf32>,f16]} : (tensor<2x3xf32,layout:NHWC,lod:[[0,1,2]],offset:4>, tensor<1xf64>) -> tensor<2x3xf32>
}

// CHECK:      pir.version 3
// CHECK-NEXT: pir.graph_tags [("fold-scale", 2, "enabled"), ("dce", 1, "shadow")]
// CHECK:      name:"x\"y\\z"
// CHECK-SAME: -> tensor<2x3xf32,layout:NHWC,lod:[[0,1,2]],offset:4>
// CHECK:      value:(Double)0.1}
// CHECK:      value:(Float)0.1}
// CHECK:      {a:(Int32)7,b:(Int64)7,c:[(Int64)1,(Int64)2],d:(pd_op.IntArray)[1,2],e:(Double)123456789.123,f:(Float)-0.0,g:(Double)1e-300,h:(Index)3,i:(pd_op.DataLayout)NCHW,j:(Type)vec[tensor<2xf32>,f16]}

// PADDLE:     (%0) = "pd_op.data" () {dtype:float32,name:"x\"y\z",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
// PADDLE:     {a:7,b:7,c:[1,2],d:[1,2],e:1.23457e+08,f:-0,g:1e-300,h:3,i:NCHW,j:vec[tensor<2xf32>,f16]}
