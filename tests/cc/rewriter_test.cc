// Graph rewriting: users lists, walks in both orders, and cloning with a
// value map (deep copies, hooks that replace or skip, inlining a body,
// shared and memoised callees).
#include "xjit/builder/rewriter.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/ir/users.h"
#include "xjit/ir/walk.h"
#include "xjit/ir/verifier.h"
#include "xjit/text/printer.h"

namespace xjit::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Shape F32(std::vector<int64_t> dims) { return T(DType::kF32, std::move(dims)); }

// (acc, x) -> acc + x on f32 scalars.
Computation* SumBody(ModuleBuilder& mb, const std::string& name = "sum") {
  ComputationBuilder* body = mb.NewComputation(name);
  Instruction* acc = body->Parameter(F32({}));
  Instruction* x = body->Parameter(F32({}));
  return *body->Finish({Must(body->Add(Opcode::kAdd, {acc, x}))});
}

// x -> exp(x) * x on f32[2], calling `inner` (x -> -x) once.
Computation* Helper(ModuleBuilder& mb) {
  ComputationBuilder* inner = mb.NewComputation("inner");
  Instruction* y = inner->Parameter(F32({2}));
  Computation* inner_c = *inner->Finish({Must(inner->Add(Opcode::kNegate, {y}))});
  ComputationBuilder* cb = mb.NewComputation("helper");
  Instruction* x = cb->Parameter(F32({2}));
  Instruction* e = Must(cb->Add(Opcode::kExponential, {x}));
  Instruction* n = Must(cb->Add(Opcode::kCall, {e}, {}, {inner_c}));
  return *cb->Finish({Must(cb->Add(Opcode::kMultiply, {n, x}))});
}

// main(x: f32[2], s: f32[2,3]) calls helper twice, reduces s with sum, and
// has one dead instruction. Also an unreachable computation.
std::unique_ptr<Module> SampleModule() {
  ModuleBuilder mb("sample");
  Computation* helper = Helper(mb);
  Computation* sum = SumBody(mb);
  SumBody(mb, "unused");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(F32({2}));
  Instruction* s = cb->Parameter(F32({2, 3}));
  Instruction* a = Must(cb->Add(Opcode::kCall, {x}, {}, {helper}, "f.py:3"));
  Instruction* b = Must(cb->Add(Opcode::kCall, {a}, {}, {helper}));
  Must(cb->Add(Opcode::kSine, {x}));  // dead
  Instruction* zero = cb->Constant(Literal::Scalar<float>(DType::kF32, 0.0f));
  Instruction* r = Must(cb->Add(Opcode::kReduce, {s, zero}, ReduceAttrs{{1}}, {sum}));
  Instruction* out = Must(cb->Add(Opcode::kAdd, {b, r}));
  absl::StatusOr<std::unique_ptr<Module>> m = mb.Build(*cb->Finish({out, out}));
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

std::vector<std::string> Names(const std::vector<Computation*>& cs) {
  std::vector<std::string> out;
  for (const Computation* c : cs) out.push_back(c->name());
  return out;
}

std::vector<int64_t> Ids(const std::vector<Instruction*>& instrs) {
  std::vector<int64_t> out;
  for (const Instruction* i : instrs) out.push_back(i->id());
  return out;
}

const Computation* Find(const Module& m, const std::string& name) {
  for (const auto& c : m.computations()) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

TEST(Users, ListsUsersOnceAndCountsResults) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(F32({2}));
  Instruction* sq = Must(cb->Add(Opcode::kMultiply, {x, x}));
  Instruction* y = Must(cb->Add(Opcode::kAdd, {sq, x}));
  Instruction* dead = Must(cb->Add(Opcode::kNegate, {x}));
  Computation* main = *cb->Finish({y, y, sq});
  Users users(*main);
  EXPECT_THAT(users.of(*x), ElementsAre(sq, y, dead));
  EXPECT_THAT(users.of(*sq), ElementsAre(y));
  EXPECT_THAT(users.of(*y), IsEmpty());
  EXPECT_EQ(users.result_uses(*y), 2);
  EXPECT_EQ(users.result_uses(*sq), 1);
  EXPECT_EQ(users.result_uses(*x), 0);
  EXPECT_TRUE(users.IsResult(*sq));
  EXPECT_FALSE(users.IsUnused(*y));
  EXPECT_TRUE(users.IsUnused(*dead));
  EXPECT_FALSE(users.IsUnused(*x));

  // An instruction of another computation has no users here.
  ComputationBuilder* other = mb.NewComputation("other");
  Instruction* z = other->Parameter(F32({2}));
  EXPECT_THAT(users.of(*z), IsEmpty());
  EXPECT_EQ(users.result_uses(*z), 0);
}

TEST(Walk, InstructionOrders) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(F32({2}));
  Instruction* unused_param = cb->Parameter(F32({2}));
  Instruction* a = Must(cb->Add(Opcode::kNegate, {x}));
  Must(cb->Add(Opcode::kSine, {a}));  // dead
  Instruction* c = Must(cb->Add(Opcode::kAdd, {a, x}));
  Computation* main = *cb->Finish({c});
  EXPECT_THAT(Ids(PostOrder(*main)), ElementsAre(0, 1, 2, 3, 4));
  EXPECT_THAT(Ids(ReversePostOrder(*main)), ElementsAre(4, 3, 2, 1, 0));
  EXPECT_THAT(LiveInstructions(*main), ElementsAre(true, false, true, false, true));
  EXPECT_THAT(Ids(LivePostOrder(*main)), ElementsAre(0, 2, 4));
  EXPECT_EQ(unused_param->id(), 1);
}

