// The verifier must catch graphs the builder would never produce: wrong
// recorded shapes, operands from elsewhere, bad regions, a bad entry.
#include "xjit/ir/verifier.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/builder/builder.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Appends without any checking, the way a buggy pass might.
Instruction* Raw(Computation* c, Opcode op, Shape shape, std::vector<Instruction*> operands,
                 Attributes attrs = {}, std::vector<Computation*> called = {}) {
  return c->AddInstruction(std::make_unique<Instruction>(op, std::move(shape), std::move(operands),
                                                         std::move(attrs), std::move(called)));
}

Instruction* Param(Computation* c, int64_t number, Shape shape) {
  return Raw(c, Opcode::kParameter, shape, {}, ParameterAttrs{number});
}

struct Fixture {
  Module module{"m"};
  Computation* main = module.AddComputation(std::make_unique<Computation>("main"));
  Fixture() { module.set_entry(main); }
};

TEST(Verifier, AcceptsWellFormedModule) {
  Fixture f;
  Instruction* x = Param(f.main, 0, T(DType::kF32, {2}));
  Instruction* y = Raw(f.main, Opcode::kAdd, T(DType::kF32, {2}), {x, x});
  f.main->set_results({y});
  EXPECT_TRUE(VerifyModule(f.module).ok()) << VerifyModule(f.module);
}

TEST(Verifier, RejectsWrongRecordedShape) {
  Fixture f;
  Instruction* x = Param(f.main, 0, T(DType::kF32, {2}));
  Instruction* y = Raw(f.main, Opcode::kAdd, T(DType::kF32, {3}), {x, x});
  f.main->set_results({y});
  absl::Status s = VerifyModule(f.module);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "add: recorded shape tensor<3xf32> differs from inferred shape tensor<2xf32> "
            "(instruction %1 of main)");
}

TEST(Verifier, ReportsInferenceErrorsWithLocation) {
  Fixture f;
  Instruction* x = Param(f.main, 0, T(DType::kF32, {2}));
  Instruction* y = Param(f.main, 1, T(DType::kS32, {2}));
  Instruction* bad = Raw(f.main, Opcode::kAdd, T(DType::kF32, {2}), {x, y});
  bad->set_source_location("f.py:9");
  f.main->set_results({bad});
  absl::Status s = VerifyModule(f.module);
  EXPECT_THAT(std::string(s.message()), StartsWith("add: operands must have the same shape"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("(instruction %2 of main, at f.py:9)"));
}

TEST(Verifier, RejectsOperandFromOtherComputation) {
  Fixture f;
  Computation* other = f.module.AddComputation(std::make_unique<Computation>("other"));
  Instruction* foreign = Param(other, 0, T(DType::kF32, {}));
  other->set_results({foreign});
  Instruction* x = Param(f.main, 0, T(DType::kF32, {}));
  Instruction* y = Raw(f.main, Opcode::kAdd, T(DType::kF32, {}), {x, foreign});
  f.main->set_results({y});
  absl::Status s = VerifyModule(f.module);
  EXPECT_THAT(std::string(s.message()),
              StartsWith("add: operand 1 is not an earlier instruction of the same computation"));
}

TEST(Verifier, RejectsForwardReference) {
  Fixture f;
  Instruction* p = Param(f.main, 0, T(DType::kF32, {}));
  // A pass that rewires an operand to a later instruction breaks SSA order;
  // the graph API allows it only through the (const) operand list, so mimic it.
  Instruction* user = Raw(f.main, Opcode::kNegate, T(DType::kF32, {}), {p});
  Instruction* target = Raw(f.main, Opcode::kNegate, T(DType::kF32, {}), {p});
  const_cast<std::vector<Instruction*>&>(user->operands())[0] = target;
  f.main->set_results({target});
  absl::Status s = VerifyModule(f.module);
  EXPECT_THAT(std::string(s.message()), StartsWith("negate: operand 0 is not an earlier"));
}

TEST(Verifier, RejectsMissingEntryAndTupleResult) {
  Module empty("m");
  absl::Status s = VerifyModule(empty);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("entry computation is missing"));

  Fixture f;
  Instruction* x = Param(f.main, 0, T(DType::kF32, {}));
  Instruction* t = Raw(f.main, Opcode::kTuple, Shape::Tuple({T(DType::kF32, {})}), {x});
  f.main->set_results({t});
  s = VerifyModule(f.module);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("entry results must be arrays, got tuple<tensor<f32>>"));
}

TEST(Verifier, RejectsBadRegion) {
  Fixture f;
  Computation* body = f.module.AddComputation(std::make_unique<Computation>("body"));
  Instruction* a = Param(body, 0, T(DType::kF32, {}));
  Param(body, 1, T(DType::kF32, {2}));  // should be a scalar
  body->set_results({a});
  Instruction* x = Param(f.main, 0, T(DType::kF32, {2}));
  Instruction* init = Param(f.main, 1, T(DType::kF32, {}));
  Instruction* r =
      Raw(f.main, Opcode::kReduce, T(DType::kF32, {}), {x, init}, ReduceAttrs{{0}}, {body});
  f.main->set_results({r});
  absl::Status s = VerifyModule(f.module);
  EXPECT_THAT(std::string(s.message()),
              StartsWith("reduce: body body must have type (tensor<f32>, tensor<f32>)"));
}

TEST(Verifier, RejectsCalleeOutsideModuleAndRecursion) {
  Fixture f;
  Computation outside("outside");
  Instruction* op = Param(&outside, 0, T(DType::kF32, {}));
  outside.set_results({op});
  Instruction* x = Param(f.main, 0, T(DType::kF32, {}));
  Instruction* call = Raw(f.main, Opcode::kCall, T(DType::kF32, {}), {x}, {}, {&outside});
  f.main->set_results({call});
  absl::Status s = VerifyModule(f.module);
  EXPECT_THAT(std::string(s.message()), StartsWith("call: called computation is not part"));

  Fixture g;
  Computation* a = g.module.AddComputation(std::make_unique<Computation>("a"));
  Instruction* ap = Param(a, 0, T(DType::kF32, {}));
  Instruction* self = Raw(a, Opcode::kCall, T(DType::kF32, {}), {ap}, {}, {a});
  a->set_results({self});
  Instruction* gx = Param(g.main, 0, T(DType::kF32, {}));
  g.main->set_results({gx});
  s = VerifyModule(g.module);
  EXPECT_THAT(std::string(s.message()), HasSubstr("computation a is reached recursively"));
}

TEST(Verifier, RejectsParameterGap) {
  Fixture f;
  Instruction* x = Param(f.main, 1, T(DType::kF32, {}));  // number 0 missing
  f.main->set_results({x});
  absl::Status s = VerifyModule(f.module);
  EXPECT_THAT(std::string(s.message()), HasSubstr("parameter 0 is missing"));
}

}  // namespace
}  // namespace xjit::testing
