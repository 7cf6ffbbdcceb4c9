module @jit__slicing attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32>) -> (tensor<2x3xf32> {jax.result_info = "result[0]"}, tensor<4x6xf32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}, tensor<6xf32> {jax.result_info = "result[3]"}, tensor<2x3xf32> {jax.result_info = "result[4]"}, tensor<2x2xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.slice %arg0 [1:3, 0:6:2] : (tensor<4x6xf32>) -> tensor<2x3xf32>
    %1 = stablehlo.reverse %arg0, dims = [0] : tensor<4x6xf32>
    %2 = stablehlo.slice %arg0 [0:4, 1:2] : (tensor<4x6xf32>) -> tensor<4x1xf32>
    %3 = stablehlo.reshape %2 : (tensor<4x1xf32>) -> tensor<4xf32>
    %4 = stablehlo.slice %arg0 [3:4, 0:6] : (tensor<4x6xf32>) -> tensor<1x6xf32>
    %5 = stablehlo.reshape %4 : (tensor<1x6xf32>) -> tensor<6xf32>
    %6 = stablehlo.slice %arg0 [0:4:2, 1:6:2] : (tensor<4x6xf32>) -> tensor<2x3xf32>
    %7 = stablehlo.slice %arg0 [0:3:2, 1:5:2] : (tensor<4x6xf32>) -> tensor<2x2xf32>
    return %0, %1, %3, %5, %6, %7 : tensor<2x3xf32>, tensor<4x6xf32>, tensor<4xf32>, tensor<6xf32>, tensor<2x3xf32>, tensor<2x2xf32>
  }
}
