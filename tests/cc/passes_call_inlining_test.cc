// Call inlining: single- and multi-result callees, nested calls, calls in
// regions; the callees disappear and values do not change.
#include "xjit/passes/call_inlining.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pass_test_util.h"
#include "xjit/passes/dead_code_elimination.h"
#include "xjit/passes/tuple_simplification.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using passes::RunCallInlining;

const char kNested[] = R"(module @m {
  func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
    %0 = "func.call"(%arg0) {callee = @outer} : (tensor<2xf32>) -> tensor<2xf32>
    %1 = "func.call"(%0) {callee = @outer} : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%1) : (tensor<2xf32>) -> ()
  }
  func.func @outer(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
    %0 = "stablehlo.exponential"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = "func.call"(%0) {callee = @inner} : (tensor<2xf32>) -> tensor<2xf32>
    %2 = "stablehlo.multiply"(%1, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%2) : (tensor<2xf32>) -> ()
  }
  func.func @inner(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
    %0 = "stablehlo.negate"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }
}
)";

TEST(CallInlining, InlinesNestedCalls) {
  bool changed = false;
  EXPECT_EQ(RunPass(RunCallInlining, kNested, &changed), R"(module @m {
  func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
    %0 = "stablehlo.exponential"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = "stablehlo.negate"(%0) : (tensor<2xf32>) -> tensor<2xf32>
    %2 = "stablehlo.multiply"(%1, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %3 = "stablehlo.exponential"(%2) : (tensor<2xf32>) -> tensor<2xf32>
    %4 = "stablehlo.negate"(%3) : (tensor<2xf32>) -> tensor<2xf32>
    %5 = "stablehlo.multiply"(%4, %2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%5) : (tensor<2xf32>) -> ()
  }
}
)");
  EXPECT_TRUE(changed);
  ExpectPassKeepsValues(RunCallInlining, kNested);
}

TEST(CallInlining, MultiResultCalleeBecomesATupleThatSimplifies) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0:2 = "func.call"(%arg0) {callee = @pair} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    "func.return"(%0#1, %0#0) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }
  func.func @pair(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = "stablehlo.negate"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = "stablehlo.sine"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }
}
)";
  std::string inlined = RunPass(RunCallInlining, text);
  EXPECT_THAT(inlined, HasSubstr("stablehlo.tuple"));
  EXPECT_THAT(inlined, Not(HasSubstr("func.call")));
  ExpectPassKeepsValues(RunCallInlining, text);
  auto all = [](Module& m) -> absl::StatusOr<bool> {
    for (auto pass : {RunCallInlining, passes::RunTupleSimplification,
                      passes::RunDeadCodeElimination}) {
      absl::StatusOr<bool> c = pass(m);
      if (!c.ok()) return c.status();
    }
    return true;
  };
  EXPECT_EQ(RunPass(all, text), R"(module @m {
  func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = "stablehlo.negate"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = "stablehlo.sine"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%1, %0) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }
}
)");
}

TEST(CallInlining, InlinesInsideReduceBodies) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>) -> (tensor<2xf32>) {
    %0 = "stablehlo.reduce"(%arg0, %arg1) ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %1 = "func.call"(%arg2, %arg3) {callee = @plus} : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }
  func.func @plus(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%0) : (tensor<f32>) -> ()
  }
}
)";
  std::string inlined = RunPass(RunCallInlining, text);
  EXPECT_THAT(inlined, Not(HasSubstr("func.call")));
  EXPECT_THAT(inlined, Not(HasSubstr("@plus")));
  EXPECT_THAT(inlined, HasSubstr(R"(%1 = "stablehlo.add"(%arg2, %arg3))"));
  ExpectPassKeepsValues(RunCallInlining, text);
}

TEST(CallInlining, NothingToInline) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
    "func.return"(%arg0) : (tensor<2xf32>) -> ()
  }
}
)";
  bool changed = true;
  EXPECT_EQ(RunPass(RunCallInlining, text, &changed), text);
  EXPECT_FALSE(changed);
}

}  // namespace
}  // namespace xjit::testing
