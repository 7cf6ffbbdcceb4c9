module @jit__scan_cumsum attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x6xf32>) -> (tensor<5x6xf32> {jax.result_info = "result[0]"}, tensor<5x6xf32> {jax.result_info = "result[1]"}, tensor<5x6xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.slice %arg0 [0:4:2, 0:6] : (tensor<5x6xf32>) -> tensor<2x6xf32>
    %1 = stablehlo.slice %arg0 [1:5:2, 0:6] : (tensor<5x6xf32>) -> tensor<2x6xf32>
    %2 = stablehlo.add %0, %1 : tensor<2x6xf32>
    %3 = stablehlo.slice %2 [0:1:2, 0:6] : (tensor<2x6xf32>) -> tensor<1x6xf32>
    %4 = stablehlo.slice %2 [1:2:2, 0:6] : (tensor<2x6xf32>) -> tensor<1x6xf32>
    %5 = stablehlo.add %3, %4 : tensor<1x6xf32>
    %6 = stablehlo.slice %5 [0:0, 0:6] : (tensor<1x6xf32>) -> tensor<0x6xf32>
    %7 = stablehlo.slice %2 [2:2:2, 0:6] : (tensor<2x6xf32>) -> tensor<0x6xf32>
    %8 = stablehlo.add %6, %7 : tensor<0x6xf32>
    %9 = stablehlo.slice %2 [0:1, 0:6] : (tensor<2x6xf32>) -> tensor<1x6xf32>
    %10 = stablehlo.concatenate %9, %8, dim = 0 : (tensor<1x6xf32>, tensor<0x6xf32>) -> tensor<1x6xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.pad %10, %cst, low = [0, 0], high = [1, 0], interior = [1, 0] : (tensor<1x6xf32>, tensor<f32>) -> tensor<2x6xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.pad %5, %cst_0, low = [1, 0], high = [0, 0], interior = [1, 0] : (tensor<1x6xf32>, tensor<f32>) -> tensor<2x6xf32>
    %13 = stablehlo.add %11, %12 : tensor<2x6xf32>
    %14 = stablehlo.slice %arg0 [2:5:2, 0:6] : (tensor<5x6xf32>) -> tensor<2x6xf32>
    %15 = stablehlo.add %13, %14 : tensor<2x6xf32>
    %16 = stablehlo.slice %arg0 [0:1, 0:6] : (tensor<5x6xf32>) -> tensor<1x6xf32>
    %17 = stablehlo.concatenate %16, %15, dim = 0 : (tensor<1x6xf32>, tensor<2x6xf32>) -> tensor<3x6xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.pad %17, %cst_1, low = [0, 0], high = [0, 0], interior = [1, 0] : (tensor<3x6xf32>, tensor<f32>) -> tensor<5x6xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.pad %13, %cst_2, low = [1, 0], high = [1, 0], interior = [1, 0] : (tensor<2x6xf32>, tensor<f32>) -> tensor<5x6xf32>
    %20 = stablehlo.add %18, %19 : tensor<5x6xf32>
    %21 = stablehlo.slice %arg0 [0:5, 0:5:2] : (tensor<5x6xf32>) -> tensor<5x3xf32>
    %22 = stablehlo.slice %arg0 [0:5, 1:6:2] : (tensor<5x6xf32>) -> tensor<5x3xf32>
    %23 = stablehlo.maximum %21, %22 : tensor<5x3xf32>
    %24 = stablehlo.slice %23 [0:5, 0:2:2] : (tensor<5x3xf32>) -> tensor<5x1xf32>
    %25 = stablehlo.slice %23 [0:5, 1:3:2] : (tensor<5x3xf32>) -> tensor<5x1xf32>
    %26 = stablehlo.maximum %24, %25 : tensor<5x1xf32>
    %27 = stablehlo.slice %23 [0:5, 2:3:2] : (tensor<5x3xf32>) -> tensor<5x1xf32>
    %28 = stablehlo.maximum %26, %27 : tensor<5x1xf32>
    %29 = stablehlo.slice %23 [0:5, 0:1] : (tensor<5x3xf32>) -> tensor<5x1xf32>
    %30 = stablehlo.concatenate %29, %28, dim = 1 : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x2xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = stablehlo.pad %30, %cst_3, low = [0, 0], high = [0, 0], interior = [0, 1] : (tensor<5x2xf32>, tensor<f32>) -> tensor<5x3xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.pad %26, %cst_4, low = [0, 1], high = [0, 1], interior = [0, 1] : (tensor<5x1xf32>, tensor<f32>) -> tensor<5x3xf32>
    %33 = stablehlo.add %31, %32 : tensor<5x3xf32>
    %34 = stablehlo.slice %33 [0:5, 0:2] : (tensor<5x3xf32>) -> tensor<5x2xf32>
    %35 = stablehlo.slice %arg0 [0:5, 2:6:2] : (tensor<5x6xf32>) -> tensor<5x2xf32>
    %36 = stablehlo.maximum %34, %35 : tensor<5x2xf32>
    %37 = stablehlo.slice %arg0 [0:5, 0:1] : (tensor<5x6xf32>) -> tensor<5x1xf32>
    %38 = stablehlo.concatenate %37, %36, dim = 1 : (tensor<5x1xf32>, tensor<5x2xf32>) -> tensor<5x3xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %39 = stablehlo.pad %38, %cst_5, low = [0, 0], high = [0, 1], interior = [0, 1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x6xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %40 = stablehlo.pad %33, %cst_6, low = [0, 1], high = [0, 0], interior = [0, 1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x6xf32>
    %41 = stablehlo.add %39, %40 : tensor<5x6xf32>
    %cst_7 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<5x6xf32>
    %43 = stablehlo.multiply %arg0, %42 : tensor<5x6xf32>
    %44 = stablehlo.slice %43 [0:5, 0:5:2] : (tensor<5x6xf32>) -> tensor<5x3xf32>
    %45 = stablehlo.slice %43 [0:5, 1:6:2] : (tensor<5x6xf32>) -> tensor<5x3xf32>
    %46 = stablehlo.multiply %44, %45 : tensor<5x3xf32>
    %47 = stablehlo.slice %46 [0:5, 0:2:2] : (tensor<5x3xf32>) -> tensor<5x1xf32>
    %48 = stablehlo.slice %46 [0:5, 1:3:2] : (tensor<5x3xf32>) -> tensor<5x1xf32>
    %49 = stablehlo.multiply %47, %48 : tensor<5x1xf32>
    %50 = stablehlo.slice %46 [0:5, 2:3:2] : (tensor<5x3xf32>) -> tensor<5x1xf32>
    %51 = stablehlo.multiply %49, %50 : tensor<5x1xf32>
    %52 = stablehlo.slice %46 [0:5, 0:1] : (tensor<5x3xf32>) -> tensor<5x1xf32>
    %53 = stablehlo.concatenate %52, %51, dim = 1 : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x2xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %54 = stablehlo.pad %53, %cst_8, low = [0, 0], high = [0, 0], interior = [0, 1] : (tensor<5x2xf32>, tensor<f32>) -> tensor<5x3xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %55 = stablehlo.pad %49, %cst_9, low = [0, 1], high = [0, 1], interior = [0, 1] : (tensor<5x1xf32>, tensor<f32>) -> tensor<5x3xf32>
    %56 = stablehlo.add %54, %55 : tensor<5x3xf32>
    %57 = stablehlo.slice %56 [0:5, 0:2] : (tensor<5x3xf32>) -> tensor<5x2xf32>
    %58 = stablehlo.slice %43 [0:5, 2:6:2] : (tensor<5x6xf32>) -> tensor<5x2xf32>
    %59 = stablehlo.multiply %57, %58 : tensor<5x2xf32>
    %60 = stablehlo.slice %43 [0:5, 0:1] : (tensor<5x6xf32>) -> tensor<5x1xf32>
    %61 = stablehlo.concatenate %60, %59, dim = 1 : (tensor<5x1xf32>, tensor<5x2xf32>) -> tensor<5x3xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %62 = stablehlo.pad %61, %cst_10, low = [0, 0], high = [0, 1], interior = [0, 1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x6xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %63 = stablehlo.pad %56, %cst_11, low = [0, 1], high = [0, 0], interior = [0, 1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x6xf32>
    %64 = stablehlo.add %62, %63 : tensor<5x6xf32>
    return %20, %41, %64 : tensor<5x6xf32>, tensor<5x6xf32>, tensor<5x6xf32>
  }
}
