module @jit__elementwise_f32 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7xf32>) -> (tensor<7xf32> {jax.result_info = "result[0]"}, tensor<7xf32> {jax.result_info = "result[1]"}, tensor<7xf32> {jax.result_info = "result[2]"}, tensor<7xf32> {jax.result_info = "result[3]"}, tensor<7xf32> {jax.result_info = "result[4]"}, tensor<7xf32> {jax.result_info = "result[5]"}, tensor<7xf32> {jax.result_info = "result[6]"}, tensor<7xf32> {jax.result_info = "result[7]"}, tensor<7xf32> {jax.result_info = "result[8]"}, tensor<7xf32> {jax.result_info = "result[9]"}, tensor<7xf32> {jax.result_info = "result[10]"}, tensor<7xf32> {jax.result_info = "result[11]"}, tensor<7xf32> {jax.result_info = "result[12]"}, tensor<7xf32> {jax.result_info = "result[13]"}, tensor<7xf32> {jax.result_info = "result[14]"}, tensor<7xf32> {jax.result_info = "result[15]"}, tensor<7xf32> {jax.result_info = "result[16]"}, tensor<7xi1> {jax.result_info = "result[17]"}) {
    %0 = stablehlo.sine %arg0 : tensor<7xf32>
    %1 = stablehlo.cosine %arg0 : tensor<7xf32>
    %2 = stablehlo.exponential %arg0 : tensor<7xf32>
    %3 = stablehlo.abs %arg0 : tensor<7xf32>
    %4 = stablehlo.log_plus_one %3 : tensor<7xf32>
    %5 = stablehlo.tanh %arg0 : tensor<7xf32>
    %6 = stablehlo.negate %arg0 : tensor<7xf32>
    %7 = stablehlo.exponential %6 : tensor<7xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %9 = stablehlo.add %8, %7 : tensor<7xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %11 = stablehlo.divide %10, %9 : tensor<7xf32>
    %12 = stablehlo.floor %arg0 : tensor<7xf32>
    %13 = stablehlo.ceil %arg0 : tensor<7xf32>
    %14 = call @round(%arg0) : (tensor<7xf32>) -> tensor<7xf32>
    %15 = stablehlo.sign %arg0 : tensor<7xf32>
    %16 = stablehlo.abs %arg0 : tensor<7xf32>
    %17 = stablehlo.sqrt %16 : tensor<7xf32>
    %18 = stablehlo.abs %arg0 : tensor<7xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %20 = stablehlo.add %18, %19 : tensor<7xf32>
    %21 = stablehlo.rsqrt %20 : tensor<7xf32>
    %22 = stablehlo.exponential_minus_one %arg0 : tensor<7xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %24 = stablehlo.add %arg0, %23 : tensor<7xf32>
    %25 = stablehlo.atan2 %arg0, %24 : tensor<7xf32>
    %26 = stablehlo.multiply %arg0, %arg0 : tensor<7xf32>
    %27 = stablehlo.cbrt %arg0 : tensor<7xf32>
    %28 = chlo.erf %arg0 : tensor<7xf32> -> tensor<7xf32>
    %29 = stablehlo.slice %arg0 [0:1] : (tensor<7xf32>) -> tensor<1xf32>
    %30 = stablehlo.reshape %29 : (tensor<1xf32>) -> tensor<f32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %32 = stablehlo.subtract %arg0, %31 : tensor<7xf32>
    %33 = stablehlo.divide %arg0, %32 : tensor<7xf32>
    %34 = stablehlo.is_finite %33 : (tensor<7xf32>) -> tensor<7xi1>
    return %0, %1, %2, %4, %5, %11, %12, %13, %14, %15, %17, %21, %22, %25, %26, %27, %28, %34 : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xi1>
  }
  func.func private @round(%arg0: tensor<7xf32>) -> tensor<7xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<7xf32>
    return %0 : tensor<7xf32>
  }
}
