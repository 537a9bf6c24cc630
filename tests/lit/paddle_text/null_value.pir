// An absent optional operand prints as <<NULL VALUE>> with type <<NULL TYPE>>.
// RUN: pirc-opt %s --from-version=4 --emit=paddle | FileCheck %s
// RUN: pirc-opt %s --from-version=4 | pirc-opt - | FileCheck %s --check-prefix=PIR

{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[-1,4],stop_gradient:[true]} : () -> tensor<-1x4xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.5} : () -> tensor<1xf32>
    (%2, %3) = "pd_op.dropout" (%0, <<NULL VALUE>>, %1) {fix_seed:false,is_test:true,mode:"upscale_in_train",seed:0,stop_gradient:[true,true]} : (tensor<-1x4xf32>, <<NULL TYPE>>, tensor<1xf32>) -> tensor<-1x4xf32>, tensor<-1x4xu8>
}

// CHECK: (%2, %3) = "pd_op.dropout" (%0, <<NULL VALUE>>, %1) {fix_seed:false,is_test:true,mode:"upscale_in_train",seed:0,stop_gradient:[true,true]} : (tensor<-1x4xf32>, <<NULL TYPE>>, tensor<1xf32>) -> tensor<-1x4xf32>, tensor<-1x4xu8>
// PIR:   "pd_op.dropout" (%0, <<NULL VALUE>>, %1) {{.*}} : (tensor<-1x4xf32>, <<NULL TYPE>>, tensor<1xf32>) -> tensor<-1x4xf32>, tensor<-1x4xu8>
