module @jit__convert attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf32>) -> (tensor<6xi32> {jax.result_info = "result[0]"}, tensor<6xui8> {jax.result_info = "result[1]"}, tensor<6xf32> {jax.result_info = "result[2]"}, tensor<6xi8> {jax.result_info = "result[3]"}, tensor<6xi32> {jax.result_info = "result[4]"}, tensor<6xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<6xf32>) -> tensor<6xi32>
    %1 = stablehlo.convert %arg0 : (tensor<6xf32>) -> tensor<6xui8>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %3 = stablehlo.compare GT, %arg0, %2, FLOAT : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
    %4 = stablehlo.convert %3 : (tensor<6xi1>) -> tensor<6xf32>
    %5 = stablehlo.convert %arg0 : (tensor<6xf32>) -> tensor<6xi8>
    %6 = stablehlo.bitcast_convert %arg0 : (tensor<6xf32>) -> tensor<6xi32>
    %7 = stablehlo.convert %arg0 : (tensor<6xf32>) -> tensor<6xf16>
    %8 = stablehlo.convert %7 : (tensor<6xf16>) -> tensor<6xf32>
    return %0, %1, %4, %5, %6, %8 : tensor<6xi32>, tensor<6xui8>, tensor<6xf32>, tensor<6xi8>, tensor<6xi32>, tensor<6xf32>
  }
}
