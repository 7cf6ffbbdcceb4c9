// dot_general canonicalisation: groups of dimensions collapse to one each by
// reshapes; operands out of group order are transposed only when asked.
#include "xjit/passes/dot_canonicalization.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pass_test_util.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using passes::DotCanonicalizationOptions;
using passes::RunDotCanonicalization;

absl::StatusOr<bool> Reshaping(Module& m) { return RunDotCanonicalization(m); }
absl::StatusOr<bool> Transposing(Module& m) {
  DotCanonicalizationOptions options;
  options.transpose_operands = true;
  return RunDotCanonicalization(m, options);
}

TEST(DotCanonicalization, CollapsesGroupsWithReshapes) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2x3x4x5xf32>, %arg1: tensor<2x5x6xf32>) -> (tensor<2x3x4x6xf32>) {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [1]>} : (tensor<2x3x4x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x4x6xf32>
    "func.return"(%0) : (tensor<2x3x4x6xf32>) -> ()
  }
}
)";
  bool changed = false;
  EXPECT_EQ(RunPass(Reshaping, text, &changed), R"(module @m {
  func.func @main(%arg0: tensor<2x3x4x5xf32>, %arg1: tensor<2x5x6xf32>) -> (tensor<2x3x4x6xf32>) {
    %0 = "stablehlo.reshape"(%arg0) : (tensor<2x3x4x5xf32>) -> tensor<2x12x5xf32>
    %1 = "stablehlo.dot_general"(%0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<2x12x5xf32>, tensor<2x5x6xf32>) -> tensor<2x12x6xf32>
    %2 = "stablehlo.reshape"(%1) : (tensor<2x12x6xf32>) -> tensor<2x3x4x6xf32>
    "func.return"(%2) : (tensor<2x3x4x6xf32>) -> ()
  }
}
)");
  EXPECT_TRUE(changed);
  ExpectPassKeepsValues(Reshaping, text);
}

TEST(DotCanonicalization, SeveralContractingAndBatchDimensions) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2x3x4x5xf32>, %arg1: tensor<2x3x4x5x6xf32>) -> (tensor<2x3x6xf32>) {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [2, 3], rhs_contracting_dimensions = [2, 3]>} : (tensor<2x3x4x5xf32>, tensor<2x3x4x5x6xf32>) -> tensor<2x3x6xf32>
    "func.return"(%0) : (tensor<2x3x6xf32>) -> ()
  }
}
)";
  std::string out = RunPass(Reshaping, text);
  EXPECT_THAT(out, HasSubstr("(tensor<6x20xf32>, tensor<6x20x6xf32>) -> tensor<6x6xf32>"));
  ExpectPassKeepsValues(Reshaping, text);
}

TEST(DotCanonicalization, TransposesOnlyWhenAsked) {
  // lhs [K1, M, K2] contracting {0, 2}; rhs [N, K1, K2]: neither in group order.
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<3x4x5xf32>, %arg1: tensor<6x3x5xf32>) -> (tensor<4x6xf32>) {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0, 2], rhs_contracting_dimensions = [1, 2]>} : (tensor<3x4x5xf32>, tensor<6x3x5xf32>) -> tensor<4x6xf32>
    "func.return"(%0) : (tensor<4x6xf32>) -> ()
  }
}
)";
  bool changed = true;
  EXPECT_EQ(RunPass(Reshaping, text, &changed), text);
  EXPECT_FALSE(changed);
  std::string out = RunPass(Transposing, text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_THAT(out, HasSubstr("permutation = array<i64: 1, 0, 2>} : (tensor<3x4x5xf32>) -> tensor<4x3x5xf32>"));
  EXPECT_THAT(out, HasSubstr("permutation = array<i64: 1, 2, 0>} : (tensor<6x3x5xf32>) -> tensor<3x5x6xf32>"));
  EXPECT_THAT(out, HasSubstr("(tensor<4x15xf32>, tensor<15x6xf32>) -> tensor<4x6xf32>"));
  ExpectPassKeepsValues(Transposing, text);
}

TEST(DotCanonicalization, LeavesSimpleDotsAlone) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<4x3xf32>, %arg1: tensor<6x3xf32>, %arg2: tensor<3xf32>) -> (tensor<4x6xf32>, tensor<f32>) {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>} : (tensor<4x3xf32>, tensor<6x3xf32>) -> tensor<4x6xf32>
    %1 = "stablehlo.dot_general"(%arg2, %arg2) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
    "func.return"(%0, %1) : (tensor<4x6xf32>, tensor<f32>) -> ()
  }
}
)";
  bool changed = true;
  EXPECT_EQ(RunPass(Transposing, text, &changed), text);
  EXPECT_FALSE(changed);
}

}  // namespace
}  // namespace xjit::testing
