// Recomputation in the fusion pass (passes/elementwise_fusion.h): a cheap
// cluster value computed from one full input and broadcasts is computed again
// inside the fusions that read it, not written out and read back; values that
// cost more to recompute than to read stay written once. Each fused graph is
// run against the original on the reference backend and on cpu.
#include <string>

#include "cpu_test_util.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/backends/cpu/reduce.h"
#include "xjit/passes/elementwise_fusion.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::testing {
namespace {

// How many results of `elements` elements the fusions of the entry return in
// all (the full-size values they write).
int FusionResults(const Module& m, int64_t elements = 300 * 70) {
  int n = 0;
  for (const auto& instr : m.entry()->instructions()) {
    if (instr->opcode() != Opcode::kFusion) continue;
    const Shape& s = instr->shape();
    if (!s.is_tuple) {
      n += s.num_elements() == elements;
      continue;
    }
    for (const Shape& t : s.tuple_shapes) n += t.num_elements() == elements;
  }
  return n;
}

// (x - mean) / std over columns. `centred`: how the centred value is made
// and what the final op is, between the mean and the variance.
std::string Standardise(const std::string& centred) {
  return R"(
func.func @main(%x: tensor<300x70xf32>) -> tensor<300x70xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<300.0> : tensor<70xf32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<300x70xf32>, tensor<f32>) -> tensor<70xf32>
  %mean = stablehlo.divide %s, %n : tensor<70xf32>
  %mb = stablehlo.broadcast_in_dim %mean, dims = [1] : (tensor<70xf32>) -> tensor<300x70xf32>
)" + centred + R"(  %sq = stablehlo.multiply %d2, %d2 : tensor<300x70xf32>
  %v = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<300x70xf32>, tensor<f32>) -> tensor<70xf32>
  %vn = stablehlo.divide %v, %n : tensor<70xf32>
  %r = stablehlo.rsqrt %vn : tensor<70xf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [1] : (tensor<70xf32>) -> tensor<300x70xf32>
  %y = stablehlo.multiply %d1, %rb : tensor<300x70xf32>
  return %y : tensor<300x70xf32>
})";
}

// One centred value: it feeds the variance's column fusion and the final
// multiply; both compute it, neither writes it. Then as jnp.std traces it:
// a first centred value used only after the variance's fusion, which it
// joined because it was open, moves to the final fusion.
TEST(FusionRecompute, ACentredValueFeedingTwoFusionsIsComputedInBoth) {
  for (const char* centred :
       {"  %d1 = stablehlo.subtract %x, %mb : tensor<300x70xf32>\n"
        "  %d2 = stablehlo.add %d1, %zb : tensor<300x70xf32>\n",
        "  %d1 = stablehlo.subtract %x, %mb : tensor<300x70xf32>\n"
        "  %d2 = stablehlo.subtract %x, %mb : tensor<300x70xf32>\n"}) {
    const std::string zero_splat =
        "  %zb = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<300x70xf32>\n";
    auto m = ParseOrFail(Standardise(zero_splat + centred));
    ASSERT_NE(m, nullptr);
    auto fused = Fuse(*m, cpu::testing::CpuFusionOptions());
    ASSERT_NE(fused, nullptr);
    // The variance's fusion returns only the variance; the final one only y.
    EXPECT_EQ(FusionResults(*fused), 1) << PrintModule(*fused);
    EXPECT_EQ(Census(*fused->entry())["subtract"], 0) << PrintModule(*fused);
    cpu::testing::ExpectFusedMatchesOriginal(*m, *fused, 1e-5, 5);
  }
}