TEST(Walk, ComputationOrders) {
  std::unique_ptr<Module> m = SampleModule();
  ASSERT_NE(m, nullptr);
  // Callees before callers, each once, the unreachable one left out.
  EXPECT_THAT(Names(ComputationPostOrder(*m)), ElementsAre("inner", "helper", "sum", "main"));
  EXPECT_THAT(Names(ComputationReversePostOrder(*m)),
              ElementsAre("main", "sum", "helper", "inner"));
}

TEST(Clone, DeepCopyPrintsTheSameAndSharesNothing) {
  std::unique_ptr<Module> m = SampleModule();
  ASSERT_NE(m, nullptr);
  absl::StatusOr<std::unique_ptr<Module>> copy = CloneModule(*m);
  ASSERT_TRUE(copy.ok()) << copy.status();
  // The unreachable computation is not copied; everything else prints alike.
  EXPECT_EQ((*copy)->computations().size(), 4u);
  EXPECT_EQ(PrintModule(**copy), PrintModule(*m));
  for (const auto& c : (*copy)->computations()) {
    for (const auto& orig : m->computations()) EXPECT_NE(c.get(), orig.get());
  }
  // Both calls call the same clone of helper; locations are kept.
  const Computation* main = (*copy)->entry();
  EXPECT_EQ(main->instructions()[2]->called_computations()[0],
            main->instructions()[3]->called_computations()[0]);
  EXPECT_EQ(main->instructions()[2]->called_computations()[0], Find(**copy, "helper"));
  EXPECT_EQ(main->instructions()[2]->source_location(), "f.py:3");
  EXPECT_TRUE(VerifyModule(**copy).ok());
}

TEST(Clone, HookReplacesInEveryComputation) {
  std::unique_ptr<Module> m = SampleModule();
  ASSERT_NE(m, nullptr);
  // add -> subtract, everywhere (main, and the reduce body).
  CloneOptions options;
  int seen = 0;
  options.hook = [&](const CloneContext& ctx) -> absl::StatusOr<CloneAction> {
    ++seen;
    if (ctx.old.opcode() != Opcode::kAdd) return CloneAction::Clone();
    absl::StatusOr<Instruction*> sub = ctx.builder.Add(
        Opcode::kSubtract, {ctx.operands.begin(), ctx.operands.end()});
    if (!sub.ok()) return sub.status();
    return CloneAction::Replace(*sub);
  };
  absl::StatusOr<std::unique_ptr<Module>> copy = CloneModule(*m, options);
  ASSERT_TRUE(copy.ok()) << copy.status();
  std::string text = PrintModule(**copy);
  EXPECT_THAT(text, ::testing::Not(HasSubstr("stablehlo.add")));
  EXPECT_THAT(text, HasSubstr("stablehlo.subtract"));
  // main 8, helper 4, inner 2, sum 3: each instruction seen once.
  EXPECT_EQ(seen, 17);
}

