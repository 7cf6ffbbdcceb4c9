// Row fusion (passes/elementwise_fusion.h with FusionOptions::row_reduce):
// which reduces and broadcasts join a cluster, that the fused region passes
// shape inference, and that the fused graph computes what the original does
// on the reference backend (the region as a callee) and on cpu (RowFusionThunk).
#include <random>

#include "cpu_test_util.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/backends/cpu/reduce.h"
#include "xjit/passes/elementwise_fusion.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::testing {
namespace {


passes::FusionOptions RowOptions() {
  passes::FusionOptions options;
  options.row_reduce = [](const Instruction& r) { return cpu::GetRowReduceKernel(r) != nullptr; };
  return options;
}

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

std::unique_ptr<Module> RowFuse(const Module& m) { return Fuse(m, RowOptions()); }

const Computation* OnlyRegion(const Module& m) {
  const Computation* region = nullptr;
  for (const auto& instr : m.entry()->instructions()) {
    if (instr->opcode() != Opcode::kFusion) continue;
    EXPECT_EQ(region, nullptr) << "more than one fusion:\n" << PrintModule(m);
    region = instr->called_computations()[0];
  }
  return region;
}

void ExpectSameResults(const Module& original, const Module& fused, double tolerance = 1e-5) {
  cpu::testing::ExpectFusedMatchesOriginal(original, fused, tolerance, 11);
}

// jax.nn.softmax(x, axis=-1) as xjit traces it.
std::string Softmax(int64_t rows, int64_t cols) {
  const std::string r = std::to_string(rows), c = std::to_string(cols);
  const std::string t = "tensor<" + r + "x" + c + "xf32>";
  return "func.func @main(%x: " + t + ") -> " + t + R"( {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : ()" + t + ", tensor<f32>) -> tensor<" + r + R"(xf32>
  %m1 = stablehlo.reshape %m : (tensor<)" + r + "xf32>) -> tensor<" + r + R"(x1xf32>
  %mb = stablehlo.broadcast_in_dim %m1, dims = [0, 1] : (tensor<)" + r + "x1xf32>) -> " + t + R"(
  %d = stablehlo.subtract %x, %mb : )" + t + R"(
  %e = stablehlo.exponential %d : )" + t + R"(
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : ()" + t + ", tensor<f32>) -> tensor<" + r + R"(xf32>
  %s1 = stablehlo.reshape %s : (tensor<)" + r + "xf32>) -> tensor<" + r + R"(x1xf32>
  %sb = stablehlo.broadcast_in_dim %s1, dims = [0, 1] : (tensor<)" + r + "x1xf32>) -> " + t + R"(
  %y = stablehlo.divide %e, %sb : )" + t + R"(
  return %y : )" + t + R"(
})";
}

TEST(RowFusion, SoftmaxIsOneFusionWithBothReduces) {
  auto m = Parse(Softmax(37, 300));
  ASSERT_NE(m, nullptr);
  auto fused = RowFuse(*m);
  ASSERT_NE(fused, nullptr);
  const Computation* region = OnlyRegion(*fused);
  ASSERT_NE(region, nullptr) << PrintModule(*fused);
  EXPECT_EQ(Census(*region)["reduce"], 2) << PrintModule(*fused);
  EXPECT_EQ(Census(*fused->entry())["reduce"], 0);
  ExpectSameResults(*m, *fused);
}

TEST(RowFusion, OffWithoutTheOption) {
  auto m = Parse(Softmax(8, 16));
  ASSERT_NE(m, nullptr);
  auto fused = Fuse(*m, passes::FusionOptions{});
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(Census(*fused->entry())["reduce"], 2);
}

TEST(RowFusion, OneBlockAndManyBlocksAgree) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{2, 2}, {3, 5000}, {4096, 8}, {257, 1024}}) {
    auto m = Parse(Softmax(rows, cols));
    ASSERT_NE(m, nullptr);
    auto fused = RowFuse(*m);
    ASSERT_NE(fused, nullptr);
    ASSERT_NE(OnlyRegion(*fused), nullptr) << rows << "x" << cols;
    ExpectSameResults(*m, *fused);
  }
}

