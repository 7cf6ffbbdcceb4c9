// Column fusion (passes/elementwise_fusion.h with FusionOptions::column_reduce):
// which reduces of leading dims join a cluster, that the fused region passes
// shape inference (and that shape inference refuses regions a backend could
// not run in one pass), and that the fused graph computes what the original
// does on the reference backend and on cpu (row_fusion.cc's column mode),
// with one chunk of rows and with many.
#include <random>
#include <string>
#include <tuple>

#include "cpu_test_util.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/backends/cpu/reduce.h"
#include "xjit/passes/elementwise_fusion.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::testing {
namespace {


int ReducesInFusions(const Module& m) {
  int n = 0;
  for (const auto& instr : m.entry()->instructions()) {
    if (instr->opcode() == Opcode::kFusion) n += Census(*instr->called_computations()[0])["reduce"];
  }
  return n;
}

void ExpectSameResults(const Module& original, const Module& fused, double tolerance = 1e-5) {
  cpu::testing::ExpectFusedMatchesOriginal(original, fused, tolerance, 5);
}

std::string Tensor(const std::vector<int64_t>& dims, const std::string& type = "f32") {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + type + ">";
}

// The sum of squares and the maximum of exp of each column, and 2x + 1
// besides: one fusion of both reduces, over one chunk of rows and many.
TEST(ColumnFusion, SiblingReducesAndAWholeResultAreOneFusion) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{2, 2}, {3, 5000}, {4096, 8},
                            {257, 1024}, {2048, 300}}) {
    const std::string t = Tensor({rows, cols}), c = Tensor({cols});
    auto m = ParseOrFail("func.func @main(%x: " + t + ") -> (" + c + ", " + c + ", " + t + ") {\n"
                   "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
                   "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
                   "  %one = stablehlo.constant dense<1.0> : " + t + "\n"
                   "  %sq = stablehlo.multiply %x, %x : " + t + "\n"
                   "  %s = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across "
                   "dimensions = [0] : (" + t + ", tensor<f32>) -> " + c + "\n"
                   "  %e = stablehlo.exponential %x : " + t + "\n"
                   "  %m = stablehlo.reduce(%e init: %ninf) applies stablehlo.maximum across "
                   "dimensions = [0] : (" + t + ", tensor<f32>) -> " + c + "\n"
                   "  %d = stablehlo.add %x, %x : " + t + "\n"
                   "  %y = stablehlo.add %d, %one : " + t + "\n"
                   "  return %s, %m, %y : " + c + ", " + c + ", " + t + "\n}");
    ASSERT_NE(m, nullptr);
    auto fused = Fuse(*m, cpu::testing::CpuFusionOptions());
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(Census(*fused->entry())["fusion"], 1) << PrintModule(*fused);
    EXPECT_EQ(ReducesInFusions(*fused), 2) << PrintModule(*fused);
    ExpectSameResults(*m, *fused);
  }
}

TEST(ColumnFusion, OffWithoutTheOption) {
  auto m = ParseOrFail(R"(
func.func @main(%x: tensor<8x16xf32>) -> tensor<16xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<8x16xf32>
  %f = stablehlo.multiply %e, %x : tensor<8x16xf32>
  %c = stablehlo.reduce(%f init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<16xf32>
  return %c : tensor<16xf32>
})");
  ASSERT_NE(m, nullptr);
  auto fused = Fuse(*m, passes::FusionOptions{});
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(Census(*fused->entry())["reduce"], 1);
  EXPECT_EQ(ReducesInFusions(*fused), 0);
}

// Standardised columns, (x - mean) / std: the mean's reduce and the
// variance's (of values computed from the mean, spread back over the rows)
// are two column fusions; what is computed from their results stays outside.
// The leading dims are two (a 3-D input reduced over dims 0 and 1), and a
// weight per row and a value per column are read in place.
TEST(ColumnFusion, StandardisedColumnsOverTwoLeadingDims) {
  auto m = ParseOrFail(R"(
func.func @main(%x: tensor<40x30x70xf32>, %w: tensor<40x30xf32>, %g: tensor<70xf32>) -> (tensor<40x30x70xf32>, tensor<70xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<1200.0> : tensor<70xf32>
  %wb = stablehlo.broadcast_in_dim %w, dims = [0, 1] : (tensor<40x30xf32>) -> tensor<40x30x70xf32>
  %xw = stablehlo.multiply %x, %wb : tensor<40x30x70xf32>
  %s = stablehlo.reduce(%xw init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<40x30x70xf32>, tensor<f32>) -> tensor<70xf32>
  %mean = stablehlo.divide %s, %n : tensor<70xf32>
  %mb = stablehlo.broadcast_in_dim %mean, dims = [2] : (tensor<70xf32>) -> tensor<40x30x70xf32>
  %d = stablehlo.subtract %xw, %mb : tensor<40x30x70xf32>
  %sq = stablehlo.multiply %d, %d : tensor<40x30x70xf32>
  %v = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<40x30x70xf32>, tensor<f32>) -> tensor<70xf32>
  %vn = stablehlo.divide %v, %n : tensor<70xf32>
  %r = stablehlo.rsqrt %vn : tensor<70xf32>
  %rg = stablehlo.multiply %r, %g : tensor<70xf32>
  %rb = stablehlo.broadcast_in_dim %rg, dims = [2] : (tensor<70xf32>) -> tensor<40x30x70xf32>
  %y = stablehlo.multiply %d, %rb : tensor<40x30x70xf32>
  return %y, %mean : tensor<40x30x70xf32>, tensor<70xf32>
})");
  ASSERT_NE(m, nullptr);
  auto fused = Fuse(*m, cpu::testing::CpuFusionOptions());
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(ReducesInFusions(*fused), 2) << PrintModule(*fused);
  EXPECT_EQ(Census(*fused->entry())["reduce"], 0) << PrintModule(*fused);
  ExpectSameResults(*m, *fused);
}

