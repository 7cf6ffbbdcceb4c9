module @jit__norms attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x5xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<2xf32> {jax.result_info = "result[1]"}, tensor<f32> {jax.result_info = "result[2]"}, tensor<5x5xf32> {jax.result_info = "result[3]"}, tensor<f32> {jax.result_info = "result[4]"}) {
    %0 = call @norm(%arg0) : (tensor<2x5xf32>) -> tensor<f32>
    %1 = call @norm_0(%arg0) : (tensor<2x5xf32>) -> tensor<2xf32>
    %2 = stablehlo.slice %arg0 [0:1, 0:5] : (tensor<2x5xf32>) -> tensor<1x5xf32>
    %3 = stablehlo.reshape %2 : (tensor<1x5xf32>) -> tensor<5xf32>
    %4 = stablehlo.slice %arg0 [1:2, 0:5] : (tensor<2x5xf32>) -> tensor<1x5xf32>
    %5 = stablehlo.reshape %4 : (tensor<1x5xf32>) -> tensor<5xf32>
    %6 = stablehlo.dot_general %3, %5, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5xf32>, tensor<5xf32>) -> tensor<f32>
    %7 = stablehlo.slice %arg0 [0:1, 0:5] : (tensor<2x5xf32>) -> tensor<1x5xf32>
    %8 = stablehlo.reshape %7 : (tensor<1x5xf32>) -> tensor<5xf32>
    %9 = stablehlo.slice %arg0 [1:2, 0:5] : (tensor<2x5xf32>) -> tensor<1x5xf32>
    %10 = stablehlo.reshape %9 : (tensor<1x5xf32>) -> tensor<5xf32>
    %11 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %12 = stablehlo.broadcast_in_dim %10, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<1x5xf32>) -> tensor<5x5xf32>
    %15 = stablehlo.multiply %13, %14 : tensor<5x5xf32>
    %16 = stablehlo.reshape %arg0 : (tensor<2x5xf32>) -> tensor<10xf32>
    %17 = stablehlo.reshape %arg0 : (tensor<2x5xf32>) -> tensor<10xf32>
    %18 = stablehlo.dot_general %16, %17, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<10xf32>, tensor<10xf32>) -> tensor<f32>
    return %0, %1, %6, %15, %18 : tensor<f32>, tensor<2xf32>, tensor<f32>, tensor<5x5xf32>, tensor<f32>
  }
  func.func private @norm(%arg0: tensor<2x5xf32>) -> tensor<f32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<2x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x5xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.sqrt %1 : tensor<f32>
    return %2 : tensor<f32>
  }
  func.func private @norm_0(%arg0: tensor<2x5xf32>) -> tensor<2xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<2x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x5xf32>, tensor<f32>) -> tensor<2xf32>
    %2 = stablehlo.sqrt %1 : tensor<2xf32>
    return %2 : tensor<2xf32>
  }
}
