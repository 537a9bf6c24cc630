{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,2],stop_gradient:[true]} : () -> tensor<2x2xf32>
    (%1) = "pd_op.transpose" (%0) {stop_gradient:[true]} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    (%2) = "pd_op.cast" () {dtype:float32,stop_gradient:[true]} : () -> tensor<2x2xf32>
    (%3) = "pd_op.cast" (%2) {stop_gradient:[true]} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),stop_gradient:[true]} : () -> tensor<2x2xf32>
    (%5) = "pd_op.scale" (%4, %4) {stop_gradient:[true]} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    (%6) = "pd_op.add" (%4, %4) {stop_gradient:[true]} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    (%7) = "pd_op.dropout" (%1) {is_test:true,stop_gradient:[true]} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    (%8) = "pd_op.fetch" (%7) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x2xf32>) -> tensor<2x2xf32>
}
