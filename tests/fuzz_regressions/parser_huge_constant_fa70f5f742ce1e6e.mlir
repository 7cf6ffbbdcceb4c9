// Hung without a memory limit: the parser allocates a constant's declared 16 GiB before checking its literal (issue 6 item 6).
module@m {
  func.func @main() -> (tensor<2x2xf32>) {
    %0 = "stablehlo.constant"() { value = dense<[[0.0, 9223372036854775807], [2.0, 3.0]]> : tensor<2147483648x2xf32> } : () -> tensor<2x2xf32>
    "func.return"(%0) : (tensor<2x2xf32>) -> ()
  }
}