// Integer and boolean columns, and bfloat16 products summed in float32 (as
// jnp.sum of bfloat16 traces).
TEST(ColumnFusion, OtherElementTypes) {
  for (auto [type, op, body] : {std::tuple<std::string, std::string, std::string>{
                                    "i32", "multiply", "add"},
                                {"i1", "and", "or"},
                                {"bf16", "multiply", "add"}}) {
    const bool bf16 = type == "bf16";
    const std::string t = Tensor({300, 90}, type), acc = bf16 ? "f32" : type;
    const std::string ta = Tensor({300, 90}, acc), c = Tensor({90}, acc);
    const std::string init = type == "i1" ? "false" : type == "i32" ? "0" : "0.0";
    const std::string widen =
        bf16 ? "  %pa = stablehlo.convert %p : (" + t + ") -> " + ta + "\n"
             : "  %pa = stablehlo.add %p, %p : " + t + "\n";
    auto m = ParseOrFail("func.func @main(%x: " + t + ", %y: " + t + ") -> " + c + " {\n"
                   "  %z = stablehlo.constant dense<" + init + "> : " + Tensor({}, acc) + "\n"
                   "  %p = stablehlo." + op + " %x, %y : " + t + "\n" + widen +
                   "  %s = stablehlo.reduce(%pa init: %z) applies stablehlo." + body +
                   " across dimensions = [0] : (" + ta + ", " + Tensor({}, acc) + ") -> " + c +
                   "\n  return %s : " + c + "\n}");
    ASSERT_NE(m, nullptr);
    auto fused = Fuse(*m, cpu::testing::CpuFusionOptions());
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(ReducesInFusions(*fused), 1) << type << "\n" << PrintModule(*fused);
    ExpectSameResults(*m, *fused);
  }
}

// A row reduce and a column reduce of one value: not one region (a region's
// reduces are all of rows or all of columns).
TEST(ColumnFusion, RowAndColumnReducesOfOneValueAreApart) {
  auto m = ParseOrFail(R"(
func.func @main(%x: tensor<64x48xf32>) -> (tensor<48xf32>, tensor<64xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sq = stablehlo.multiply %x, %x : tensor<64x48xf32>
  %c = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<64x48xf32>, tensor<f32>) -> tensor<48xf32>
  %r = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x48xf32>, tensor<f32>) -> tensor<64xf32>
  return %c, %r : tensor<48xf32>, tensor<64xf32>
})");
  ASSERT_NE(m, nullptr);
  auto fused = Fuse(*m, cpu::testing::CpuFusionOptions());
  ASSERT_NE(fused, nullptr);
  for (const auto& instr : fused->entry()->instructions()) {
    if (instr->opcode() != Opcode::kFusion) continue;
    EXPECT_LE(Census(*instr->called_computations()[0])["reduce"], 1) << PrintModule(*fused);
  }
  ExpectSameResults(*m, *fused);
}

// Shape inference refuses a region mixing row and column reduces, and one
// computing from a column reduce's result, so a hand-written fusion cannot
// reach the backends.
TEST(ColumnFusion, ShapeInferenceRefusesWhatOnePassCannotRun) {
  const std::string mixed = R"(
func.func @main(%x: tensor<4x6xf32>) -> (tensor<6xf32>, tensor<4xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %f:2 = "xjit.fusion"(%x, %z) ({
  ^bb0(%a: tensor<4x6xf32>, %zero: tensor<f32>):
    %c = stablehlo.reduce(%a init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>
    %r = stablehlo.reduce(%a init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    stablehlo.return %c, %r : tensor<6xf32>, tensor<4xf32>
  }) : (tensor<4x6xf32>, tensor<f32>) -> (tensor<6xf32>, tensor<4xf32>)
  return %f#0, %f#1 : tensor<6xf32>, tensor<4xf32>
})";
  auto m = ParseModule(mixed);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("rows"), std::string::npos) << m.status();
  const std::string computed_from = R"(
func.func @main(%x: tensor<4x6xf32>) -> tensor<6xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %f = "xjit.fusion"(%x, %z) ({
  ^bb0(%a: tensor<4x6xf32>, %zero: tensor<f32>):
    %c = stablehlo.reduce(%a init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>
    %e = stablehlo.exponential %c : tensor<6xf32>
    stablehlo.return %e : tensor<6xf32>
  }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>
  return %f : tensor<6xf32>
})";
  m = ParseModule(computed_from);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("elements"), std::string::npos) << m.status();
}

}  // namespace
}  // namespace xjit::testing
