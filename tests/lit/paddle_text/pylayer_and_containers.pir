// pd_op.pylayer prints like pd_op.if with one region; selected rows and tensor
// arrays print with their dialect prefix (Paddle hides a tensor array's dims);
// places print as Place::DebugString does.
// RUN: pirc-opt %s --from-version=4 --emit=paddle | FileCheck %s
// RUN: pirc-opt %s --from-version=4 | FileCheck %s --check-prefix=PIR

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(gpu:1),shape:[4,3],stop_gradient:[true]} : () -> pd_op.selectedrows<4x3xf32>
    (%1) = "pd_op.merge_selected_rows" (%0) {stop_gradient:[true]} : (pd_op.selectedrows<4x3xf32>) -> pd_op.selectedrows<4x3xf32>
    (%2) = "pd_op.get_tensor_from_selected_rows" (%1) {stop_gradient:[true]} : (pd_op.selectedrows<4x3xf32>) -> tensor<4x3xf32>
    (%3) = "pd_op.pylayer" (%2) {backward_function_id:11,stop_gradient:[true]} -> tensor<4x3xf32> {
        (%4) = "pd_op.tanh" (%2) {stop_gradient:[true]} : (tensor<4x3xf32>) -> tensor<4x3xf32>
        () = "cf.yield" (%4) {} : (tensor<4x3xf32>) -> 
    }
    (%5) = "pd_op.create_array" () {dtype:float32,stop_gradient:[true]} : () -> pd_op.tensor_array<f32>
    (%6) = "pd_op.full" () {dtype:int64,place:Place(npu:0),shape:[1],stop_gradient:[true],value:0} : () -> tensor<1xi64>
    (%7) = "pd_op.array_write_" (%5, %3, %6) {} : (pd_op.tensor_array<f32>, tensor<4x3xf32>, tensor<1xi64>) -> pd_op.tensor_array<f32>
}

// CHECK:      place:Place(gpu:1)
// CHECK-SAME: -> pd_op.selectedrows<4x3xf32>
// CHECK:      (%3) = "pd_op.pylayer" (%2) {backward_function_id:11,stop_gradient:[true]} -> tensor<4x3xf32> {
// CHECK-NEXT:     (%4) = "pd_op.tanh" (%2)
// CHECK-NEXT:     () = "cf.yield" (%4) {} : (tensor<4x3xf32>) ->
// CHECK-NEXT: }
// CHECK-NEXT: (%5) = "pd_op.create_array" () {dtype:float32,stop_gradient:[true]} : () -> pd_op.tensor_array<f32>
// CHECK-NEXT: place:Place(npu:0)
// CHECK-NEXT: (%7) = "pd_op.array_write_" (%5, %3, %6) {} : (pd_op.tensor_array<f32>, tensor<4x3xf32>, tensor<1xi64>) -> pd_op.tensor_array<f32>

// In canonical text pylayer's one region is generic.
// PIR:      (%3) = "pd_op.pylayer" (%2) {backward_function_id:(Int32)11,stop_gradient:[true]} : (tensor<4x3xf32>) -> tensor<4x3xf32> ({
// PIR-NEXT:     (%4) = "pd_op.tanh" (%2)
// PIR:      })
