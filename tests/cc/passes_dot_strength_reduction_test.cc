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
  const std::string text = Dot("5x7xf32", "7xf32", "5xf32",
                               "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]");
  bool changed = false;
  const std::string out = RunPass(Reduce, text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_THAT(out, HasSubstr("broadcast_dimensions = array<i64: 1>} : (tensor<7xf32>) -> tensor<5x7xf32>"));
  EXPECT_THAT(out, HasSubstr("stablehlo.multiply\"(%arg0, %0)"));
  EXPECT_THAT(out, HasSubstr("dimensions = array<i64: 1>"));
  EXPECT_THAT(out, Not(HasSubstr("dot_general")));
  ExpectPassKeepsValues(Reduce, text);
}

TEST(DotStrengthReduction, VectorTimesMatrixKeepsTheOperandOrder) {
  const std::string text = Dot("7xf64", "7x5xf64", "5xf64",
                               "lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]");
  const std::string out = RunPass(Reduce, text);
  EXPECT_THAT(out, HasSubstr("broadcast_dimensions = array<i64: 0>} : (tensor<7xf64>) -> tensor<7x5xf64>"));
  EXPECT_THAT(out, HasSubstr("stablehlo.multiply\"(%0, %arg1)"));
  ExpectPassKeepsValues(Reduce, text);
}

TEST(DotStrengthReduction, RowDotsAndDotsOfVectors) {
  const std::string rows = Dot("4x6xf32", "4x6xf32", "4xf32",
                               "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
                               "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]");
  EXPECT_THAT(RunPass(Reduce, rows), Not(HasSubstr("dot_general")));
  ExpectPassKeepsValues(Reduce, rows);
  const std::string vectors =
      Dot("6xf32", "6xf32", "f32", "lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]");
  EXPECT_THAT(RunPass(Reduce, vectors), HasSubstr("(tensor<6xf32>, tensor<f32>) -> tensor<f32>"));
  ExpectPassKeepsValues(Reduce, vectors);
}

TEST(DotStrengthReduction, BatchDimsAfterFreeOnesAreTransposedIntoPlace) {
  // The matrix [M, B, K] with batch dim 1: the sum is [M, B], the dot [B, M].
  const std::string text = Dot("3x2x4xf32", "2x4xf32", "2x3xf32",
                               "lhs_batching_dimensions = [1], rhs_batching_dimensions = [0], "
                               "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]");
  const std::string out = RunPass(Reduce, text);
  EXPECT_THAT(out, HasSubstr("permutation = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>"));
  ExpectPassKeepsValues(Reduce, text);
}

TEST(DotStrengthReduction, LeavesMatricesHalvesAndCrossedSpreadsAlone) {
  const std::string matrices = Dot("5x7xf32", "7x3xf32", "5x3xf32",
                                   "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]");
  const std::string halves = Dot("5x7xbf16", "7xbf16", "5xbf16",
                                 "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]");
  const std::string integers = Dot("5x7xi32", "7xi32", "5xi32",
                                   "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]");
  // The vector's dims [K, B] would land on the matrix's [B, K] crossed.
  const std::string crossed = Dot("2x4x3xf32", "4x2xf32", "2x3xf32",
                                  "lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], "
                                  "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]");
  for (const std::string& text : {matrices, halves, integers, crossed}) {
    bool changed = true;
    EXPECT_EQ(RunPass(Reduce, text, &changed), text);
    EXPECT_FALSE(changed);
  }
}

}  // namespace
}  // namespace xjit::testing
