module @jit__reductions attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}, tensor<3xf32> {jax.result_info = "result[2]"}, tensor<f32> {jax.result_info = "result[3]"}, tensor<5xf32> {jax.result_info = "result[4]"}, tensor<3xf32> {jax.result_info = "result[5]"}, tensor<f32> {jax.result_info = "result[6]"}, tensor<5xf32> {jax.result_info = "result[7]"}, tensor<3xf32> {jax.result_info = "result[8]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<3x5xf32>, tensor<f32>) -> tensor<5xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%arg0 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
    %cst_2 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %4 = stablehlo.divide %2, %3 : tensor<3xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %5 = stablehlo.reduce(%arg0 init: %cst_3) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %6 = stablehlo.reduce(%arg0 init: %cst_4) applies stablehlo.minimum across dimensions = [0] : (tensor<3x5xf32>, tensor<f32>) -> tensor<5xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%arg0 init: %cst_5) applies stablehlo.multiply across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %8 = call @_var(%arg0, %c) : (tensor<3x5xf32>, tensor<i64>) -> tensor<f32>
    %c_6 = stablehlo.constant dense<0> : tensor<i64>
    %9 = call @_std(%arg0, %c_6) : (tensor<3x5xf32>, tensor<i64>) -> tensor<5xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %10 = stablehlo.reduce(%arg0 init: %cst_7) applies stablehlo.maximum across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
    %cst_8 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %12 = stablehlo.maximum %11, %10 : tensor<3xf32>
    %13 = stablehlo.is_finite %12 : (tensor<3xf32>) -> tensor<3xi1>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %15 = stablehlo.select %13, %12, %14 : tensor<3xi1>, tensor<3xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<3xf32>) -> tensor<3x1xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x5xf32>
    %18 = stablehlo.subtract %arg0, %17 : tensor<3x5xf32>
    %19 = stablehlo.exponential %18 : tensor<3x5xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.reduce(%19 init: %cst_10) applies stablehlo.add across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
    %21 = stablehlo.abs %20 : tensor<3xf32>
    %22 = stablehlo.log %21 : tensor<3xf32>
    %23 = stablehlo.add %22, %15 : tensor<3xf32>
    return %0, %1, %4, %5, %6, %7, %8, %9, %23 : tensor<f32>, tensor<5xf32>, tensor<3xf32>, tensor<f32>, tensor<5xf32>, tensor<3xf32>, tensor<f32>, tensor<5xf32>, tensor<3xf32>
  }
  func.func private @_var(%arg0: tensor<3x5xf32>, %arg1: tensor<i64>) -> tensor<f32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %cst_0 = stablehlo.constant dense<1.500000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<1x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<3x5xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<3x5xf32>
    %6 = chlo.square %5 : tensor<3x5xf32> -> tensor<3x5xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<1.500000e+01> : tensor<f32>
    %8 = stablehlo.subtract %cst_1, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<f32>
    %10 = stablehlo.divide %9, %8 : tensor<f32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.compare GT, %8, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %12 = call @_where(%11, %10, %cst_4) : (tensor<i1>, tensor<f32>, tensor<f64>) -> tensor<f32>
    return %12 : tensor<f32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<f32>, %arg2: tensor<f64>) -> tensor<f32> {
    %0 = stablehlo.convert %arg2 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<i1>, tensor<f32>
    return %1 : tensor<f32>
  }
  func.func private @_std(%arg0: tensor<3x5xf32>, %arg1: tensor<i64>) -> tensor<5xf32> {
    %0 = call @_var_0(%arg0, %arg1) : (tensor<3x5xf32>, tensor<i64>) -> tensor<5xf32>
    %1 = stablehlo.sqrt %0 : tensor<5xf32>
    return %1 : tensor<5xf32>
  }
  func.func private @_var_0(%arg0: tensor<3x5xf32>, %arg1: tensor<i64>) -> tensor<5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<3x5xf32>, tensor<f32>) -> tensor<5xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %cst_0 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x5xf32>
    %3 = stablehlo.divide %1, %2 : tensor<1x5xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x5xf32>) -> tensor<3x5xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<3x5xf32>
    %6 = chlo.square %5 : tensor<3x5xf32> -> tensor<3x5xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %8 = stablehlo.subtract %cst_1, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<3x5xf32>, tensor<f32>) -> tensor<5xf32>
    %10 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %11 = stablehlo.divide %9, %10 : tensor<5xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.compare GT, %8, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %13 = call @_where_1(%12, %11, %cst_4) : (tensor<i1>, tensor<5xf32>, tensor<f64>) -> tensor<5xf32>
    return %13 : tensor<5xf32>
  }
  func.func private @_where_1(%arg0: tensor<i1>, %arg1: tensor<5xf32>, %arg2: tensor<f64>) -> tensor<5xf32> {
    %0 = stablehlo.convert %arg2 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<5xf32>
    return %2 : tensor<5xf32>
  }
}
