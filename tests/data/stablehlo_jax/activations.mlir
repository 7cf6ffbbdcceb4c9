module @jit__gelu_silu attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9xf32>) -> (tensor<9xf32> {jax.result_info = "result[0]"}, tensor<9xf32> {jax.result_info = "result[1]"}, tensor<9xf32> {jax.result_info = "result[2]"}, tensor<9xf32> {jax.result_info = "result[3]"}, tensor<9xf32> {jax.result_info = "result[4]"}, tensor<9xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<9xf32>
    %1 = stablehlo.multiply %0, %arg0 : tensor<9xf32>
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %3 = stablehlo.multiply %2, %1 : tensor<9xf32>
    %4 = stablehlo.add %arg0, %3 : tensor<9xf32>
    %cst_0 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %6 = stablehlo.multiply %5, %4 : tensor<9xf32>
    %7 = stablehlo.tanh %6 : tensor<9xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %9 = stablehlo.add %8, %7 : tensor<9xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %11 = stablehlo.multiply %10, %9 : tensor<9xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<9xf32>
    %13 = call @silu(%arg0) : (tensor<9xf32>) -> tensor<9xf32>
    %14 = call @softplus(%arg0) : (tensor<9xf32>) -> tensor<9xf32>
    %15 = call @elu(%arg0) : (tensor<9xf32>) -> tensor<9xf32>
    %16 = call @leaky_relu(%arg0) : (tensor<9xf32>) -> tensor<9xf32>
    %cst_3 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %18 = stablehlo.multiply %arg0, %17 : tensor<9xf32>
    %19 = call @relu6(%18) : (tensor<9xf32>) -> tensor<9xf32>
    return %12, %13, %14, %15, %16, %19 : tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>
  }
  func.func private @silu(%arg0: tensor<9xf32>) -> tensor<9xf32> {
    %0 = stablehlo.negate %arg0 : tensor<9xf32>
    %1 = stablehlo.exponential %0 : tensor<9xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %3 = stablehlo.add %2, %1 : tensor<9xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %5 = stablehlo.divide %4, %3 : tensor<9xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<9xf32>
    return %6 : tensor<9xf32>
  }
  func.func private @softplus(%arg0: tensor<9xf32>) -> tensor<9xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<9xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %3 = stablehlo.subtract %arg0, %2 : tensor<9xf32>
    %4 = stablehlo.compare NE, %3, %3, FLOAT : (tensor<9xf32>, tensor<9xf32>) -> tensor<9xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %6 = stablehlo.add %arg0, %5 : tensor<9xf32>
    %7 = stablehlo.abs %3 : tensor<9xf32>
    %8 = stablehlo.negate %7 : tensor<9xf32>
    %9 = stablehlo.exponential %8 : tensor<9xf32>
    %10 = stablehlo.log_plus_one %9 : tensor<9xf32>
    %11 = stablehlo.add %1, %10 : tensor<9xf32>
    %12 = stablehlo.select %4, %6, %11 : tensor<9xi1>, tensor<9xf32>
    return %12 : tensor<9xf32>
  }
  func.func private @elu(%arg0: tensor<9xf32>) -> tensor<9xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %1 = stablehlo.compare GT, %arg0, %0, FLOAT : (tensor<9xf32>, tensor<9xf32>) -> tensor<9xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %3 = stablehlo.compare GT, %arg0, %2, FLOAT : (tensor<9xf32>, tensor<9xf32>) -> tensor<9xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %4 = call @_where(%3, %cst_1, %arg0) : (tensor<9xi1>, tensor<f64>, tensor<9xf32>) -> tensor<9xf32>
    %5 = stablehlo.exponential_minus_one %4 : tensor<9xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %7 = stablehlo.multiply %6, %5 : tensor<9xf32>
    %8 = call @_where_0(%1, %arg0, %7) : (tensor<9xi1>, tensor<9xf32>, tensor<9xf32>) -> tensor<9xf32>
    return %8 : tensor<9xf32>
  }
  func.func private @_where(%arg0: tensor<9xi1>, %arg1: tensor<f64>, %arg2: tensor<9xf32>) -> tensor<9xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %2 = stablehlo.select %arg0, %1, %arg2 : tensor<9xi1>, tensor<9xf32>
    return %2 : tensor<9xf32>
  }
  func.func private @_where_0(%arg0: tensor<9xi1>, %arg1: tensor<9xf32>, %arg2: tensor<9xf32>) -> tensor<9xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<9xi1>, tensor<9xf32>
    return %0 : tensor<9xf32>
  }
  func.func private @leaky_relu(%arg0: tensor<9xf32>) -> tensor<9xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %1 = stablehlo.compare GE, %arg0, %0, FLOAT : (tensor<9xf32>, tensor<9xf32>) -> tensor<9xi1>
    %cst_0 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %3 = stablehlo.multiply %2, %arg0 : tensor<9xf32>
    %4 = call @_where_0(%1, %arg0, %3) : (tensor<9xi1>, tensor<9xf32>, tensor<9xf32>) -> tensor<9xf32>
    return %4 : tensor<9xf32>
  }
  func.func private @relu6(%arg0: tensor<9xf32>) -> tensor<9xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<9xf32>
    %cst_0 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<9xf32>
    %3 = stablehlo.minimum %1, %2 : tensor<9xf32>
    return %3 : tensor<9xf32>
  }
}