// Layer norm over the two trailing dims, with a scale read in place, the mean
// returned as a second result and a value used outside the fusion.
TEST(RowFusion, LayerNormOverTwoTrailingDimsWithTwoResults) {
  auto m = Parse(R"(
func.func @main(%x: tensor<6x4x50xf32>, %g: tensor<50xf32>) -> (tensor<6x4x50xf32>, tensor<6xf32>, tensor<6x4x50xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<200.0> : tensor<6xf32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1, 2] : (tensor<6x4x50xf32>, tensor<f32>) -> tensor<6xf32>
  %mean = stablehlo.divide %s, %n : tensor<6xf32>
  %mb = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<6xf32>) -> tensor<6x4x50xf32>
  %d = stablehlo.subtract %x, %mb : tensor<6x4x50xf32>
  %sq = stablehlo.multiply %d, %d : tensor<6x4x50xf32>
  %v = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1, 2] : (tensor<6x4x50xf32>, tensor<f32>) -> tensor<6xf32>
  %vn = stablehlo.divide %v, %n : tensor<6xf32>
  %r = stablehlo.rsqrt %vn : tensor<6xf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<6xf32>) -> tensor<6x4x50xf32>
  %gb = stablehlo.broadcast_in_dim %g, dims = [2] : (tensor<50xf32>) -> tensor<6x4x50xf32>
  %y0 = stablehlo.multiply %d, %rb : tensor<6x4x50xf32>
  %y = stablehlo.multiply %y0, %gb : tensor<6x4x50xf32>
  %t = stablehlo.transpose %d, dims = [0, 2, 1] : (tensor<6x4x50xf32>) -> tensor<6x50x4xf32>
  %tr = stablehlo.reshape %t : (tensor<6x50x4xf32>) -> tensor<6x4x50xf32>
  return %y, %mean, %tr : tensor<6x4x50xf32>, tensor<6xf32>, tensor<6x4x50xf32>
})");
  ASSERT_NE(m, nullptr);
  auto fused = RowFuse(*m);
  ASSERT_NE(fused, nullptr);
  ExpectSameResults(*m, *fused);
  int reduces_inside = 0;
  for (const auto& instr : fused->entry()->instructions()) {
    if (instr->opcode() == Opcode::kFusion) {
      reduces_inside += Census(*instr->called_computations()[0])["reduce"];
    }
  }
  EXPECT_EQ(reduces_inside, 2) << PrintModule(*fused);
}

// A reduce of the leading dim, or of a value whose reduce body is not one
// known op, stays outside.
TEST(RowFusion, LeadingDimAndUnknownBodiesStayOutside) {
  auto m = Parse(R"(
func.func @main(%x: tensor<8x16xf32>) -> (tensor<16xf32>, tensor<8xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<8x16xf32>
  %c = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<16xf32>
  %c2 = stablehlo.exponential %c : tensor<16xf32>
  %r = stablehlo.reduce(%e init: %zero) applies stablehlo.subtract across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  %r2 = stablehlo.exponential %r : tensor<8xf32>
  return %c2, %r2 : tensor<16xf32>, tensor<8xf32>
})");
  ASSERT_NE(m, nullptr);
  auto fused = RowFuse(*m);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(Census(*fused->entry())["reduce"], 2) << PrintModule(*fused);
  ExpectSameResults(*m, *fused);
}

// A region with a reduce whose broadcast is not one value per row is refused
// by shape inference, so a hand-written fusion cannot reach the backends.
TEST(RowFusion, ShapeInferenceRefusesOtherBroadcastsOfReducedValues) {
  auto m = ParseModule(R"(
func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %f = "xjit.fusion"(%x, %z) ({
  ^bb0(%a: tensor<4x4xf32>, %zero: tensor<f32>):
    %s = stablehlo.reduce(%a init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    %b = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<4xf32>) -> tensor<4x4xf32>
    %y = stablehlo.add %a, %b : tensor<4x4xf32>
    stablehlo.return %y : tensor<4x4xf32>
  }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %f : tensor<4x4xf32>
})");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("broadcast_in_dim"), std::string::npos) << m.status();
}

}  // namespace
}  // namespace xjit::testing

namespace xjit::testing {
namespace {

// Layer norm whose scale and offset are whole rows (read in place by every
// row), with the scale also through a unary op and returned.
TEST(RowFusion, ScaleAndOffsetOfARowAreReadInPlace) {
  auto m = Parse(R"(
func.func @main(%x: tensor<33x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<33x64xf32>, tensor<33x64xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<64.0> : tensor<33xf32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<33x64xf32>, tensor<f32>) -> tensor<33xf32>
  %mean = stablehlo.divide %s, %n : tensor<33xf32>
  %mb = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<33xf32>) -> tensor<33x64xf32>
  %d = stablehlo.subtract %x, %mb : tensor<33x64xf32>
  %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<64xf32>) -> tensor<33x64xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<64xf32>) -> tensor<33x64xf32>
  %y0 = stablehlo.multiply %d, %gb : tensor<33x64xf32>
  %y = stablehlo.add %y0, %bb : tensor<33x64xf32>
  %eg = stablehlo.exponential %gb : tensor<33x64xf32>
  %z = stablehlo.multiply %eg, %mb : tensor<33x64xf32>
  return %y, %z : tensor<33x64xf32>, tensor<33x64xf32>
})");
  ASSERT_NE(m, nullptr);
  auto fused = RowFuse(*m);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(OnlyRegion(*fused), nullptr);
  ExpectSameResults(*m, *fused);
}

