// Dead-code elimination: unused instructions (also in regions) and
// unreachable computations go, parameters stay, values do not change.
#include "xjit/passes/dead_code_elimination.h"

#include "gtest/gtest.h"
#include "pass_test_util.h"

namespace xjit::testing {
namespace {

using passes::RunDeadCodeElimination;

TEST(DeadCodeElimination, RemovesUnusedInstructionsKeepsParameters) {
  bool changed = false;
  EXPECT_EQ(RunPass(RunDeadCodeElimination, R"(module @m {
  func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>) {
    %0 = "stablehlo.sine"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = "stablehlo.negate"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    %2 = "stablehlo.cosine"(%0) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%1) : (tensor<2xf32>) -> ()
  }
}
)", &changed),
            R"(module @m {
  func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>) {
    %0 = "stablehlo.negate"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }
}
)");
  EXPECT_TRUE(changed);
}

TEST(DeadCodeElimination, CleansRegionsAndDropsUnreachableComputations) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>) -> (tensor<2xf32>) {
    %0 = "stablehlo.reduce"(%arg0, %arg1) ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %1 = "stablehlo.multiply"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %2 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%2) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }
  func.func @unused(%arg0: tensor<f32>) -> (tensor<f32>) {
    "func.return"(%arg0) : (tensor<f32>) -> ()
  }
}
)";
  std::unique_ptr<Module> parsed = Parse(text);
  ASSERT_NE(parsed, nullptr);
  EXPECT_EQ(parsed->computations().size(), 3u);
  EXPECT_EQ(RunPass(RunDeadCodeElimination, text), R"(module @m {
  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>) -> (tensor<2xf32>) {
    %0 = "stablehlo.reduce"(%arg0, %arg1) ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %1 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }
}
)");
  ExpectPassKeepsValues(RunDeadCodeElimination, text);
}

TEST(DeadCodeElimination, LeavesALiveModuleAlone) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = "stablehlo.negate"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }
}
)";
  bool changed = true;
  EXPECT_EQ(RunPass(RunDeadCodeElimination, text, &changed), text);
  EXPECT_FALSE(changed);
}

}  // namespace
}  // namespace xjit::testing
