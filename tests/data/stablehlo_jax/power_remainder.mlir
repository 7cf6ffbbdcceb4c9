module @jit__power_remainder attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>, %arg1: tensor<5xf32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}, tensor<5xf32> {jax.result_info = "result[2]"}, tensor<5xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.abs %arg0 : tensor<5xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %2 = stablehlo.add %0, %1 : tensor<5xf32>
    %3 = stablehlo.power %2, %arg1 : tensor<5xf32>
    %cst_0 = stablehlo.constant dense<0.69999999999999996> : tensor<f64>
    %4 = call @remainder(%arg0, %cst_0) : (tensor<5xf32>, tensor<f64>) -> tensor<5xf32>
    %cst_1 = stablehlo.constant dense<0.69999999999999996> : tensor<f64>
    %5 = call @fmod(%arg0, %cst_1) : (tensor<5xf32>, tensor<f64>) -> tensor<5xf32>
    %6 = chlo.square %arg1 : tensor<5xf32> -> tensor<5xf32>
    return %3, %4, %5, %6 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
  }
  func.func private @remainder(%arg0: tensor<5xf32>, %arg1: tensor<f64>) -> tensor<5xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %2 = stablehlo.remainder %arg0, %1 : tensor<5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %4 = stablehlo.compare NE, %2, %3, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %6 = stablehlo.compare LT, %2, %5, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.compare LT, %0, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<i1>) -> tensor<5xi1>
    %9 = stablehlo.compare NE, %6, %8, UNSIGNED : (tensor<5xi1>, tensor<5xi1>) -> tensor<5xi1>
    %10 = stablehlo.and %9, %4 : tensor<5xi1>
    %11 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %12 = stablehlo.add %2, %11 : tensor<5xf32>
    %13 = stablehlo.select %10, %12, %2 : tensor<5xi1>, tensor<5xf32>
    return %13 : tensor<5xf32>
  }
  func.func private @fmod(%arg0: tensor<5xf32>, %arg1: tensor<f64>) -> tensor<5xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %2 = stablehlo.remainder %arg0, %1 : tensor<5xf32>
    return %2 : tensor<5xf32>
  }
}
