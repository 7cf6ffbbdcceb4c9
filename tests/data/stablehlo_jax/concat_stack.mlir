module @jit__concat_stack attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> (tensor<4x3xf32> {jax.result_info = "result[0]"}, tensor<2x9xf32> {jax.result_info = "result[1]"}, tensor<2x2x3xf32> {jax.result_info = "result[2]"}, tensor<2x6xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %1 = stablehlo.concatenate %arg0, %arg1, %arg0, dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
    %2 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
    %3 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
    %4 = stablehlo.concatenate %2, %3, dim = 0 : (tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<2x2x3xf32>
    %5 = call @atleast_1d(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %6 = call @atleast_1d(%arg1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %7 = stablehlo.concatenate %5, %6, dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
    return %0, %1, %4, %7 : tensor<4x3xf32>, tensor<2x9xf32>, tensor<2x2x3xf32>, tensor<2x6xf32>
  }
  func.func private @atleast_1d(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
    return %arg0 : tensor<2x3xf32>
  }
}
