// Creation and data-movement reference kernels, with the spec's examples.
#include <cstdint>

#include "gtest/gtest.h"
#include "reference_test_util.h"
#include "xjit/backends/reference/ops.h"

namespace xjit::reference::testing {
namespace {

using I = std::vector<int>;

TEST(ReferenceDataMovement, IotaEveryDimensionAndType) {
  absl::StatusOr<Literal> a = EvalIota(Shape(DType::kS32, {2, 3}), 1);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(Read<int>(*a), (I{0, 1, 2, 0, 1, 2}));
  absl::StatusOr<Literal> b = EvalIota(Shape(DType::kF16, {2, 3}), 0);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(Read<float>(*b), (std::vector<float>{0, 0, 0, 1, 1, 1}));
  absl::StatusOr<Literal> c = EvalIota(Shape(DType::kC64, {3}), 0);
  EXPECT_EQ(Read<std::complex<float>>(*c), (std::vector<std::complex<float>>{{0, 0}, {1, 0}, {2, 0}}));
  EXPECT_FALSE(EvalIota(Shape(DType::kS32, {3}), 1).ok());
}

TEST(ReferenceDataMovement, BroadcastInDimUnsortedDimensions) {
  // Spec example: [[1, 2, 3]] (1x3) with broadcast_dimensions [2, 1] -> 2x3x2.
  Literal x = Lit<int>(DType::kS32, {1, 3}, {1, 2, 3});
  absl::StatusOr<Literal> r = EvalBroadcastInDim(x, {2, 1}, Shape(DType::kS32, {2, 3, 2}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->shape().dims, (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(Read<int>(*r), (I{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  // A transposing broadcast: operand dim 0 -> result dim 1, dim 1 -> dim 0.
  Literal y = Lit<int>(DType::kS32, {2, 3}, {1, 2, 3, 4, 5, 6});
  absl::StatusOr<Literal> t = EvalBroadcastInDim(y, {1, 0}, Shape(DType::kS32, {3, 2}));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Read<int>(*t), (I{1, 4, 2, 5, 3, 6}));
  EXPECT_FALSE(EvalBroadcastInDim(y, {0, 1}, Shape(DType::kS32, {3, 2})).ok());
}

TEST(ReferenceDataMovement, ReshapeTransposeReverse) {
  Literal x = Lit<int>(DType::kS32, {2, 3}, {1, 2, 3, 4, 5, 6});
  absl::StatusOr<Literal> r = EvalReshape(x, Shape(DType::kS32, {3, 2}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Read<int>(*r), (I{1, 2, 3, 4, 5, 6}));
  EXPECT_FALSE(EvalReshape(x, Shape(DType::kS32, {4})).ok());
  absl::StatusOr<Literal> t = EvalTranspose(x, {1, 0});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->shape().dims, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Read<int>(*t), (I{1, 4, 2, 5, 3, 6}));
  // Spec example: 2x3x2 with permutation [2, 1, 0].
  Literal s = Lit<int>(DType::kS32, {2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  absl::StatusOr<Literal> st = EvalTranspose(s, {2, 1, 0});
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(Read<int>(*st), (I{1, 7, 3, 9, 5, 11, 2, 8, 4, 10, 6, 12}));
  EXPECT_FALSE(EvalTranspose(x, {0, 0}).ok());
  // Spec example: reverse [[1, 2], [3, 4], [5, 6]] along dim 1 then dim 0.
  Literal v = Lit<int>(DType::kS32, {3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(Read<int>(*EvalReverse(v, {1})), (I{2, 1, 4, 3, 6, 5}));
  EXPECT_EQ(Read<int>(*EvalReverse(v, {1, 0})), (I{6, 5, 4, 3, 2, 1}));
}

TEST(ReferenceDataMovement, StridedSlice) {
  // Spec example.
  Literal spec = Lit<int64_t>(DType::kS64, {3, 4}, {0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1});
  absl::StatusOr<Literal> sr = EvalSlice(spec, {1, 2}, {3, 4}, {1, 1});
  ASSERT_TRUE(sr.ok());
  EXPECT_EQ(Read<int64_t>(*sr), (std::vector<int64_t>{1, 1, 1, 1}));
  // Rows 1..3, columns 4..8 step 2 of iota(3x8).
  std::vector<int> values(24);
  for (int i = 0; i < 24; ++i) values[i] = i;
  Literal x = Lit<int>(DType::kS32, {3, 8}, values);
  absl::StatusOr<Literal> r = EvalSlice(x, {1, 4}, {3, 8}, {1, 2});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->shape().dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Read<int>(*r), (I{12, 14, 20, 22}));
  absl::StatusOr<Literal> odd = EvalSlice(Vec<int>(DType::kS32, {0, 1, 2, 3, 4, 5, 6}), {1}, {6}, {3});
  EXPECT_EQ(Read<int>(*odd), (I{1, 4}));  // ceil(5 / 3) = 2 elements
  absl::StatusOr<Literal> empty = EvalSlice(x, {2, 2}, {2, 8}, {1, 1});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->shape().num_elements(), 0);
  EXPECT_FALSE(EvalSlice(x, {0, 0}, {4, 8}, {1, 1}).ok());
  EXPECT_FALSE(EvalSlice(x, {0, 0}, {3, 8}, {1, 0}).ok());
  // A stride near INT64_MAX leaves one element (ceil did overflow before).
  absl::StatusOr<Literal> huge = EvalSlice(x, {1, 3}, {3, 8}, {INT64_MAX, INT64_MAX});
  ASSERT_TRUE(huge.ok()) << huge.status();
  EXPECT_EQ(Read<int>(*huge), (I{11}));
}

TEST(ReferenceDataMovement, Concatenate) {
  // Spec example: [[1, 2], [3, 4], [5, 6]] ++ [[7, 8]] along 0.
  Literal a = Lit<int>(DType::kS32, {3, 2}, {1, 2, 3, 4, 5, 6});
  Literal b = Lit<int>(DType::kS32, {1, 2}, {7, 8});
  const Literal* ab[] = {&a, &b};
  absl::StatusOr<Literal> r = EvalConcatenate(ab, 0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Read<int>(*r), (I{1, 2, 3, 4, 5, 6, 7, 8}));
  Literal c = Lit<int>(DType::kS32, {3, 1}, {9, 10, 11});
  const Literal* ac[] = {&a, &c, &a};
  absl::StatusOr<Literal> r1 = EvalConcatenate(ac, 1);
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(Read<int>(*r1), (I{1, 2, 9, 1, 2, 3, 4, 10, 3, 4, 5, 6, 11, 5, 6}));
  EXPECT_FALSE(EvalConcatenate(ab, 1).ok());
}

TEST(ReferenceDataMovement, PadInteriorAndNegative) {
  // Spec example: low [0, 1], high [2, 1], interior [1, 2].
  Literal x = Lit<int>(DType::kS32, {2, 3}, {1, 2, 3, 4, 5, 6});
  absl::StatusOr<Literal> r = EvalPad(x, Scalar(DType::kS32, 0), {0, 1}, {2, 1}, {1, 2});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->shape().dims, (std::vector<int64_t>{5, 9}));
  EXPECT_EQ(Read<int>(*r), (I{0, 1, 0, 0, 2, 0, 0, 3, 0,  //
                              0, 0, 0, 0, 0, 0, 0, 0, 0,  //
                              0, 4, 0, 0, 5, 0, 0, 6, 0,  //
                              0, 0, 0, 0, 0, 0, 0, 0, 0,  //
                              0, 0, 0, 0, 0, 0, 0, 0, 0}));
  // Negative edges crop the interior-padded array: [1 9 2 9 3] -> [9 2 9].
  Literal v = Vec<int>(DType::kS32, {1, 2, 3});
  absl::StatusOr<Literal> n = EvalPad(v, Scalar(DType::kS32, 9), {-1}, {-1}, {1});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(Read<int>(*n), (I{9, 2, 9}));
  absl::StatusOr<Literal> mixed = EvalPad(v, Scalar(DType::kS32, 7), {-2}, {2}, {0});
  EXPECT_EQ(Read<int>(*mixed), (I{3, 7, 7}));
  absl::StatusOr<Literal> f = EvalPad(Vec<double>(DType::kBF16, {1.5}), Scalar(DType::kBF16, -1.0), {1}, {0}, {0});
  EXPECT_EQ(Read<float>(*f), (std::vector<float>{-1.0f, 1.5f}));
  EXPECT_FALSE(EvalPad(v, Scalar(DType::kS32, 0), {-3}, {-1}, {0}).ok());
  EXPECT_FALSE(EvalPad(v, Scalar(DType::kF32, 0.0), {0}, {0}, {0}).ok());
}

}  // namespace
}  // namespace xjit::reference::testing
