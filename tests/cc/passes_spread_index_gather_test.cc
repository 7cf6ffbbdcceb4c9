// Spread-index gathers: a gather with batching dims whose indices repeat
// along them (a broadcast) reads those dims as whole windows from the
// broadcast's source.
#include "xjit/passes/spread_index_gather.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pass_test_util.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<bool> Spread(Module& m) { return passes::RunSpreadIndexGather(m); }

// take_along_axis(x, p[:, None], axis=0) on a 5x4 matrix, as jnp builds it.
constexpr char kRows[] = R"(module @m {
  func.func @main(%arg0: tensor<5x4xf32>, %arg1: tensor<6x1xi32>) -> (tensor<6x4xf32>) {
    %0 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<6x1xi32>) -> tensor<6x4xi32>
    %1 = "stablehlo.reshape"(%0) : (tensor<6x4xi32>) -> tensor<6x4x1xi32>
    %2 = "stablehlo.gather"(%arg0, %1) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], operand_batching_dims = [1], start_indices_batching_dims = [1], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1>, indices_are_sorted = false} : (tensor<5x4xf32>, tensor<6x4x1xi32>) -> tensor<6x4xf32>
    "func.return"(%2) : (tensor<6x4xf32>) -> ()
  }
}
)";

TEST(SpreadIndexGather, OneIndexPerRowGathersRows) {
  bool changed = false;
  const std::string out = RunPass(Spread, kRows, &changed);
  EXPECT_TRUE(changed);
  EXPECT_THAT(out, HasSubstr("offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
                             "index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>"));
  EXPECT_THAT(out, HasSubstr("(tensor<5x4xf32>, tensor<6x1xi32>) -> tensor<6x4xf32>"));
  // The pattern's indices run from -3 to 3: clamped as before.
  ExpectPassKeepsValues(Spread, kRows);
}

TEST(SpreadIndexGather, ColumnsAndThreeDims) {
  // take_along_axis(x, q[None, :], axis=1): one index per column.
  const std::string columns = R"(module @m {
  func.func @main(%arg0: tensor<5x4xf32>, %arg1: tensor<1x7xi32>) -> (tensor<5x7xf32>) {
    %0 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<1x7xi32>) -> tensor<5x7xi32>
    %1 = "stablehlo.reshape"(%0) : (tensor<5x7xi32>) -> tensor<5x7x1xi32>
    %2 = "stablehlo.gather"(%arg0, %1) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1>, indices_are_sorted = false} : (tensor<5x4xf32>, tensor<5x7x1xi32>) -> tensor<5x7xf32>
    "func.return"(%2) : (tensor<5x7xf32>) -> ()
  }
}
)";
  EXPECT_THAT(RunPass(Spread, columns), HasSubstr("offset_dims = [0]"));
  ExpectPassKeepsValues(Spread, columns);
  // Along the middle axis of [3, 5, 4], indices [3, 6, 1]: spread over the last dim only.
  const std::string middle = R"(module @m {
  func.func @main(%arg0: tensor<3x5x4xf32>, %arg1: tensor<3x6x1xi32>) -> (tensor<3x6x4xf32>) {
    %0 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 0, 1, 2>} : (tensor<3x6x1xi32>) -> tensor<3x6x4xi32>
    %1 = "stablehlo.reshape"(%0) : (tensor<3x6x4xi32>) -> tensor<3x6x4x1xi32>
    %2 = "stablehlo.gather"(%arg0, %1) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0, 2], start_indices_batching_dims = [0, 2], start_index_map = [1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 1>, indices_are_sorted = false} : (tensor<3x5x4xf32>, tensor<3x6x4x1xi32>) -> tensor<3x6x4xf32>
    "func.return"(%2) : (tensor<3x6x4xf32>) -> ()
  }
}
)";
  bool changed = false;
  EXPECT_EQ(RunPass(Spread, middle, &changed), middle);  // dim 0 is not spread
  EXPECT_FALSE(changed);
}

TEST(SpreadIndexGather, LeavesFullIndicesAlone) {
  const std::string full = R"(module @m {
  func.func @main(%arg0: tensor<5x4xf32>, %arg1: tensor<6x4x1xi32>) -> (tensor<6x4xf32>) {
    %0 = "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], operand_batching_dims = [1], start_indices_batching_dims = [1], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1>, indices_are_sorted = false} : (tensor<5x4xf32>, tensor<6x4x1xi32>) -> tensor<6x4xf32>
    "func.return"(%0) : (tensor<6x4xf32>) -> ()
  }
}
)";
  bool changed = true;
  EXPECT_EQ(RunPass(Spread, full, &changed), full);
  EXPECT_FALSE(changed);
}

}  // namespace
}  // namespace xjit::testing
