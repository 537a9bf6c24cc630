// A downgrade that an older reader would misread is refused, listing every op and
// action that cannot be undone; nothing is written.
// RUN: rm -f %t.pir
// RUN: not pirc-opt %s --target-version=2 -o %t.pir 2>&1 | filecheck %s
// RUN: %python -c "import os, sys; sys.exit(1 if os.path.exists(r'%t.pir') else 0)"

pir.version 4
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(undefined:0),shape:(pd_op.IntArray)[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.repeat_interleave" (%0) {axis:(Int32)1,output_size:(Int64)6,repeats:(Int32)2,stop_gradient:[false]} : (tensor<2x3xf32>) -> tensor<2x6xf32>
    (%2) = "pd_op.repeat_interleave" (%0) {axis:(Int32)1,output_size:(Int64)-1,repeats:(Int32)2,stop_gradient:[false]} : (tensor<2x3xf32>) -> tensor<2x6xf32>
    (%3) = "pd_op.repeat_interleave" (%0) {axis:(Int32)0,output_size:(Int64)4,repeats:(Int32)2,stop_gradient:[false]} : (tensor<2x3xf32>) -> tensor<4x3xf32>
}

// CHECK:      refuse_downgrade.pir: error: inverse of patch 3.yaml (version 3 -> 2) cannot be applied: 2 ops block it
// CHECK-NEXT:   ops[1] pd_op.repeat_interleave (line 10): undo add_attr output_size ({{.*}}3.yaml:9): output_size is (Int64)6, not the default (Int64)-1 the patch adds; the older version cannot express it
// CHECK-NEXT:   ops[3] pd_op.repeat_interleave (line 12): undo add_attr output_size ({{.*}}3.yaml:9): output_size is (Int64)4, not the default (Int64)-1 the patch adds; the older version cannot express it
