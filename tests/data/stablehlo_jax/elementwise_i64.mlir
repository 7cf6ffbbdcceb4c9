module @jit__elementwise_ints attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xi64>, %arg1: tensor<6xi64>) -> (tensor<6xi64> {jax.result_info = "result[0]"}, tensor<6xi64> {jax.result_info = "result[1]"}, tensor<6xi64> {jax.result_info = "result[2]"}, tensor<6xi64> {jax.result_info = "result[3]"}, tensor<6xi64> {jax.result_info = "result[4]"}, tensor<6xi64> {jax.result_info = "result[5]"}, tensor<6xi64> {jax.result_info = "result[6]"}, tensor<6xi64> {jax.result_info = "result[7]"}, tensor<6xi64> {jax.result_info = "result[8]"}, tensor<6xi64> {jax.result_info = "result[9]"}, tensor<6xi64> {jax.result_info = "result[10]"}, tensor<6xi64> {jax.result_info = "result[11]"}, tensor<6xi64> {jax.result_info = "result[12]"}, tensor<6xi64> {jax.result_info = "result[13]"}, tensor<6xi64> {jax.result_info = "result[14]"}, tensor<6xi64> {jax.result_info = "result[15]"}, tensor<6xi64> {jax.result_info = "result[16]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<6xi64>
    %1 = stablehlo.subtract %arg0, %arg1 : tensor<6xi64>
    %2 = stablehlo.multiply %arg0, %arg1 : tensor<6xi64>
    %3 = stablehlo.abs %arg1 : tensor<6xi64>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %5 = stablehlo.add %3, %4 : tensor<6xi64>
    %6 = call @floor_divide(%arg0, %5) : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
    %7 = stablehlo.abs %arg1 : tensor<6xi64>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %8 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %9 = stablehlo.add %7, %8 : tensor<6xi64>
    %10 = call @remainder(%arg0, %9) : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
    %11 = stablehlo.maximum %arg0, %arg1 : tensor<6xi64>
    %12 = stablehlo.minimum %arg0, %arg1 : tensor<6xi64>
    %13 = stablehlo.and %arg0, %arg1 : tensor<6xi64>
    %14 = stablehlo.or %arg0, %arg1 : tensor<6xi64>
    %15 = stablehlo.xor %arg0, %arg1 : tensor<6xi64>
    %16 = stablehlo.not %arg0 : tensor<6xi64>
    %17 = stablehlo.negate %arg0 : tensor<6xi64>
    %18 = stablehlo.abs %arg0 : tensor<6xi64>
    %c_1 = stablehlo.constant dense<2> : tensor<i64>
    %19 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %20 = stablehlo.shift_left %arg0, %19 : tensor<6xi64>
    %c_2 = stablehlo.constant dense<1> : tensor<i64>
    %21 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %22 = stablehlo.shift_right_arithmetic %arg0, %21 : tensor<6xi64>
    %23 = stablehlo.popcnt %arg0 : tensor<6xi64>
    %24 = stablehlo.count_leading_zeros %arg0 : tensor<6xi64>
    return %0, %1, %2, %6, %10, %11, %12, %13, %14, %15, %16, %17, %18, %20, %22, %23, %24 : tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>
  }
  func.func private @floor_divide(%arg0: tensor<6xi64>, %arg1: tensor<6xi64>) -> tensor<6xi64> {
    %0 = stablehlo.divide %arg0, %arg1 : tensor<6xi64>
    %1 = stablehlo.sign %arg0 : tensor<6xi64>
    %2 = stablehlo.sign %arg1 : tensor<6xi64>
    %3 = stablehlo.compare NE, %1, %2, SIGNED : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<6xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
    %7 = stablehlo.and %3, %6 : tensor<6xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %8 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %9 = stablehlo.subtract %0, %8 : tensor<6xi64>
    %10 = call @_where(%7, %9, %0) : (tensor<6xi1>, tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
    return %10 : tensor<6xi64>
  }
  func.func private @_where(%arg0: tensor<6xi1>, %arg1: tensor<6xi64>, %arg2: tensor<6xi64>) -> tensor<6xi64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<6xi1>, tensor<6xi64>
    return %0 : tensor<6xi64>
  }
  func.func private @remainder(%arg0: tensor<6xi64>, %arg1: tensor<6xi64>) -> tensor<6xi64> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %1 = stablehlo.compare EQ, %arg1, %0, SIGNED : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %3 = call @_where(%1, %2, %arg1) : (tensor<6xi1>, tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
    %4 = stablehlo.remainder %arg0, %3 : tensor<6xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %9 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %10 = stablehlo.compare LT, %3, %9, SIGNED : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<6xi1>, tensor<6xi1>) -> tensor<6xi1>
    %12 = stablehlo.and %11, %6 : tensor<6xi1>
    %13 = stablehlo.add %4, %3 : tensor<6xi64>
    %14 = stablehlo.select %12, %13, %4 : tensor<6xi1>, tensor<6xi64>
    return %14 : tensor<6xi64>
  }
}
