module @jit__low_precision attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> (tensor<3x4xf16> {jax.result_info = "result[0]"}, tensor<3x4xbf16> {jax.result_info = "result[1]"}, tensor<3x4xf32> {jax.result_info = "result[2]"}, tensor<4xf16> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<3x4xf32>) -> tensor<3x4xf16>
    %1 = stablehlo.convert %arg0 : (tensor<3x4xf32>) -> tensor<3x4xbf16>
    %2 = stablehlo.multiply %0, %0 : tensor<3x4xf16>
    %3 = stablehlo.add %2, %0 : tensor<3x4xf16>
    %4 = stablehlo.exponential %1 : tensor<3x4xbf16>
    %5 = stablehlo.subtract %4, %1 : tensor<3x4xbf16>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<bf16>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<3x4xbf16>
    %7 = stablehlo.multiply %1, %6 : tensor<3x4xbf16>
    %8 = stablehlo.convert %7 : (tensor<3x4xbf16>) -> tensor<3x4xf32>
    %9 = stablehlo.convert %0 : (tensor<3x4xf16>) -> tensor<3x4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<4xf32>
    %11 = stablehlo.convert %10 : (tensor<4xf32>) -> tensor<4xf16>
    return %3, %5, %8, %11 : tensor<3x4xf16>, tensor<3x4xbf16>, tensor<3x4xf32>, tensor<4xf16>
  }
}