TEST(Clone, HookSeesTheValueMapSoFar) {
  std::unique_ptr<Module> m = SampleModule();
  ASSERT_NE(m, nullptr);
  CloneOptions options;
  int checked = 0;
  options.hook = [&](const CloneContext& ctx) -> absl::StatusOr<CloneAction> {
    EXPECT_FALSE(ctx.map.contains(&ctx.old));
    for (size_t i = 0; i < ctx.operands.size(); ++i) {
      EXPECT_EQ(ctx.map.at(ctx.old.operand(i)), ctx.operands[i]);
      ++checked;
    }
    // Every instruction of main after the first call reuses it: a crude CSE.
    if (ctx.source.name() == "main" && ctx.old.id() == 3) {
      return CloneAction::Replace(ctx.map.at(ctx.source.instructions()[2].get()));
    }
    return CloneAction::Clone();
  };
  absl::StatusOr<std::unique_ptr<Module>> copy = CloneModule(*m, options);
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_GT(checked, 10);
  // The add now takes the first call's value.
  const Computation* main = (*copy)->entry();
  const Instruction* add = main->results()[0];
  EXPECT_EQ(add->operand(0)->opcode(), Opcode::kCall);
  EXPECT_EQ(add->operand(0)->operand(0), main->parameters()[0]);
}

TEST(Clone, HookCanCloneAsIsAndKeepTheClone) {
  std::unique_ptr<Module> m = SampleModule();
  ASSERT_NE(m, nullptr);
  std::vector<const Instruction*> reduces;
  CloneOptions options;
  options.hook = [&](const CloneContext& ctx) -> absl::StatusOr<CloneAction> {
    if (ctx.old.opcode() != Opcode::kReduce) return CloneAction::Clone();
    absl::StatusOr<Instruction*> copy = ctx.cloner.CloneInstruction(
        ctx.old, {ctx.operands.begin(), ctx.operands.end()}, ctx.builder);
    if (!copy.ok()) return copy.status();
    reduces.push_back(*copy);
    return CloneAction::Replace(*copy);
  };
  absl::StatusOr<std::unique_ptr<Module>> copy = CloneModule(*m, options);
  ASSERT_TRUE(copy.ok()) << copy.status();
  ASSERT_EQ(reduces.size(), 1u);
  EXPECT_EQ(reduces[0], (*copy)->entry()->instructions()[6].get());
  EXPECT_EQ(reduces[0]->called_computations()[0], Find(**copy, "sum"));
  EXPECT_EQ(PrintModule(**copy), PrintModule(*m));
}

TEST(Clone, SkipDeadAndRejectSkippedUse) {
  std::unique_ptr<Module> m = SampleModule();
  ASSERT_NE(m, nullptr);
  CloneOptions skip_sine;
  skip_sine.hook = [](const CloneContext& ctx) -> absl::StatusOr<CloneAction> {
    return ctx.old.opcode() == Opcode::kSine ? CloneAction::Skip() : CloneAction::Clone();
  };
  absl::StatusOr<std::unique_ptr<Module>> copy = CloneModule(*m, skip_sine);
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_EQ((*copy)->entry()->instructions().size(), m->entry()->instructions().size() - 1);
  EXPECT_THAT(PrintModule(**copy), ::testing::Not(HasSubstr("sine")));

  CloneOptions skip_negate;  // used by helper's multiply
  skip_negate.hook = [](const CloneContext& ctx) -> absl::StatusOr<CloneAction> {
    return ctx.old.opcode() == Opcode::kNegate ? CloneAction::Skip() : CloneAction::Clone();
  };
  absl::StatusOr<std::unique_ptr<Module>> bad = CloneModule(*m, skip_negate);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("result 0 of inner was skipped"));

  CloneOptions skip_exp;  // an operand of the call
  skip_exp.hook = [](const CloneContext& ctx) -> absl::StatusOr<CloneAction> {
    return ctx.old.opcode() == Opcode::kExponential ? CloneAction::Skip() : CloneAction::Clone();
  };
  bad = CloneModule(*m, skip_exp);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("operand 0 of call %2 of helper was skipped"));
}

TEST(Clone, HookErrorsAndNullReplacementsAreReported) {
  std::unique_ptr<Module> m = SampleModule();
  ASSERT_NE(m, nullptr);
  CloneOptions failing;
  failing.hook = [](const CloneContext& ctx) -> absl::StatusOr<CloneAction> {
    if (ctx.old.opcode() == Opcode::kReduce) return absl::UnimplementedError("no reduce here");
    return CloneAction::Clone();
  };
  EXPECT_EQ(CloneModule(*m, failing).status().message(), "no reduce here");
  CloneOptions null_replacement;
  null_replacement.hook = [](const CloneContext&) -> absl::StatusOr<CloneAction> {
    return CloneAction::Replace(nullptr);
  };
  EXPECT_THAT(std::string(CloneModule(*m, null_replacement).status().message()),
              HasSubstr("null replacement"));
}

