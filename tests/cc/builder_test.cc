// ComputationBuilder: operand ownership, attribute normalisation, parameter
// numbering, error messages with source locations, and Build's verification.
#include "xjit/builder/builder.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace xjit::testing {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(Builder, BuildsAndVerifiesSimpleModule) {
  ModuleBuilder mb("jit_f");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {2, 3}));
  Instruction* y = cb->Parameter(T(DType::kF32, {2, 3}));
  EXPECT_EQ(x->attrs<ParameterAttrs>().number, 0);
  EXPECT_EQ(y->attrs<ParameterAttrs>().number, 1);
  EXPECT_EQ(x->shape(), T(DType::kF32, {2, 3}));
  absl::StatusOr<Instruction*> sum = cb->Add(Opcode::kAdd, {x, y}, {}, {}, "f.py:3");
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ((*sum)->shape(), T(DType::kF32, {2, 3}));
  EXPECT_EQ((*sum)->source_location(), "f.py:3");
  EXPECT_EQ((*sum)->id(), 2);
  absl::StatusOr<Computation*> main = cb->Finish({*sum});
  ASSERT_TRUE(main.ok()) << main.status();
  EXPECT_TRUE(cb->finished());
  absl::StatusOr<std::unique_ptr<Module>> module = mb.Build(*main);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ((*module)->ParameterShapes().size(), 2u);
  EXPECT_EQ((*module)->ResultShapes()[0], T(DType::kF32, {2, 3}));
  // The module is handed over once.
  EXPECT_EQ(mb.Build(*main).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(Builder, ErrorNamesOpAndLocation) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {2, 3}));
  Instruction* y = cb->Parameter(T(DType::kF32, {3}));
  absl::StatusOr<Instruction*> bad = cb->Add(Opcode::kAdd, {x, y}, {}, {}, "f.py:12");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(),
            "add: operands must have the same shape and element type, got tensor<2x3xf32> and "
            "tensor<3xf32> (at f.py:12)");
  absl::StatusOr<Instruction*> no_loc = cb->Add(Opcode::kAdd, {x, y});
  ASSERT_FALSE(no_loc.ok());
  EXPECT_THAT(std::string(no_loc.status().message()), EndsWith("tensor<3xf32>"));
  // Nothing was appended by the failed calls.
  EXPECT_EQ(cb->computation()->instructions().size(), 2u);
}

TEST(Builder, RejectsNullAndForeignOperands) {
  ModuleBuilder mb("m");
  ComputationBuilder* a = mb.NewComputation("a");
  ComputationBuilder* b = mb.NewComputation("b");
  Instruction* xa = a->Parameter(T(DType::kF32, {}));
  Instruction* xb = b->Parameter(T(DType::kF32, {}));
  absl::StatusOr<Instruction*> foreign = a->Add(Opcode::kAdd, {xa, xb}, {}, {}, "g.py:1");
  ASSERT_FALSE(foreign.ok());
  EXPECT_THAT(std::string(foreign.status().message()),
              StartsWith("add: operand 1 belongs to another computation"));
  EXPECT_THAT(std::string(foreign.status().message()), EndsWith("(at g.py:1)"));
  absl::StatusOr<Instruction*> null = a->Add(Opcode::kNegate, {nullptr});
  ASSERT_FALSE(null.ok());
  EXPECT_THAT(std::string(null.status().message()), StartsWith("negate: operand 0 is null"));
}

TEST(Builder, FillsCompareType) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("main");
  struct Case {
    DType t;
    ComparisonType want;
  };
  for (Case c :
       {Case{DType::kF32, ComparisonType::kFloat}, Case{DType::kS32, ComparisonType::kSigned},
        Case{DType::kU8, ComparisonType::kUnsigned}, Case{DType::kPred, ComparisonType::kUnsigned},
        Case{DType::kC64, ComparisonType::kFloat}}) {
    Instruction* x = cb->Parameter(T(c.t, {2}));
    CompareAttrs attrs;
    attrs.comparison_direction = ComparisonDirection::kLt;
    absl::StatusOr<Instruction*> cmp = cb->Add(Opcode::kCompare, {x, x}, attrs);
    ASSERT_TRUE(cmp.ok()) << cmp.status();
    EXPECT_EQ((*cmp)->attrs<CompareAttrs>().compare_type, c.want) << StableHloName(c.t);
    EXPECT_EQ((*cmp)->shape(), T(DType::kPred, {2}));
  }
  // An explicit type that does not fit is still rejected.
  Instruction* f = cb->Parameter(T(DType::kF32, {2}));
  CompareAttrs attrs;
  attrs.compare_type = ComparisonType::kSigned;
  absl::StatusOr<Instruction*> bad = cb->Add(Opcode::kCompare, {f, f}, attrs);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("compare_type SIGNED"));
}

