// Point linearization: point gathers and scatters whose index vectors are a
// concatenation of one column per operand dim index the flattened operand at
// a computed index; gather clamps each column to its dim first, scatter sends
// a point with any column outside to the flat size (skipped).
#include "xjit/passes/point_linearization.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pass_test_util.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<bool> Linearize(Module& m) { return passes::RunPointLinearization(m); }

// x[r, c] as jnp builds it (map = start_index_map), on a 3x4 matrix.
std::string Points(const std::string& index_type, const std::string& map) {
  return R"(module @m {
  func.func @main(%arg0: tensor<3x4xf32>, %arg1: tensor<9x1x)" + index_type + R"(>, %arg2: tensor<9x1x)" + index_type + R"(>) -> (tensor<9xf32>) {
    %0 = "stablehlo.concatenate"(%arg1, %arg2) {dimension = 1 : i64} : (tensor<9x1x)" + index_type + R"(>, tensor<9x1x)" + index_type + R"(>) -> tensor<9x2x)" + index_type + R"(>
    %1 = "stablehlo.gather"(%arg0, %0) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [)" + map + R"(], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>, indices_are_sorted = false} : (tensor<3x4xf32>, tensor<9x2x)" + index_type + R"(>) -> tensor<9xf32>
    "func.return"(%1) : (tensor<9xf32>) -> ()
  }
}
)";
}

TEST(PointLinearization, PointsReadTheFlatOperand) {
  const std::string text = Points("i32", "0, 1");
  bool changed = false;
  const std::string out = RunPass(Linearize, text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_THAT(out, HasSubstr("(tensor<3x4xf32>) -> tensor<12xf32>"));
  EXPECT_THAT(out, HasSubstr("stablehlo.clamp"));
  EXPECT_THAT(out, HasSubstr("dense<4> : tensor<i32>"));  // the row stride
  // The concatenation is left to dead code elimination.
  EXPECT_THAT(out, HasSubstr("(tensor<12xf32>, tensor<9x1xi32>) -> tensor<9xf32>"));
  // The pattern's indices run from -3 to 3: clamped on both sides.
  ExpectPassKeepsValues(Linearize, text);
}

TEST(PointLinearization, ColumnsInAnyOrderAndWideIndices) {
  ExpectPassKeepsValues(Linearize, Points("i32", "1, 0"));
  ExpectPassKeepsValues(Linearize, Points("i64", "0, 1"));
}

TEST(PointLinearization, LeavesSlicesAndUnsignedIndicesAlone) {
  const std::string rows = R"(module @m {
  func.func @main(%arg0: tensor<3x4xf32>, %arg1: tensor<9x1xi32>) -> (tensor<9x4xf32>) {
    %0 = "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>, indices_are_sorted = false} : (tensor<3x4xf32>, tensor<9x1xi32>) -> tensor<9x4xf32>
    "func.return"(%0) : (tensor<9x4xf32>) -> ()
  }
}
)";
  for (const std::string& text : {rows, Points("ui32", "0, 1")}) {
    bool changed = true;
    EXPECT_EQ(RunPass(Linearize, text, &changed), text);
    EXPECT_FALSE(changed);
  }
}

// x.at[r, c].set(u) / .add(u) as jnp builds them, on a 3x4 matrix.
std::string ScatterPoints(const std::string& body, const std::string& map) {
  return R"(module @m {
  func.func @main(%arg0: tensor<3x4xf32>, %arg1: tensor<9x1xi32>, %arg2: tensor<9x1xi32>, %arg3: tensor<9xf32>) -> (tensor<3x4xf32>) {
    %0 = "stablehlo.concatenate"(%arg1, %arg2) {dimension = 1 : i64} : (tensor<9x1xi32>, tensor<9x1xi32>) -> tensor<9x2xi32>
    %1 = "stablehlo.scatter"(%arg0, %0, %arg3) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      )" + body + R"(
    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [)" + map + R"(], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<3x4xf32>, tensor<9x2xi32>, tensor<9xf32>) -> tensor<3x4xf32>
    "func.return"(%1) : (tensor<3x4xf32>) -> ()
  }
}
)";
}

TEST(PointLinearization, ScattersSkipPointsWithAnIndexOutside) {
  const std::string add = R"(%s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ())";
  const std::string set = R"("stablehlo.return"(%b) : (tensor<f32>) -> ())";
  const std::string text = ScatterPoints(add, "0, 1");
  bool changed = false;
  const std::string out = RunPass(Linearize, text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_THAT(out, HasSubstr("(tensor<12xf32>, tensor<9x1xi32>, tensor<9xf32>) -> tensor<12xf32>"));
  EXPECT_THAT(out, HasSubstr("dense<12> : tensor<i32>"));  // outside: past the end
  EXPECT_THAT(out, HasSubstr("(tensor<12xf32>) -> tensor<3x4xf32>"));
  // The pattern's indices run from -3 to 3: points outside on either side.
  ExpectPassKeepsValues(Linearize, text);
  ExpectPassKeepsValues(Linearize, ScatterPoints(set, "0, 1"));
  ExpectPassKeepsValues(Linearize, ScatterPoints(add, "1, 0"));
}

}  // namespace
}  // namespace xjit::testing
