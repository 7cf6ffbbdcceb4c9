module @jit__iota_onehot attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xi32>) -> (tensor<6xi64> {jax.result_info = "result[0]"}, tensor<4x5xf64> {jax.result_info = "result[1]"}, tensor<3x4xf32> {jax.result_info = "result[2]"}, tensor<3x3xf64> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.iota dim = 0 : tensor<6xi64>
    %1 = call @_one_hot(%arg0) : (tensor<4xi32>) -> tensor<4x5xf64>
    %2 = stablehlo.iota dim = 0 : tensor<12xf32>
    %3 = stablehlo.reshape %2 : (tensor<12xf32>) -> tensor<3x4xf32>
    %4 = stablehlo.iota dim = 0 : tensor<3x3xi64>
    %5 = stablehlo.iota dim = 1 : tensor<3x3xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %6 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<3x3xi64>
    %7 = stablehlo.add %4, %6 : tensor<3x3xi64>
    %8 = stablehlo.compare EQ, %7, %5, SIGNED : (tensor<3x3xi64>, tensor<3x3xi64>) -> tensor<3x3xi1>
    %9 = stablehlo.convert %8 : (tensor<3x3xi1>) -> tensor<3x3xf64>
    return %0, %1, %3, %9 : tensor<6xi64>, tensor<4x5xf64>, tensor<3x4xf32>, tensor<3x3xf64>
  }
  func.func private @_one_hot(%arg0: tensor<4xi32>) -> tensor<4x5xf64> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %1 = stablehlo.iota dim = 1 : tensor<1x5xi32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<4x1xi32>) -> tensor<4x5xi32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x5xi32>) -> tensor<4x5xi32>
    %4 = stablehlo.compare EQ, %2, %3, SIGNED : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi1>
    %5 = stablehlo.convert %4 : (tensor<4x5xi1>) -> tensor<4x5xf64>
    return %5 : tensor<4x5xf64>
  }
}
