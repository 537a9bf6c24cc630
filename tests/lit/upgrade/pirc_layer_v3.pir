// pirc's layer over Paddle's patch 4 (patches/pirc/4.yaml): 3.2's rms_norm is 3.3's
// fused_rms_norm_quant (Paddle gave the name rms_norm to a new op), and flash_attn_v3_varlen's
// max_seqlen_q / max_seqlen_k, mutable attributes in 3.3, become operands made by
// pd_op.full, as Paddle's builder makes them.  The result verifies at version 4.
// RUN: pirc-opt %s --upgrade | filecheck %s
// A version-4 program's rms_norm is the new op: no step runs on it.
// RUN: pirc-opt %S/Inputs/rms_norm_v4.pir --upgrade | filecheck %s --check-prefix=NEW
// Downgrading restores the old names and attributes.
// RUN: pirc-opt %s --upgrade | pirc-opt - --target-version=3 | filecheck %s --check-prefix=BACK

pir.version 3
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"in0",place:Place(cpu),shape:(pd_op.IntArray)[1]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"in1",place:Place(cpu),shape:(pd_op.IntArray)[1]} : () -> tensor<2x3xf32>
    (%2, %3, %4) = "pd_op.rms_norm" (%0, <<NULL VALUE>>, <<NULL VALUE>>, %1, <<NULL VALUE>>) {begin_norm_axis:(Int32)1,epsilon:(Float)1e-06,quant_max_bound:(Float)0.0,quant_min_bound:(Float)0.0,quant_round_type:(Int32)0,quant_scale:(Float)-1.0} : (tensor<2x3xf32>, <<NULL TYPE>>, <<NULL TYPE>>, tensor<2x3xf32>, <<NULL TYPE>>) -> tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
    (%5, %6) = "pd_op.flash_attn_v3_varlen" (%0, %0, %0, %1, %1, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>) {causal:true,manual_set_pack_gqa:false,max_seqlen_k:(Int32)128,max_seqlen_q:(Int32)64,num_splits:(Int32)1,pack_gqa:false,sm_margin:(Int32)0,softcap:(Float)0.0,softmax_scale:(Float)0.125,window_size_left:(Int32)-1,window_size_right:(Int32)-1} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, <<NULL TYPE>>, <<NULL TYPE>>, <<NULL TYPE>>, <<NULL TYPE>>, <<NULL TYPE>>, <<NULL TYPE>>) -> tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK: pir.version 4
// CHECK: (%2, %3, %4) = "pd_op.fused_rms_norm_quant" (%0, <<NULL VALUE>>, <<NULL VALUE>>, %1, <<NULL VALUE>>) {begin_norm_axis:(Int32)1,epsilon:(Float)1e-06,
// CHECK-NEXT: (%5) = "pd_op.full" () {dtype:(pd_op.DataType)int64,place:Place(cpu),shape:(pd_op.IntArray)[1],stop_gradient:[true],value:(Double)64.0} : () -> tensor<1xi64>
// CHECK-NEXT: (%6) = "pd_op.full" () {dtype:(pd_op.DataType)int64,place:Place(cpu),shape:(pd_op.IntArray)[1],stop_gradient:[true],value:(Double)128.0} : () -> tensor<1xi64>
// CHECK-NEXT: (%7, %8) = "pd_op.flash_attn_v3_varlen" (%0, %0, %0, %1, %1, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>, %5, %6) {causal:true,manual_set_pack_gqa:false,num_splits:(Int32)1,pack_gqa:false,sm_margin:(Int32)0,softcap:(Float)0.0,softmax_scale:(Float)0.125,window_size_left:(Int32)-1,window_size_right:(Int32)-1}
// NEW: pir.version 4
// NEW: "pd_op.rms_norm" (%0, %1) {epsilon:(Double)1e-06,normalized_shape:[(Int64)3]}
// BACK: pir.version 3
// BACK: "pd_op.rms_norm" (%0, <<NULL VALUE>>, <<NULL VALUE>>, %1, <<NULL VALUE>>)
// BACK-NOT: pd_op.full
// BACK: "pd_op.flash_attn_v3_varlen" ({{.*}}) {causal:true,manual_set_pack_gqa:false,max_seqlen_k:(Int32)128,max_seqlen_q:(Int32)64,
