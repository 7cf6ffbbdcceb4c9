module @jit__bools attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xi1>, %arg1: tensor<3x4xi1>) -> (tensor<3x4xi1> {jax.result_info = "result[0]"}, tensor<3x4xi1> {jax.result_info = "result[1]"}, tensor<3x4xi1> {jax.result_info = "result[2]"}, tensor<3x4xi1> {jax.result_info = "result[3]"}, tensor<i1> {jax.result_info = "result[4]"}, tensor<4xi1> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.and %arg0, %arg1 : tensor<3x4xi1>
    %1 = stablehlo.or %arg0, %arg1 : tensor<3x4xi1>
    %2 = stablehlo.xor %arg0, %arg1 : tensor<3x4xi1>
    %3 = stablehlo.not %arg0 : tensor<3x4xi1>
    %c = stablehlo.constant dense<false> : tensor<i1>
    %4 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.or across dimensions = [0, 1] : (tensor<3x4xi1>, tensor<i1>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<true> : tensor<i1>
    %5 = stablehlo.reduce(%arg1 init: %c_0) applies stablehlo.and across dimensions = [0] : (tensor<3x4xi1>, tensor<i1>) -> tensor<4xi1>
    return %0, %1, %2, %3, %4, %5 : tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>, tensor<i1>, tensor<4xi1>
  }
}
