module @jit__batched_matmul attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<2x4x3xf32>) -> (tensor<2x3x3xf32> {jax.result_info = "result[0]"}, tensor<2xf32> {jax.result_info = "result[1]"}, tensor<2x2xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
    %1 = stablehlo.dot_general %arg0, %arg0, batching_dims = [0] x [0], contracting_dims = [1, 2] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2xf32>
    %2 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1, 2] x [2, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x2xf32>
    return %0, %1, %2 : tensor<2x3x3xf32>, tensor<2xf32>, tensor<2x2xf32>
  }
}
