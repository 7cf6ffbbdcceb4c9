// Checked size arithmetic (ir/checked_math.h) and the shape size limit
// (CheckShapeSize): shapes whose element count overflows int64 or whose bytes
// exceed kMaxArrayBytes are rejected where they are made (issue 6, item 1).
#include <cstdint>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/ir/checked_math.h"
#include "xjit/ir/shape.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(CheckedMath, AddAndMulReportOverflow) {
  EXPECT_EQ(CheckedAdd(2, 3), 5);
  EXPECT_EQ(CheckedAdd(kMax, 1), std::nullopt);
  EXPECT_EQ(CheckedAdd(kMin, -1), std::nullopt);
  EXPECT_EQ(CheckedMul(int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
  EXPECT_EQ(CheckedMul(int64_t{1} << 32, int64_t{1} << 32), std::nullopt);
  EXPECT_EQ(CheckedMul(3, 6148914691236517206), std::nullopt);
  EXPECT_EQ(SaturatingMul(int64_t{1} << 32, int64_t{1} << 32), kMax);
  EXPECT_EQ(SaturatingMul(-(int64_t{1} << 32), int64_t{1} << 32), kMin);
  EXPECT_EQ(SaturatingMul(6, 7), 42);
}

TEST(ShapeSize, NumElementsAndByteSizeSaturateInsteadOfWrapping) {
  EXPECT_EQ(T(DType::kF32, {2, 3}).num_elements(), 6);
  EXPECT_EQ(T(DType::kF32, {2, 3}).byte_size(), 24);
  // Before: 2^32 * 2^32 wrapped to 0 (and nbytes == 0).
  EXPECT_EQ(T(DType::kF32, {int64_t{1} << 32, int64_t{1} << 32}).num_elements(), kMax);
  EXPECT_EQ(T(DType::kF32, {int64_t{1} << 62}).byte_size(), kMax);
  EXPECT_EQ(T(DType::kF32, {3, 6148914691236517206}).num_elements(), kMax);
}

TEST(ShapeSize, CheckShapeSizeAcceptsAddressableShapes) {
  EXPECT_TRUE(CheckShapeSize(T(DType::kF32, {}), "x").ok());
  EXPECT_TRUE(CheckShapeSize(T(DType::kF32, {0, 7}), "x").ok());
  EXPECT_TRUE(CheckShapeSize(T(DType::kU8, {kMaxArrayBytes}), "x").ok());
  EXPECT_TRUE(CheckShapeSize(T(DType::kF32, {kMaxArrayBytes / 4}), "x").ok());
  EXPECT_TRUE(CheckShapeSize(Shape::Tuple({T(DType::kF32, {2}), T(DType::kS8, {3})}), "x").ok());
}

void ExpectTooLarge(const Shape& s, absl::string_view phrase) {
  absl::Status st = CheckShapeSize(s, "zeros");
  ASSERT_FALSE(st.ok()) << s.ToString();
  EXPECT_EQ(st.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(st.message()), HasSubstr("zeros: shape "));
  EXPECT_THAT(std::string(st.message()), HasSubstr(std::string(phrase)));
}

TEST(ShapeSize, CheckShapeSizeRejectsTheIssueShapes) {
  ExpectTooLarge(T(DType::kF32, {int64_t{1} << 62}), "2^60 bytes");
  ExpectTooLarge(T(DType::kF32, {int64_t{1} << 31, int64_t{1} << 31}), "2^60 bytes");
  ExpectTooLarge(T(DType::kF32, {int64_t{1} << 32, int64_t{1} << 32}), "overflows int64");
  ExpectTooLarge(T(DType::kF32, {int64_t{1} << 62, 3}), "overflows int64");
  ExpectTooLarge(T(DType::kF32, {3, 6148914691236517206}), "overflows int64");
  ExpectTooLarge(T(DType::kS32, {4611686018427387904}), "2^60 bytes");
  ExpectTooLarge(T(DType::kU8, {kMaxArrayBytes + 1}), "2^60 bytes");
  ExpectTooLarge(T(DType::kF32, {0, int64_t{1} << 32, int64_t{1} << 32}), "overflows int64");
  ExpectTooLarge(Shape::Tuple({T(DType::kF32, {2}), T(DType::kF32, {int64_t{1} << 62})}),
                 "2^60 bytes");
}

TEST(ShapeSize, RowMajorStridesDoNotWrap) {
  EXPECT_EQ(RowMajorStrides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  std::vector<int64_t> s = RowMajorStrides({2, int64_t{1} << 32, int64_t{1} << 32});
  EXPECT_EQ(s[0], kMax);
}

}  // namespace
}  // namespace xjit::testing
