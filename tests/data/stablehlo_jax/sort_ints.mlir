module @jit__sort_ints attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7xi32>) -> (tensor<7xi32> {jax.result_info = "result[0]"}, tensor<7xi32> {jax.result_info = "result[1][0]"}, tensor<7xi32> {jax.result_info = "result[1][1]"}) {
    %0 = call @sort(%arg0) : (tensor<7xi32>) -> tensor<7xi32>
    %1 = stablehlo.negate %arg0 : tensor<7xi32>
    %2:2 = "stablehlo.sort"(%arg0, %1) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<i32>, %arg4: tensor<i32>):
      %3 = stablehlo.compare LT, %arg1, %arg2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    }) : (tensor<7xi32>, tensor<7xi32>) -> (tensor<7xi32>, tensor<7xi32>)
    return %0, %2#0, %2#1 : tensor<7xi32>, tensor<7xi32>, tensor<7xi32>
  }
  func.func private @sort(%arg0: tensor<7xi32>) -> tensor<7xi32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %1 = stablehlo.compare LT, %arg1, %arg2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) : (tensor<7xi32>) -> tensor<7xi32>
    return %0 : tensor<7xi32>
  }
}
