// Dot strength reduction: a dot one of whose operands has no free dims
// becomes a multiply by that operand spread over the other, summed over the
// contracting dims (and transposed into the dot's order when needed).
#include "xjit/passes/dot_strength_reduction.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pass_test_util.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

absl::StatusOr<bool> Reduce(Module& m) { return passes::RunDotStrengthReduction(m); }

std::string Dot(const std::string& lhs, const std::string& rhs, const std::string& out,
                const std::string& dims) {
  return R"(module @m {
  func.func @main(%arg0: tensor<)" + lhs + R"(>, %arg1: tensor<)" + rhs + R"(>) -> (tensor<)" + out + R"(>) {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<)" + dims + R"(>} : (tensor<)" + lhs + R"(>, tensor<)" + rhs + R"(>) -> tensor<)" + out + R"(>
    "func.return"(%0) : (tensor<)" + out + R"(>) -> ()
  }
}
)";
}

TEST(DotStrengthReduction, MatrixTimesVector) {
  const std::string text = Dot("160x128xf32", "128xf32", "160xf32",
                               "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]");
  bool changed = false;
  const std::string out = RunPass(Reduce, text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_THAT(out, HasSubstr("broadcast_dimensions = array<i64: 1>} : (tensor<128xf32>) -> tensor<160x128xf32>"));
  EXPECT_THAT(out, HasSubstr("stablehlo.multiply\"(%arg0, %0)"));
  EXPECT_THAT(out, HasSubstr("dimensions = array<i64: 1>"));
  EXPECT_THAT(out, Not(HasSubstr("dot_general")));
  ExpectPassKeepsValues(Reduce, text);
}

TEST(DotStrengthReduction, VectorTimesMatrixKeepsTheOperandOrder) {
  const std::string text = Dot("128xf64", "128x160xf64", "160xf64",
                               "lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]");
  const std::string out = RunPass(Reduce, text);
  EXPECT_THAT(out, HasSubstr("broadcast_dimensions = array<i64: 0>} : (tensor<128xf64>) -> tensor<128x160xf64>"));
  EXPECT_THAT(out, HasSubstr("stablehlo.multiply\"(%0, %arg1)"));
  ExpectPassKeepsValues(Reduce, text);
}

TEST(DotStrengthReduction, RowDotsAndDotsOfVectors) {
  const std::string rows = Dot("128x128xf32", "128x128xf32", "128xf32",
                               "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
                               "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]");
  EXPECT_THAT(RunPass(Reduce, rows), Not(HasSubstr("dot_general")));
  ExpectPassKeepsValues(Reduce, rows);
  const std::string vectors =
      Dot("16384xf32", "16384xf32", "f32",
          "lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]");
  EXPECT_THAT(RunPass(Reduce, vectors), HasSubstr("(tensor<16384xf32>, tensor<f32>) -> tensor<f32>"));
  ExpectPassKeepsValues(Reduce, vectors);
}

TEST(DotStrengthReduction, BatchDimsAfterFreeOnesAreTransposedIntoPlace) {
  // The matrix [M, B, K] with batch dim 1: the sum is [M, B], the dot [B, M].
  const std::string text = Dot("64x4x64xf32", "4x64xf32", "4x64xf32",
                               "lhs_batching_dimensions = [1], rhs_batching_dimensions = [0], "
                               "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]");
  const std::string out = RunPass(Reduce, text);
  EXPECT_THAT(out, HasSubstr("permutation = array<i64: 1, 0>} : (tensor<64x4xf32>) -> tensor<4x64xf32>"));
  ExpectPassKeepsValues(Reduce, text);
}

TEST(DotStrengthReduction, LeavesMatricesHalvesCrossedSpreadsAndSmallDotsAlone) {
  const std::string matrices = Dot("160x128xf32", "128x3xf32", "160x3xf32",
                                   "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]");
  const std::string halves = Dot("160x128xbf16", "128xbf16", "160xbf16",
                                 "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]");
  const std::string integers = Dot("160x128xi32", "128xi32", "160xi32",
                                   "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]");
  // The vector's dims [K, B] would land on the matrix's [B, K] crossed.
  const std::string crossed = Dot("2x128x64xf32", "128x2xf32", "2x64xf32",
                                  "lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], "
                                  "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]");
  const std::string small = Dot("64x64xf32", "64xf32", "64xf32",
                                "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]");
  for (const std::string& text : {matrices, halves, integers, crossed, small}) {
    bool changed = true;
    EXPECT_EQ(RunPass(Reduce, text, &changed), text);
    EXPECT_FALSE(changed);
  }
}

}  // namespace
}  // namespace xjit::testing
