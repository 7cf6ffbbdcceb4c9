// The cuda backend's lowering (no GPU needed): which steps a module becomes,
// that their generated kernels compile with NVRTC, and that an op without a
// GPU kernel is reported by name. Running them is test_cuda.py's, on a GPU.
#include "xjit/backends/cuda/lowering.h"

#include "gtest/gtest.h"
#include "pass_test_util.h"
#include "xjit/backends/cuda/nvrtc_compile.h"

namespace xjit::cuda {
namespace {

using ::xjit::testing::Parse;

int CountSteps(const LoweredProgram& p, Step::Kind kind) {
  int n = 0;
  for (const Step& s : p.steps) n += s.kind == kind;
  return n;
}

void ExpectCompiles(const LoweredProgram& p) {
  absl::StatusOr<std::string> ptx = CompileCudaSource(p.source, {8, 0}, DeviceCodeKind::kPtx);
  EXPECT_TRUE(ptx.ok()) << ptx.status();
}

TEST(CudaLowering, ElementwiseChainIsOneKernel) {
  auto m = Parse(R"(module @m {
  func.func @main(%x: tensor<1000xf32>, %y: tensor<1000xf32>) -> tensor<1000xf32> {
    %a = "stablehlo.multiply"(%x, %y) : (tensor<1000xf32>, tensor<1000xf32>) -> tensor<1000xf32>
    %b = "stablehlo.exponential"(%a) : (tensor<1000xf32>) -> tensor<1000xf32>
    %c = "stablehlo.add"(%b, %x) : (tensor<1000xf32>, tensor<1000xf32>) -> tensor<1000xf32>
    "func.return"(%c) : (tensor<1000xf32>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<LoweredProgram> p = LowerForCuda(*m);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(CountSteps(*p, Step::Kind::kKernel), 1);
  EXPECT_EQ(p->steps[0].launch.threads, 1000);
  EXPECT_EQ(p->steps[0].slots.size(), 3u);  // x, y, result
  EXPECT_EQ(p->arena_bytes, 0);
  ExpectCompiles(*p);
}

TEST(CudaLowering, DotReduceAndDataMovement) {
  auto m = Parse(R"(module @m {
  func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
    %d = "stablehlo.dot_general"(%x, %w) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = "stablehlo.reduce"(%d, %z) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %tr = "stablehlo.transpose"(%d) {permutation = array<i64: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
    "func.return"(%s, %tr) : (tensor<4xf32>, tensor<4x8xf32>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<LoweredProgram> p = LowerForCuda(*m);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(CountSteps(*p, Step::Kind::kMatmul), 1);
  EXPECT_EQ(CountSteps(*p, Step::Kind::kKernel), 2);  // reduce, transpose
  EXPECT_EQ(p->constants.size(), 1u);                  // the reduce's initial value
  EXPECT_GT(p->arena_bytes, 0);                        // the product and the workspace
  ExpectCompiles(*p);
}

TEST(CudaLowering, LongReductionsUseABlockPerResult) {
  auto m = Parse(R"(module @m {
  func.func @main(%x: tensor<4x4096xf32>) -> tensor<4xf32> {
    %z = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %s = "stablehlo.reduce"(%x, %z) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<4x4096xf32>, tensor<f32>) -> tensor<4xf32>
    "func.return"(%s) : (tensor<4xf32>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<LoweredProgram> p = LowerForCuda(*m);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->steps.size(), 1u);
  EXPECT_EQ(p->steps[0].launch.threads, 4 * p->steps[0].launch.block);
  ExpectCompiles(*p);
}

TEST(CudaLowering, AResultThatIsAParameterIsCopied) {
  auto m = Parse(R"(module @m {
  func.func @main(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
    %n = "stablehlo.negate"(%x) : (tensor<3xi32>) -> tensor<3xi32>
    "func.return"(%x, %n) : (tensor<3xi32>, tensor<3xi32>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<LoweredProgram> p = LowerForCuda(*m);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(CountSteps(*p, Step::Kind::kCopy), 1);
  EXPECT_EQ(p->steps.back().bytes, 12);
  ExpectCompiles(*p);
}

TEST(CudaLowering, AnOpWithoutAGpuKernelIsNamed) {
  auto m = Parse(R"(module @m {
  func.func @main(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
    %f = "stablehlo.fft"(%x) {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 4>} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    "func.return"(%f) : (tensor<4xcomplex<f32>>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<LoweredProgram> p = LowerForCuda(*m);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(p.status().message().find("fft"), std::string::npos) << p.status();
  EXPECT_NE(p.status().message().find("cuda backend"), std::string::npos) << p.status();
}

TEST(CudaLowering, SortIsAnInitANetworkAndAGather) {
  auto m = Parse(R"(module @m {
  func.func @main(%x: tensor<5xf32>) -> tensor<5xf32> {
    %s = "stablehlo.sort"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }) {dimension = 0 : i64, is_stable = false} : (tensor<5xf32>) -> tensor<5xf32>
    "func.return"(%s) : (tensor<5xf32>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<LoweredProgram> p = LowerForCuda(*m);
  ASSERT_TRUE(p.ok()) << p.status();
  // 5 elements pad to 8: stages (2,1), (4,2), (4,1), (8,4), (8,2), (8,1).
  ASSERT_EQ(p->steps.size(), 1u + 6u + 1u);
  EXPECT_EQ(p->steps[1].launch.argument, (int64_t{2} << 32) | 1);
  EXPECT_EQ(p->steps[6].launch.argument, (int64_t{8} << 32) | 1);
  EXPECT_EQ(p->steps[0].slots.size(), 3u);  // operand, result, permutation
  ExpectCompiles(*p);
}

TEST(CudaLowering, NvrtcReportsAGeneratorBugWithTheSource) {
  absl::StatusOr<std::string> ptx =
      CompileCudaSource("extern \"C\" __global__ void k0() { undefined_name(); }", {8, 0},
                        DeviceCodeKind::kPtx);
  ASSERT_FALSE(ptx.ok());
  EXPECT_NE(ptx.status().message().find("undefined_name"), std::string::npos);
}

}  // namespace
}  // namespace xjit::cuda
