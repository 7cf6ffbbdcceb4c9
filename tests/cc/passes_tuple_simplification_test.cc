// Tuple simplification: get_tuple_element of a tuple, and a tuple rebuilt
// from all its elements in order.
#include "xjit/passes/tuple_simplification.h"

#include "gtest/gtest.h"
#include "pass_test_util.h"
#include "xjit/passes/dead_code_elimination.h"

namespace xjit::testing {
namespace {

using passes::RunTupleSimplification;

absl::StatusOr<bool> SimplifyThenClean(Module& m) {
  absl::StatusOr<bool> c = RunTupleSimplification(m);
  if (!c.ok()) return c;
  absl::StatusOr<bool> d = passes::RunDeadCodeElimination(m);
  if (!d.ok()) return d;
  return *c;
}

TEST(TupleSimplification, ElementOfTuple) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<3xi32>) -> (tensor<3xi32>, tensor<2xf32>) {
    %0 = "stablehlo.tuple"(%arg0, %arg1) : (tensor<2xf32>, tensor<3xi32>) -> tuple<tensor<2xf32>, tensor<3xi32>>
    %1 = "stablehlo.get_tuple_element"(%0) {index = 1 : i32} : (tuple<tensor<2xf32>, tensor<3xi32>>) -> tensor<3xi32>
    %2 = "stablehlo.get_tuple_element"(%0) {index = 0 : i32} : (tuple<tensor<2xf32>, tensor<3xi32>>) -> tensor<2xf32>
    %3 = "stablehlo.negate"(%2) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%1, %3) : (tensor<3xi32>, tensor<2xf32>) -> ()
  }
}
)";
  bool changed = false;
  EXPECT_EQ(RunPass(SimplifyThenClean, text, &changed), R"(module @m {
  func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<3xi32>) -> (tensor<3xi32>, tensor<2xf32>) {
    %0 = "stablehlo.negate"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%arg1, %0) : (tensor<3xi32>, tensor<2xf32>) -> ()
  }
}
)");
  EXPECT_TRUE(changed);
  ExpectPassKeepsValues(RunTupleSimplification, text);
}

TEST(TupleSimplification, TupleOfAllElementsIsTheTuple) {
  // tuple(gte(t, 0), gte(t, 1)) is t; a swapped order is not.
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = "stablehlo.tuple"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
    %1 = "stablehlo.get_tuple_element"(%0) {index = 0 : i32} : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
    %2 = "stablehlo.get_tuple_element"(%0) {index = 1 : i32} : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
    %3 = "stablehlo.tuple"(%2, %1) : (tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
    %4 = "stablehlo.tuple"(%1, %2) : (tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
    %5 = "stablehlo.get_tuple_element"(%3) {index = 0 : i32} : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
    %6 = "stablehlo.get_tuple_element"(%4) {index = 0 : i32} : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
    "func.return"(%5, %6) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }
}
)";
  EXPECT_EQ(RunPass(SimplifyThenClean, text), R"(module @m {
  func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    "func.return"(%arg1, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }
}
)");
  ExpectPassKeepsValues(RunTupleSimplification, text);
}

TEST(TupleSimplification, LeavesReduceResultsAlone) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>, %arg2: tensor<f32>, %arg3: tensor<i32>) -> (tensor<f32>) {
    %0:2 = "stablehlo.reduce"(%arg0, %arg1, %arg2, %arg3) ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<i32>, %arg6: tensor<f32>, %arg7: tensor<i32>):
      %1 = "stablehlo.add"(%arg4, %arg6) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %2 = "stablehlo.add"(%arg5, %arg7) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%1, %2) : (tensor<f32>, tensor<i32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
    "func.return"(%0#0) : (tensor<f32>) -> ()
  }
}
)";
  bool changed = true;
  EXPECT_EQ(RunPass(RunTupleSimplification, text, &changed), text);
  EXPECT_FALSE(changed);
}

}  // namespace
}  // namespace xjit::testing
