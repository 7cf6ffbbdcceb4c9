module @jit__float64 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf64>) -> (tensor<5xf64> {jax.result_info = "result[0]"}, tensor<f64> {jax.result_info = "result[1]"}, tensor<5xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.exponential %arg0 : tensor<5xf64>
    %cst = stablehlo.constant dense<1.000000e-03> : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<5xf64>
    %2 = stablehlo.multiply %0, %1 : tensor<5xf64>
    %3 = stablehlo.sine %arg0 : tensor<5xf64>
    %4 = stablehlo.add %2, %3 : tensor<5xf64>
    %5 = stablehlo.multiply %arg0, %arg0 : tensor<5xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %6 = stablehlo.reduce(%5 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<5xf64>, tensor<f64>) -> tensor<f64>
    %7 = stablehlo.convert %arg0 : (tensor<5xf64>) -> tensor<5xf32>
    return %4, %6, %7 : tensor<5xf64>, tensor<f64>, tensor<5xf32>
  }
}
