{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"y",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%2) = "pd_op.sigmoid" (%1) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%3) = "pd_op.multiply" (%0, %2) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"a",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%5) = "pd_op.sigmoid" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%6) = "pd_op.multiply" (%0, %5) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%7) = "pd_op.fetch" (%6) {col:1,name:"b",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%8) = "pd_op.fetch" (%5) {col:2,name:"c",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%9) = "pd_op.sigmoid" (%1) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%10) = "pd_op.relu_" (%1) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%11) = "pd_op.multiply" (%9, %1) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%12) = "pd_op.fetch" (%11) {col:3,name:"d",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%13) = "pd_op.fetch" (%10) {col:4,name:"e",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
