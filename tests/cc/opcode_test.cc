// The op schema (ir/opcode.h): names round-trip through the hash-map
// ParseOpcode, and the trait table is consistent with itself.
#include "xjit/ir/opcode.h"

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"
#include "xjit/backends/cpu/supported_ops.h"
#include "xjit/backends/reference/supported_ops.h"
#include "xjit/ir/attributes.h"

namespace xjit {
namespace {

TEST(Opcode, NamesRoundTripAndAreUnique) {
  absl::flat_hash_set<std::string> names;
  for (int i = 0; i < kNumOpcodes; ++i) {
    Opcode op = static_cast<Opcode>(i);
    std::string name(OpcodeName(op));
    EXPECT_TRUE(names.insert(name).second) << name;
    absl::StatusOr<Opcode> parsed = ParseOpcode(name);
    ASSERT_TRUE(parsed.ok()) << name;
    EXPECT_EQ(*parsed, op);
    absl::StatusOr<Opcode> prefixed = ParseOpcode("stablehlo." + name);
    ASSERT_TRUE(prefixed.ok()) << name;
    EXPECT_EQ(*prefixed, op);
  }
  absl::StatusOr<Opcode> unknown = ParseOpcode("stablehlo.all_to_all");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "unknown op 'all_to_all'");
}

TEST(Opcode, TraitsAgreeWithEachOther) {
  for (int i = 0; i < kNumOpcodes; ++i) {
    Opcode op = static_cast<Opcode>(i);
    const OpTraits& t = GetOpTraits(op);
    SCOPED_TRACE(t.name);
    if (IsElementwiseUnary(op)) EXPECT_EQ(t.arity, OpArity::kUnary);
    if (IsElementwiseBinary(op)) EXPECT_EQ(t.arity, OpArity::kBinary);
    if (IsElementwiseTernary(op)) EXPECT_EQ(t.arity, OpArity::kTernary);
    if (IsCommutative(op)) EXPECT_TRUE(IsElementwiseBinary(op));
    if (CallsFunction(op)) EXPECT_EQ(NumRegions(op), 0);
    // Every struct an op names describes its fields (NoAttrs has none).
    EXPECT_EQ(DescribeAttrsFields(t.attrs).empty(), t.attrs == AttrsKind::kNoAttrs);
    EXPECT_TRUE(cpu::SupportsOp(op));
    EXPECT_TRUE(reference::SupportsOp(op));
  }
  EXPECT_TRUE(IsElementwise(Opcode::kConvert));
  EXPECT_TRUE(IsElementwise(Opcode::kCompare));
  EXPECT_FALSE(IsElementwise(Opcode::kBroadcastInDim));
  EXPECT_TRUE(IsCommutative(Opcode::kAdd));
  EXPECT_FALSE(IsCommutative(Opcode::kSubtract));
  EXPECT_EQ(NumCalledComputations(Opcode::kReduce), 1);
  EXPECT_EQ(NumCalledComputations(Opcode::kCall), 1);
  EXPECT_EQ(NumCalledComputations(Opcode::kAdd), 0);
  EXPECT_TRUE(HasMultipleResults(Opcode::kReduce));
  EXPECT_FALSE(HasMultipleResults(Opcode::kTuple));
  EXPECT_TRUE(DeclaresResultType(Opcode::kReshape));
  EXPECT_FALSE(DeclaresResultType(Opcode::kTranspose));
  EXPECT_EQ(OpcodeAttrsKind(Opcode::kSlice), AttrsKind::kSliceAttrs);
  EXPECT_EQ(AttrsKindName(AttrsKind::kDotGeneralAttrs), "DotGeneralAttrs");
  EXPECT_EQ(OpFamilyName(OpcodeFamily(Opcode::kPad)), "data_movement");
  EXPECT_EQ(cpu::SupportedOps().size(), static_cast<size_t>(kNumOpcodes));
}

}  // namespace
}  // namespace xjit
