// pirc's layer over Paddle's patch 2 (patches/pirc/2.yaml): kthvalue.k becomes Int64 at
// version 2, where the definitions changed (Paddle's own patch moves it only at 3), and the
// optional bias operand Paddle 3.1 inserted into instance_norm_grad is a <<NULL VALUE>>.
// The upgraded program verifies at each target (pirc-opt verifies by default).
// RUN: pirc-opt %s --upgrade --target-version=2 | filecheck %s
// RUN: pirc-opt %s --upgrade | filecheck %s --check-prefix=V4
// Downgrading undoes both: the null operand goes, k is Int32 again.
// RUN: pirc-opt %s --upgrade | pirc-opt - --target-version=1 | filecheck %s --check-prefix=BACK

pir.version 1
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"in0",place:Place(cpu),shape:(pd_op.IntArray)[1]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"in1",place:Place(cpu),shape:(pd_op.IntArray)[1]} : () -> tensor<2x3xf32>
    (%2) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"in2",place:Place(cpu),shape:(pd_op.IntArray)[1]} : () -> tensor<2x3xf32>
    (%3) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"in3",place:Place(cpu),shape:(pd_op.IntArray)[1]} : () -> tensor<2x3xf32>
    (%4) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"in4",place:Place(cpu),shape:(pd_op.IntArray)[1]} : () -> tensor<2x3xf32>
    (%5, %6, %7) = "pd_op.instance_norm_grad" (%0, %1, %2, %3, %4) {epsilon:(Float)1e-05} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
    (%8, %9) = "pd_op.kthvalue" (%0) {axis:(Int32)-1,k:(Int32)1,keepdim:false} : (tensor<2x3xf32>) -> tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK: pir.version 2
// CHECK: "pd_op.instance_norm_grad" (%0, %1, <<NULL VALUE>>, %2, %3, %4) {epsilon:(Float)1e-05} : (tensor<2x3xf32>, tensor<2x3xf32>, <<NULL TYPE>>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK: "pd_op.kthvalue" (%0) {axis:(Int32)-1,k:(Int64)1,keepdim:false}
// V4: pir.version 4
// V4: "pd_op.instance_norm_grad" (%0, %1, <<NULL VALUE>>, %2, %3, %4)
// V4: k:(Int64)1
// BACK: pir.version 1
// BACK: "pd_op.instance_norm_grad" (%0, %1, %2, %3, %4) {epsilon:(Float)1e-05}
// BACK: k:(Int32)1