// Values kept written once: one read of two full inputs (recomputing it reads
// as much as reading it back), an exponential (costs more than a read), a
// function result (written anyway), and a value read by an op no fusion holds.
TEST(FusionRecompute, CostlyValuesAreWrittenOnce) {
  const char* cases[] = {
      "  %d = stablehlo.subtract %x, %z : tensor<300x70xf32>\n",
      "  %e = stablehlo.subtract %x, %mb : tensor<300x70xf32>\n"
      "  %d = stablehlo.exponential %e : tensor<300x70xf32>\n",
  };
  for (const char* producer : cases) {
    auto m = ParseOrFail(std::string(R"(
func.func @main(%x: tensor<300x70xf32>, %z: tensor<300x70xf32>) -> tensor<300x70xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<300x70xf32>, tensor<f32>) -> tensor<70xf32>
  %mb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<70xf32>) -> tensor<300x70xf32>
)") + producer + R"(  %sq = stablehlo.multiply %d, %d : tensor<300x70xf32>
  %v = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<300x70xf32>, tensor<f32>) -> tensor<70xf32>
  %r = stablehlo.rsqrt %v : tensor<70xf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [1] : (tensor<70xf32>) -> tensor<300x70xf32>
  %y = stablehlo.multiply %d, %rb : tensor<300x70xf32>
  %w = stablehlo.add %y, %rb : tensor<300x70xf32>
  return %w : tensor<300x70xf32>
})");
    ASSERT_NE(m, nullptr);
    auto fused = Fuse(*m, cpu::testing::CpuFusionOptions());
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(FusionResults(*fused), 2) << PrintModule(*fused);  // d and w
    cpu::testing::ExpectFusedMatchesOriginal(*m, *fused, 1e-4, 5);
  }
  auto m = ParseOrFail(R"(
func.func @main(%x: tensor<300x70xf32>, %w: tensor<70x8xf32>) -> (tensor<300x70xf32>, tensor<300x70xf32>, tensor<300x8xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<300x70xf32>, tensor<f32>) -> tensor<70xf32>
  %mb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<70xf32>) -> tensor<300x70xf32>
  %d = stablehlo.subtract %x, %mb : tensor<300x70xf32>
  %sq = stablehlo.multiply %d, %d : tensor<300x70xf32>
  %v = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<300x70xf32>, tensor<f32>) -> tensor<70xf32>
  %rb = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<70xf32>) -> tensor<300x70xf32>
  %y = stablehlo.multiply %d, %rb : tensor<300x70xf32>
  %p = stablehlo.dot_general %d, %w, contracting_dims = [1] x [0] : (tensor<300x70xf32>, tensor<70x8xf32>) -> tensor<300x8xf32>
  return %y, %d, %p : tensor<300x70xf32>, tensor<300x70xf32>, tensor<300x8xf32>
})");
  ASSERT_NE(m, nullptr);
  auto fused = Fuse(*m, cpu::testing::CpuFusionOptions());
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(Census(*fused->entry())["subtract"], 0) << PrintModule(*fused);
  EXPECT_EQ(FusionResults(*fused), 2) << PrintModule(*fused);  // d and y
  cpu::testing::ExpectFusedMatchesOriginal(*m, *fused, 1e-4, 5);
}

// Without row or column fusion (the CUDA backend's options): a value read by
// two element-wise fusions apart (a reduce between them) is computed in both.
TEST(FusionRecompute, PlainFusionsRecomputeToo) {
  auto m = ParseOrFail(R"(
func.func @main(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %t = stablehlo.constant dense<2.0> : tensor<f32>
  %two = stablehlo.broadcast_in_dim %t, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
  %a = stablehlo.multiply %x, %two : tensor<64x32xf32>
  %b = stablehlo.add %a, %a : tensor<64x32xf32>
  %e = stablehlo.exponential %b : tensor<64x32xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x32xf32>, tensor<f32>) -> tensor<f32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
  %c = stablehlo.multiply %a, %sb : tensor<64x32xf32>
  %y = stablehlo.add %c, %sb : tensor<64x32xf32>
  return %y : tensor<64x32xf32>
})");
  ASSERT_NE(m, nullptr);
  auto fused = Fuse(*m, passes::FusionOptions{});
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(Census(*fused->entry())["fusion"], 2) << PrintModule(*fused);
  EXPECT_EQ(FusionResults(*fused, 64 * 32), 2) << PrintModule(*fused);  // e and y: not a
  cpu::testing::ExpectFusedMatchesOriginal(*m, *fused, 1e-5, 5);
}

}  // namespace
}  // namespace xjit::testing
