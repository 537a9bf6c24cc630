// A failing part is reported with its line in the whole file; the others still run,
// and the exit status is 1.
// RUN: not pirc-opt %s --from-version=4 --split-input-file 2>&1 | filecheck %s

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
}

// -----

{
    (%0) = "pd_op.relu" (%5) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}

// CHECK: split_errors.pir:12:5: error: use of undefined value %5
