// Typed attributes: the checked holder, equality and hashing driven by the
// field lists, the schema description, and the builder's check that an op
// gets its own struct.
#include "xjit/ir/attributes.h"

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/builder/builder.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;

TEST(Attributes, HolderIsCheckedVariant) {
  Attributes a = SliceAttrs{{0}, {2}, {1}};
  EXPECT_EQ(a.kind(), AttrsKind::kSliceAttrs);
  EXPECT_TRUE(a.is<SliceAttrs>());
  EXPECT_FALSE(a.is<PadAttrs>());
  EXPECT_EQ(a.get<SliceAttrs>().limit_indices, std::vector<int64_t>{2});
  EXPECT_EQ(Attributes().kind(), AttrsKind::kNoAttrs);
  EXPECT_EQ(Attributes::Default(AttrsKind::kIotaAttrs).get<IotaAttrs>().iota_dimension, 0);
}

TEST(AttributesDeathTest, WrongStructAborts) {
  Attributes a = TransposeAttrs{{1, 0}};
  EXPECT_DEATH((void)a.get<SliceAttrs>(), "attributes hold TransposeAttrs, asked for SliceAttrs");
}

TEST(Attributes, EqualityAndHashFollowFields) {
  DotGeneralAttrs d1{{{0}, {0}, {2}, {1}}};
  DotGeneralAttrs d2 = d1;
  EXPECT_EQ(d1, d2);
  d2.dot_dimension_numbers.rhs_contracting_dimensions = {2};
  EXPECT_NE(d1, d2);
  CompareAttrs lt{ComparisonDirection::kLt, ComparisonType::kFloat};
  CompareAttrs lt_total{ComparisonDirection::kLt, ComparisonType::kTotalOrder};
  EXPECT_NE(lt, lt_total);
  // Same fields in different structs are different attributes.
  EXPECT_NE(Attributes(ReverseAttrs{{0}}), Attributes(ReduceAttrs{{0}}));
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly({
      Attributes(), Attributes(ReverseAttrs{{0}}), Attributes(ReduceAttrs{{0}}),
      Attributes(ReduceAttrs{{0, 1}}), Attributes(d1), Attributes(d2), Attributes(lt),
      Attributes(lt_total), Attributes(ConstantAttrs{Literal::Scalar<float>(DType::kF32, 1.f)}),
      Attributes(ConstantAttrs{Literal::Scalar<float>(DType::kF32, 2.f)}),
      Attributes(ConstantAttrs{Literal::Scalar<int32_t>(DType::kS32, 1)})}));
}

TEST(Attributes, DescribeFieldsNamesKindsAndTypes) {
  std::vector<FieldInfo> slice = DescribeAttrsFields(AttrsKind::kSliceAttrs);
  ASSERT_EQ(slice.size(), 3u);
  EXPECT_EQ(slice[2].name, "strides");
  EXPECT_EQ(slice[2].kind, FieldKind::kIntList);
  EXPECT_EQ(slice[2].use, FieldUse::kDefaulted);
  std::vector<FieldInfo> cmp = DescribeAttrsFields(AttrsKind::kCompareAttrs);
  ASSERT_EQ(cmp.size(), 2u);
  EXPECT_EQ(cmp[0].type, "ComparisonDirection");
  EXPECT_EQ(cmp[0].enum_values, (std::vector<std::string>{"EQ", "NE", "GE", "GT", "LE", "LT"}));
  std::vector<FieldInfo> dot = DescribeAttrsFields(AttrsKind::kDotGeneralAttrs);
  ASSERT_EQ(dot.size(), 1u);
  EXPECT_EQ(dot[0].kind, FieldKind::kStruct);
  EXPECT_EQ(dot[0].fields.size(), 4u);
  EXPECT_TRUE(DescribeAttrsFields(AttrsKind::kNoAttrs).empty());
}

TEST(Attributes, BuilderRejectsAnotherOpsStruct) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {2, 3}));
  absl::StatusOr<Instruction*> bad = cb->Add(Opcode::kTranspose, {x}, SliceAttrs{});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("transpose: takes TransposeAttrs, got SliceAttrs"));
  absl::StatusOr<Instruction*> add = cb->Add(Opcode::kAdd, {x, x}, ReduceAttrs{{0}});
  ASSERT_FALSE(add.ok());
  EXPECT_THAT(std::string(add.status().message()), HasSubstr("add: takes NoAttrs, got ReduceAttrs"));
  // A declared result type only where the op declares one.
  absl::StatusOr<Instruction*> typed =
      cb->AddWithResultType(Opcode::kNegate, T(DType::kF32, {2, 3}), {x});
  ASSERT_FALSE(typed.ok());
  EXPECT_THAT(std::string(typed.status().message()), HasSubstr("negate: takes no declared result type"));
  // No struct given: the op's struct at its defaults (slice strides filled in).
  absl::StatusOr<Instruction*> s = cb->Add(Opcode::kSlice, {x}, SliceAttrs{{0, 1}, {2, 3}, {}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)->attrs<SliceAttrs>().strides, (std::vector<int64_t>{1, 1}));
  absl::StatusOr<Instruction*> g = cb->Add(Opcode::kTuple, {x});
  ASSERT_TRUE(g.ok());
  absl::StatusOr<Instruction*> e = cb->Add(Opcode::kGetTupleElement, {*g});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)->attrs<GetTupleElementAttrs>().index, 0);
}

}  // namespace
}  // namespace xjit::testing
