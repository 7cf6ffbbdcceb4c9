// CSE: equal instructions merge (and what uses them then merges too);
// different attributes, constants, types or callees keep them apart.
#include "xjit/passes/common_subexpression_elimination.h"

#include "gtest/gtest.h"
#include "pass_test_util.h"
#include "xjit/passes/dead_code_elimination.h"

namespace xjit::testing {
namespace {

using passes::RunCommonSubexpressionElimination;

absl::StatusOr<bool> CseThenClean(Module& m) {
  absl::StatusOr<bool> c = RunCommonSubexpressionElimination(m);
  if (!c.ok()) return c;
  absl::StatusOr<bool> d = passes::RunDeadCodeElimination(m);
  if (!d.ok()) return d;
  return *c;
}

TEST(CommonSubexpressionElimination, MergesChains) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>) {
    %0 = "stablehlo.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
    %1 = "stablehlo.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
    %2 = "stablehlo.add"(%arg0, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %3 = "stablehlo.add"(%arg0, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %4 = "stablehlo.exponential"(%2) : (tensor<2xf32>) -> tensor<2xf32>
    %5 = "stablehlo.exponential"(%3) : (tensor<2xf32>) -> tensor<2xf32>
    %6 = "stablehlo.multiply"(%4, %5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%6) : (tensor<2xf32>) -> ()
  }
}
)";
  bool changed = false;
  EXPECT_EQ(RunPass(CseThenClean, text, &changed), R"(module @m {
  func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>) {
    %0 = "stablehlo.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
    %1 = "stablehlo.add"(%arg0, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %2 = "stablehlo.exponential"(%1) : (tensor<2xf32>) -> tensor<2xf32>
    %3 = "stablehlo.multiply"(%2, %2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%3) : (tensor<2xf32>) -> ()
  }
}
)");
  EXPECT_TRUE(changed);
  ExpectPassKeepsValues(RunCommonSubexpressionElimination, text);
}

TEST(CommonSubexpressionElimination, KeepsDifferentInstructionsApart) {
  // Same op on different operands, operand order, attributes, constants,
  // types; parameters of equal type; reduces with different bodies.
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2x2xf32>, %arg1: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf64>, tensor<2x2xf32>) {
    %0 = "stablehlo.subtract"(%arg0, %arg1) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %1 = "stablehlo.subtract"(%arg1, %arg0) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %2 = "stablehlo.transpose"(%arg0) {permutation = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %3 = "stablehlo.transpose"(%arg0) {permutation = array<i64: 0, 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %4 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %5 = "stablehlo.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
    %6 = "stablehlo.reduce"(%arg0, %4) ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %7 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%7) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
    %8 = "stablehlo.reduce"(%arg0, %5) ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %9 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%9) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
    %10 = "stablehlo.reduce"(%arg0, %4) ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %11 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%11) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
    %12 = "stablehlo.reduce"(%arg0, %4) ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %13 = "stablehlo.maximum"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%13) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
    %14 = "stablehlo.convert"(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf64>
    %15 = "stablehlo.convert"(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    "func.return"(%0, %1, %2, %3, %arg1, %6, %8, %10, %12, %14, %15) : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf64>, tensor<2x2xf32>) -> ()
  }
}
)";
  std::unique_ptr<Module> parsed = Parse(text);
  ASSERT_NE(parsed, nullptr);
  bool changed = true;
  EXPECT_EQ(RunPass(RunCommonSubexpressionElimination, text, &changed), PrintModule(*parsed));
  EXPECT_FALSE(changed);
}

TEST(CommonSubexpressionElimination, MergesReducesWithEqualBodies) {
  // Tracing gives each reduce its own body; equal bodies count as the same.
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<3x4xf32>) -> (tensor<3xf32>) {
    %0 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = "stablehlo.maximum"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%2) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
    %3 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %4 = "stablehlo.reduce"(%arg0, %3) ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %5 = "stablehlo.maximum"(%arg3, %arg4) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%5) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
    %6 = "stablehlo.subtract"(%1, %4) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%6) : (tensor<3xf32>) -> ()
  }
}
)";
  bool changed = false;
  EXPECT_EQ(RunPass(CseThenClean, text, &changed), R"(module @m {
  func.func @main(%arg0: tensor<3x4xf32>) -> (tensor<3xf32>) {
    %0 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = "stablehlo.maximum"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%2) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
    %3 = "stablehlo.subtract"(%1, %1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%3) : (tensor<3xf32>) -> ()
  }
}
)");
  EXPECT_TRUE(changed);
  ExpectPassKeepsValues(RunCommonSubexpressionElimination, text);
}

TEST(CommonSubexpressionElimination, WorksInsideRegions) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2x2xf32>, %arg1: tensor<f32>) -> (tensor<2xf32>) {
    %0 = "stablehlo.reduce"(%arg0, %arg1) ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %1 = "stablehlo.multiply"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %2 = "stablehlo.multiply"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %3 = "stablehlo.add"(%1, %2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%3) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }
}
)";
  bool changed = false;
  std::string out = RunPass(CseThenClean, text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_NE(out.find(R"(%2 = "stablehlo.add"(%1, %1))"), std::string::npos) << out;
  ExpectPassKeepsValues(RunCommonSubexpressionElimination, text);
}

}  // namespace
}  // namespace xjit::testing