TEST(Builder, ReshapeAndConvertDefaults) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kS32, {2, 3}));
  Shape reshape;  // only dims set below; dtype left at its default
  reshape.dims = {6};
  absl::StatusOr<Instruction*> r = cb->AddWithResultType(Opcode::kReshape, reshape, {x});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)->shape(), T(DType::kS32, {6}));
  absl::StatusOr<Instruction*> c =
      cb->AddWithResultType(Opcode::kConvert, T(DType::kF64, {}), {x});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)->shape(), T(DType::kF64, {2, 3}));
  reshape.dims = {5};
  absl::StatusOr<Instruction*> bad =
      cb->AddWithResultType(Opcode::kReshape, reshape, {x}, {}, {}, "r.py:7");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              StartsWith("reshape: cannot reshape tensor<2x3xi32>"));
  EXPECT_THAT(std::string(bad.status().message()), EndsWith("(at r.py:7)"));
}

TEST(Builder, ConstantAndReduceWithRegion) {
  ModuleBuilder mb("m");
  ComputationBuilder* body = mb.NewComputation("sum");
  Instruction* acc = body->Parameter(T(DType::kF32, {}));
  Instruction* v = body->Parameter(T(DType::kF32, {}));
  absl::StatusOr<Instruction*> s = body->Add(Opcode::kAdd, {acc, v});
  ASSERT_TRUE(s.ok());
  absl::StatusOr<Computation*> region = body->Finish({*s});
  ASSERT_TRUE(region.ok());

  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {2, 3}));
  Instruction* zero = cb->Constant(Literal::Scalar<float>(DType::kF32, 0.0f));
  EXPECT_EQ(zero->attrs<ConstantAttrs>().value.shape(), T(DType::kF32, {}));
  EXPECT_EQ(zero->shape(), T(DType::kF32, {}));
  absl::StatusOr<Instruction*> red =
      cb->Add(Opcode::kReduce, {x, zero}, ReduceAttrs{{1}}, {*region});
  ASSERT_TRUE(red.ok()) << red.status();
  EXPECT_EQ((*red)->shape(), T(DType::kF32, {2}));
  absl::StatusOr<Computation*> main = cb->Finish({*red});
  ASSERT_TRUE(main.ok());
  absl::StatusOr<std::unique_ptr<Module>> module = mb.Build(*main);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ((*module)->computations().size(), 2u);
  EXPECT_EQ((*module)->entry(), *main);
}

TEST(Builder, FinishedComputationRejectsMoreOps) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {}));
  ASSERT_TRUE(cb->Finish({x}).ok());
  absl::StatusOr<Instruction*> late = cb->Add(Opcode::kNegate, {x}, {}, {}, "h.py:2");
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(late.status().message(), "negate: computation main is already finished (at h.py:2)");
  EXPECT_FALSE(cb->Finish({x}).ok());
}

TEST(Builder, BuildRejectsUnfinishedOrTupleEntry) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {}));
  absl::StatusOr<std::unique_ptr<Module>> early = mb.Build(cb->computation());
  ASSERT_FALSE(early.ok());
  EXPECT_THAT(std::string(early.status().message()), HasSubstr("must be a finished computation"));
  absl::StatusOr<Instruction*> tup = cb->Add(Opcode::kTuple, {x, x});
  ASSERT_TRUE(tup.ok());
  absl::StatusOr<Computation*> main = cb->Finish({*tup});
  ASSERT_TRUE(main.ok());
  absl::StatusOr<std::unique_ptr<Module>> module = mb.Build(*main);
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(std::string(module.status().message()), HasSubstr("entry results must be arrays"));
}

TEST(Builder, ParameterThroughAddIsNumbered) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {}));
  absl::StatusOr<Instruction*> b = cb->AddWithResultType(Opcode::kParameter, T(DType::kS32, {3}), {});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)->attrs<ParameterAttrs>().number, 1);
  EXPECT_EQ(cb->computation()->parameters().size(), 2u);
  EXPECT_EQ(cb->computation()->parameters()[0], a);
  absl::StatusOr<Instruction*> bad = cb->Add(Opcode::kParameter, {});
  ASSERT_FALSE(bad.ok());
  // A rejected parameter does not consume a number.
  EXPECT_EQ(cb->Parameter(T(DType::kF32, {}))->attrs<ParameterAttrs>().number, 2);
}

}  // namespace
}  // namespace xjit::testing