// Sibling reduces of one value from outside (XLA's multi-output fusion): one
// fusion reads the rows once for both, through reshapes of the value too.
TEST(RowFusion, SiblingReducesOfAnInputAreOneFusion) {
  auto m = Parse(R"(
func.func @main(%x: tensor<2048xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reshape %x : (tensor<2048xf32>) -> tensor<16x128xf32>
  %s = stablehlo.reduce(%r init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<16xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r2 = stablehlo.reshape %x : (tensor<2048xf32>) -> tensor<16x128xf32>
  %m = stablehlo.reduce(%r2 init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<16xf32>
  return %s, %m : tensor<16xf32>, tensor<16xf32>
})");
  ASSERT_NE(m, nullptr);
  auto fused = RowFuse(*m);
  ASSERT_NE(fused, nullptr);
  const Computation* region = OnlyRegion(*fused);
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->results().size(), 2u);
  ExpectSameResults(*m, *fused);
}

// x.min() and x.max() once split: each partial reduce is followed by the
// reduce that finishes it, which waits for the fusion of both partials
// instead of closing it; a use of a waiting value closes the fusion first.
TEST(RowFusion, FinishingReducesWaitForASiblingToJoin) {
  auto m = Parse(R"(
func.func @main(%x: tensor<16x128xf32>) -> (tensor<f32>, tensor<f32>, tensor<16x128xf32>) {
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %p0 = stablehlo.reduce(%x init: %inf) applies stablehlo.minimum across dimensions = [1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<16xf32>
  %lo = stablehlo.reduce(%p0 init: %inf) applies stablehlo.minimum across dimensions = [0] : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %p1 = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<16xf32>
  %hi = stablehlo.reduce(%p1 init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
  %range = stablehlo.subtract %hi, %lo : tensor<f32>
  %rb = stablehlo.broadcast_in_dim %range, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
  %lb = stablehlo.broadcast_in_dim %lo, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
  %d = stablehlo.subtract %x, %lb : tensor<16x128xf32>
  %y = stablehlo.divide %d, %rb : tensor<16x128xf32>
  return %lo, %hi, %y : tensor<f32>, tensor<f32>, tensor<16x128xf32>
})");
  ASSERT_NE(m, nullptr);
  auto fused = RowFuse(*m);
  ASSERT_NE(fused, nullptr);
  int reduce_fusions = 0;
  for (const auto& instr : fused->entry()->instructions()) {
    if (instr->opcode() != Opcode::kFusion) continue;
    const Computation& region = *instr->called_computations()[0];
    int reduces = 0;
    for (const auto& r : region.instructions()) reduces += r->opcode() == Opcode::kReduce;
    if (reduces == 0) continue;
    ++reduce_fusions;
    EXPECT_EQ(reduces, 2) << PrintModule(*fused);
  }
  EXPECT_EQ(reduce_fusions, 1) << PrintModule(*fused);
  ExpectSameResults(*m, *fused);
}

// A reduce of another value, or of other rows of the same value, is no sibling.
TEST(RowFusion, ReducesOfOtherValuesOrRowsAreNoSiblings) {
  auto m = Parse(R"(
func.func @main(%x: tensor<16x128xf32>, %w: tensor<16x128xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<32xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %a = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<16xf32>
  %b = stablehlo.reduce(%w init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<16xf32>
  %r = stablehlo.reshape %x : (tensor<16x128xf32>) -> tensor<32x64xf32>
  %c = stablehlo.reduce(%r init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<32x64xf32>, tensor<f32>) -> tensor<32xf32>
  return %a, %b, %c : tensor<16xf32>, tensor<16xf32>, tensor<32xf32>
})");
  ASSERT_NE(m, nullptr);
  auto fused = RowFuse(*m);
  ASSERT_NE(fused, nullptr);
  for (const auto& instr : fused->entry()->instructions()) {
    EXPECT_NE(instr->opcode(), Opcode::kFusion) << PrintModule(*fused);
  }
}

}  // namespace
}  // namespace xjit::testing