TEST(Clone, InlinesABodyWithBoundParameters) {
  std::unique_ptr<Module> m = SampleModule();
  ASSERT_NE(m, nullptr);
  const Computation* helper = Find(*m, "helper");
  ModuleBuilder mb("inlined");
  Cloner cloner(mb);
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* p = cb->Parameter(F32({2}));
  Instruction* q = Must(cb->Add(Opcode::kCosine, {p}));
  ValueMap map = {{helper->parameters()[0], q}};
  absl::StatusOr<std::vector<Instruction*>> results = cloner.CloneBody(*helper, *cb, map);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 1u);
  // exp, call, multiply appended after cosine; the parameter maps to q.
  EXPECT_EQ((*results)[0]->opcode(), Opcode::kMultiply);
  EXPECT_EQ((*results)[0]->operand(1), q);
  EXPECT_EQ(map.at(helper->parameters()[0]), q);
  EXPECT_EQ(map.at(helper->results()[0]), (*results)[0]);
  EXPECT_EQ(cb->computation()->instructions().size(), 5u);
  absl::StatusOr<std::unique_ptr<Module>> built = mb.Build(*cb->Finish(*results));
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ((*built)->computations().size(), 2u);  // inner, main
  EXPECT_EQ((*built)->entry()->parameters().size(), 1u);
}

TEST(Clone, UnboundParametersBecomeNewParameters) {
  std::unique_ptr<Module> m = SampleModule();
  ASSERT_NE(m, nullptr);
  ModuleBuilder mb("appended");
  Cloner cloner(mb);
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* first = cb->Parameter(F32({3}));
  ValueMap map;
  absl::StatusOr<std::vector<Instruction*>> results =
      cloner.CloneBody(*Find(*m, "helper"), *cb, map);
  ASSERT_TRUE(results.ok()) << results.status();
  // helper's parameter 0 is parameter 1 here, after the existing one.
  const Instruction* p = map.at(Find(*m, "helper")->parameters()[0]);
  EXPECT_EQ(p->opcode(), Opcode::kParameter);
  EXPECT_EQ(p->attrs<ParameterAttrs>().number, 1);
  absl::StatusOr<std::unique_ptr<Module>> built = mb.Build(*cb->Finish({first, (*results)[0]}));
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ((*built)->entry()->parameters().size(), 2u);
  EXPECT_EQ((*built)->entry()->parameters()[1], p);
}

TEST(Clone, SharedAndMappedCallees) {
  // Within one module under construction: clone a computation that reduces
  // with `sum`, keeping `sum` as it is.
  ModuleBuilder mb("m");
  Computation* sum = SumBody(mb);
  ComputationBuilder* cb = mb.NewComputation("f");
  Instruction* x = cb->Parameter(F32({4}));
  Instruction* zero = cb->Constant(Literal::Scalar<float>(DType::kF32, 0.0f));
  Computation* f =
      *cb->Finish({Must(cb->Add(Opcode::kReduce, {x, zero}, ReduceAttrs{{0}}, {sum}))});

  CloneOptions share;
  share.callees = CalleePolicy::kShare;
  Cloner sharing(mb, share);
  absl::StatusOr<Computation*> f2 = sharing.CloneComputation(*f);
  ASSERT_TRUE(f2.ok()) << f2.status();
  EXPECT_NE(*f2, f);
  EXPECT_EQ((*f2)->instructions()[2]->called_computations()[0], sum);
  // Memoised.
  EXPECT_EQ(*sharing.CloneComputation(*f), *f2);

  // A mapped callee is used instead of a fresh clone.
  Computation* other_sum = SumBody(mb, "other_sum");
  Cloner mapping(mb);
  mapping.MapComputation(*sum, other_sum);
  absl::StatusOr<Computation*> f3 = mapping.CloneComputation(*f);
  ASSERT_TRUE(f3.ok()) << f3.status();
  EXPECT_EQ((*f3)->instructions()[2]->called_computations()[0], other_sum);
  absl::StatusOr<std::unique_ptr<Module>> built = mb.Build(*f3);
  ASSERT_TRUE(built.ok()) << built.status();
}

TEST(Clone, BuiltTargetIsAnError) {
  std::unique_ptr<Module> m = SampleModule();
  ASSERT_NE(m, nullptr);
  ModuleBuilder mb("t");
  ComputationBuilder* cb = mb.NewComputation("main");
  Computation* main = *cb->Finish({cb->Parameter(F32({}))});
  ASSERT_TRUE(mb.Build(main).ok());
  Cloner cloner(mb);
  EXPECT_EQ(cloner.CloneComputation(*m->entry()).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace xjit::testing
