// cse merges identical pure ops (the second full and the second scale here); ops that
// differ in an attribute stay apart, and random ops are never merged.
// RUN: pirc-opt %s --from-version=4 --emit=paddle -p cse --split-input-file | FileCheck %s

// CHECK:      (%0) = "pd_op.data"
// CHECK-NEXT: (%1) = "pd_op.full"
// CHECK-NEXT: (%2) = "pd_op.scale" (%0, %1) {bias:0,
// CHECK-NEXT: (%3) = "pd_op.scale" (%0, %1) {bias:1,
// CHECK-NEXT: (%4) = "pd_op.add" (%2, %2)
// CHECK-NEXT: (%5) = "pd_op.add" (%4, %3)
// CHECK-NEXT: (%6) = "pd_op.fetch" (%5)
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
    (%3) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2} : () -> tensor<1xf32>
    (%5) = "pd_op.scale" (%0, %4) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
    (%6) = "pd_op.add" (%2, %3) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%7) = "pd_op.add" (%6, %5) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%8) = "pd_op.fetch" (%7) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}

// -----

// CHECK:      "pd_op.full_int_array"
// CHECK:      (%[[A:[0-9]+]]) = "pd_op.uniform"
// CHECK-NEXT: (%[[B:[0-9]+]]) = "pd_op.uniform"
// CHECK-NEXT: "pd_op.add" (%[[A]], %[[B]])
{
    (%0) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[32,32]} : () -> tensor<2xi64>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:-1} : () -> tensor<1xf32>
    (%2) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%3) = "pd_op.uniform" (%0, %1, %2) {dtype:float32,place:Place(undefined:0),seed:0,stop_gradient:[true]} : (tensor<2xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<32x32xf32>
    (%4) = "pd_op.uniform" (%0, %1, %2) {dtype:float32,place:Place(undefined:0),seed:0,stop_gradient:[true]} : (tensor<2xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<32x32xf32>
    (%5) = "pd_op.add" (%3, %4) {stop_gradient:[true]} : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
    (%6) = "pd_op.fetch" (%5) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<32x32xf32>) -> tensor<32x32xf32>
}

// -----

// In regions: an op may stand for a later one in its block and the blocks its region
// holds, never in a sibling block or after the op holding the region.  The tanh in the
// then-branch and after the if merge with the one before it; each branch keeps its own
// exp, and so does the code after the if.

// CHECK:      (%[[X:[0-9]+]]) = "pd_op.data"
// CHECK-NEXT: (%[[T:[0-9]+]]) = "pd_op.tanh" (%[[X]])
// CHECK:      (%[[IF:[0-9]+]]) = "pd_op.if"
// CHECK-NEXT:   (%[[E1:[0-9]+]]) = "pd_op.exp" (%[[X]])
// CHECK-NEXT:   "pd_op.add" (%[[T]], %[[E1]])
// CHECK-NEXT:   "cf.yield"
// CHECK-NEXT: } else {
// CHECK-NEXT:   (%[[E2:[0-9]+]]) = "pd_op.exp" (%[[X]])
// CHECK-NEXT:   "pd_op.add" (%[[E2]], %[[E2]])
// CHECK-NEXT:   "cf.yield"
// CHECK-NEXT: }
// CHECK-NEXT: (%[[E3:[0-9]+]]) = "pd_op.exp" (%[[X]])
// CHECK-NEXT: "pd_op.add" (%[[IF]], %[[T]])
// CHECK-NEXT: "pd_op.add" (%[[E3]], %[[E3]])
{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.tanh" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[]} : () -> tensor<0xi64>
    (%3) = "pd_op.sum" (%0, %2) {dtype:float32,keepdim:false,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<0xi64>) -> tensor<f32>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[],stop_gradient:[true],value:0} : () -> tensor<f32>
    (%5) = "pd_op.greater_than" (%3, %4) {stop_gradient:[true]} : (tensor<f32>, tensor<f32>) -> tensor<b>
    (%6) = "pd_op.if" (%5) {stop_gradient:[true]} -> tensor<2x3xf32> {
        (%7) = "pd_op.tanh" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
        (%8) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
        (%9) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
        (%10) = "pd_op.add" (%7, %9) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
        () = "cf.yield" (%10) {} : (tensor<2x3xf32>) -> 
    } else {
        (%11) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
        (%12) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
        (%13) = "pd_op.add" (%11, %12) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
        () = "cf.yield" (%13) {} : (tensor<2x3xf32>) -> 
    }
    (%14) = "pd_op.tanh" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%15) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%16) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%17) = "pd_op.add" (%6, %14) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%18) = "pd_op.add" (%15, %16) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%19) = "pd_op.add" (%17, %18) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%20) = "pd_op.fetch" (%19) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
