module @jit__shapes attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> (tensor<4x3xf32> {jax.result_info = "result[0]"}, tensor<2x3x2xf32> {jax.result_info = "result[1]"}, tensor<2x2x3xf32> {jax.result_info = "result[2]"}, tensor<1x3x4xf32> {jax.result_info = "result[3]"}, tensor<3x4xf32> {jax.result_info = "result[4]"}, tensor<12xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<3x4xf32>) -> tensor<2x3x2xf32>
    %2 = stablehlo.reshape %arg0 : (tensor<3x4xf32>) -> tensor<2x3x2xf32>
    %3 = stablehlo.transpose %2, dims = [2, 0, 1] : (tensor<2x3x2xf32>) -> tensor<2x2x3xf32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
    %5 = call @_flip(%arg0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %6 = stablehlo.reshape %arg0 : (tensor<3x4xf32>) -> tensor<12xf32>
    return %0, %1, %3, %4, %5, %6 : tensor<4x3xf32>, tensor<2x3x2xf32>, tensor<2x2x3xf32>, tensor<1x3x4xf32>, tensor<3x4xf32>, tensor<12xf32>
  }
  func.func private @_flip(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = stablehlo.reverse %arg0, dims = [1] : tensor<3x4xf32>
    return %0 : tensor<3x4xf32>
  }
}
