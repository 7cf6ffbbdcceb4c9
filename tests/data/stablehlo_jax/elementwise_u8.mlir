module @jit__elementwise_uint8 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xui8>, %arg1: tensor<8xui8>) -> (tensor<8xui8> {jax.result_info = "result[0]"}, tensor<8xui8> {jax.result_info = "result[1]"}, tensor<8xui8> {jax.result_info = "result[2]"}, tensor<8xui8> {jax.result_info = "result[3]"}, tensor<8xui8> {jax.result_info = "result[4]"}, tensor<8xui8> {jax.result_info = "result[5]"}, tensor<8xui8> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<8xui8>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<8xui8>
    %c = stablehlo.constant dense<2> : tensor<ui8>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui8>) -> tensor<8xui8>
    %3 = stablehlo.shift_right_logical %arg0, %2 : tensor<8xui8>
    %c_0 = stablehlo.constant dense<1> : tensor<ui8>
    %4 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui8>) -> tensor<8xui8>
    %5 = stablehlo.shift_left %arg0, %4 : tensor<8xui8>
    %c_1 = stablehlo.constant dense<1> : tensor<ui8>
    %6 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui8>) -> tensor<8xui8>
    %7 = stablehlo.or %arg1, %6 : tensor<8xui8>
    %8 = call @floor_divide(%arg0, %7) : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xui8>
    %9 = stablehlo.maximum %arg0, %arg1 : tensor<8xui8>
    %10 = stablehlo.xor %arg0, %arg1 : tensor<8xui8>
    return %0, %1, %3, %5, %8, %9, %10 : tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>
  }
  func.func private @floor_divide(%arg0: tensor<8xui8>, %arg1: tensor<8xui8>) -> tensor<8xui8> {
    %0 = stablehlo.divide %arg0, %arg1 : tensor<8xui8>
    return %0 : tensor<8xui8>
  }
}
