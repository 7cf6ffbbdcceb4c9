// Marked calls (transforms/custom_rules.h: custom_jvp, custom_vjp,
// checkpoint), the prod reduce JVP, batching a reduce with a batched init,
// and the layout of dot_general's transpose, on the reference backend.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "transforms_test_util.h"
#include "xjit/transforms/custom_rules.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;
using V = std::vector<Instruction*>;

Shape F64(std::vector<int64_t> dims) { return Shape(DType::kF64, std::move(dims)); }

Instruction* Ok(absl::StatusOr<Instruction*> v) {
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : nullptr;
}

// One computation of `mb` from a lambda.
Computation* Make(ModuleBuilder& mb, const std::string& name, std::vector<Shape> params,
                  const BuildFn& build) {
  return BuildFunction(mb, FnCase{std::move(params), build}, name);
}

std::vector<double> RunRef(ModuleBuilder& mb, Computation* entry, std::vector<Literal> args) {
  absl::StatusOr<std::unique_ptr<Module>> m = mb.Build(entry);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  absl::StatusOr<std::vector<Literal>> got = RunOn("reference", **m, args);
  EXPECT_TRUE(got.ok()) << got.status();
  std::vector<double> out;
  for (const Literal& l : *got) {
    for (double d : AsDoubles(l)) out.push_back(d);
  }
  return out;
}

Literal Scalar(double v) { return FromDoubles(F64({}), {v}); }

// sin(x) with a JVP rule that says its derivative is 3 (so the test sees
// which one is used), called as custom_jvp from g(x) = f(x) * x.
Computation* CustomJvpCaller(ModuleBuilder& mb) {
  Computation* f = Make(mb, "xjit_custom_jvp_1_f", {F64({})},
                        [](Emitter& e, V p) { return V{Ok(e.Unary(Opcode::kSine, p[0]))}; });
  Computation* rule = Make(mb, "rule", {F64({}), F64({})}, [](Emitter& e, V p) {
    return V{Ok(e.Unary(Opcode::kSine, p[0])), Ok(e.MulConst(p[1], 3.0))};
  });
  return Make(mb, "g", {F64({})}, [&](Emitter& e, V p) {
    Instruction* y = Ok(e.builder().Add(Opcode::kCall, {p[0]}, {}, {f, rule}));
    return V{Ok(e.Mul(y, p[0]))};
  });
}

TEST(TransformsCustomRules, CustomJvpRuleIsUsedByJvpAndVjp) {
  ModuleBuilder mb("cj");
  Computation* g = CustomJvpCaller(mb);
  auto jvp = transforms::Jvp(*g, {true}, mb, "g_jvp");
  ASSERT_TRUE(jvp.ok()) << jvp.status();
  auto vjp = transforms::Vjp(*g, {true}, mb, "g_vjp");
  ASSERT_TRUE(vjp.ok()) << vjp.status();
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(F64({}));
  V j = CallParts(*cb, jvp->computation, {x, Ok(Emitter(mb, *cb).Full(DType::kF64, {}, 1.0))});
  V fw = CallParts(*cb, vjp->forward, {x});
  V bargs(fw.begin() + 1, fw.end());
  bargs.push_back(Ok(Emitter(mb, *cb).Full(DType::kF64, {}, 1.0)));
  V b = CallParts(*cb, vjp->backward, bargs);
  Computation* main = *cb->Finish({j[1], b[0], fw[0]});
  std::vector<double> got = RunRef(mb, main, {Scalar(0.5)});
  double want = 3 * 0.5 + std::sin(0.5);  // d/dx f(x) x with f' = 3
  ASSERT_EQ(got.size(), 3u);
  EXPECT_NEAR(got[0], want, 1e-12);
  EXPECT_NEAR(got[1], want, 1e-12);
  EXPECT_NEAR(got[2], std::sin(0.5) * 0.5, 1e-12);
}

TEST(TransformsCustomRules, CustomJvpCallRunsTheFunctionAndBatches) {
  ModuleBuilder mb("cjb");
  Computation* g = CustomJvpCaller(mb);
  auto v = transforms::Vmap(*g, {0}, 4, {0}, mb, "g_vmap");
  ASSERT_TRUE(v.ok()) << v.status();
  // The batched graph still carries the marker, with a batched rule.
  bool marked = false;
  for (const auto& instr : (*v)->instructions()) {
    auto c = transforms::AsCustomCall(*instr);
    ASSERT_TRUE(c.ok());
    if (c->has_value()) {
      marked = true;
      EXPECT_EQ((*c)->kind, transforms::CustomKind::kJvp);
      EXPECT_EQ((*c)->rule->parameters()[0]->shape().dims, std::vector<int64_t>{4});
    }
  }
  EXPECT_TRUE(marked);
  std::vector<double> got = RunRef(mb, *v, {FromDoubles(F64({4}), {0.1, 0.2, 0.3, 0.4})});
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[i], std::sin(0.1 * (i + 1)) * 0.1 * (i + 1), 1e-12);
}

// f(x) = x^2 with fwd saving x and a bwd that says the derivative is 5x.
Computation* CustomVjpCaller(ModuleBuilder& mb) {
  Computation* f = Make(mb, "xjit_custom_vjp_1_f", {F64({2})},
                        [](Emitter& e, V p) { return V{Ok(e.Mul(p[0], p[0]))}; });
  Computation* fwd = Make(mb, "fwd", {F64({2})},
                          [](Emitter& e, V p) { return V{Ok(e.Mul(p[0], p[0])), p[0]}; });
  Computation* bwd = Make(mb, "bwd", {F64({2}), F64({2})}, [](Emitter& e, V p) {
    return V{Ok(e.Mul(Ok(e.MulConst(p[0], 5.0)), p[1]))};
  });
  return Make(mb, "g", {F64({2})}, [&](Emitter& e, V p) {
    Instruction* y = Ok(e.builder().Add(Opcode::kCall, {p[0]}, {}, {f, fwd, bwd}));
    return V{Ok(e.ReduceSum(y, {0}))};
  });
}

TEST(TransformsCustomRules, CustomVjpBackwardRuleIsUsed) {
  ModuleBuilder mb("cv");
  Computation* g = CustomVjpCaller(mb);
  auto vjp = transforms::Vjp(*g, {true}, mb, "g_vjp");
  ASSERT_TRUE(vjp.ok()) << vjp.status();
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(F64({2}));
  V fw = CallParts(*cb, vjp->forward, {x});
  V bargs(fw.begin() + 1, fw.end());
  bargs.push_back(Ok(Emitter(mb, *cb).Full(DType::kF64, {}, 1.0)));
  V b = CallParts(*cb, vjp->backward, bargs);
  Computation* main = *cb->Finish({b[0]});
  std::vector<double> got = RunRef(mb, main, {FromDoubles(F64({2}), {1.0, -2.0})});
  EXPECT_EQ(got, (std::vector<double>{5.0, -10.0}));
}

TEST(TransformsCustomRules, ForwardModeOfCustomVjpIsJaxsError) {
  ModuleBuilder mb("cvj");
  Computation* g = CustomVjpCaller(mb);
  auto jvp = transforms::Jvp(*g, {true}, mb, "g_jvp");
  ASSERT_FALSE(jvp.ok());
  EXPECT_EQ(jvp.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(jvp.status().message(), HasSubstr("can't apply forward-mode autodiff (jvp)"));
}

TEST(TransformsCustomRules, BadMarkersAreRejected) {
  ModuleBuilder mb("bad");
  Computation* f = Make(mb, "xjit_custom_jvp_x_f", {F64({})}, [](Emitter&, V p) { return p; });
  Computation* g = Make(mb, "g", {F64({})}, [&](Emitter& e, V p) {
    return V{Ok(e.builder().Add(Opcode::kCall, {p[0]}, {}, {f, f}))};
  });
  auto jvp = transforms::Jvp(*g, {true}, mb, "g_jvp");
  ASSERT_FALSE(jvp.ok());
  EXPECT_THAT(jvp.status().message(), HasSubstr("no valid argument count"));
}

// sum(tanh(tanh(x) * w)) with the body checkpointed under `policy`.
int64_t CheckpointResiduals(const std::string& policy) {
  ModuleBuilder mb("ck");
  Computation* body = Make(mb, "xjit_checkpoint_" + policy + "_body", {F64({3}), F64({3, 3})},
                           [](Emitter& e, V p) {
    Instruction* a = Ok(e.Unary(Opcode::kTanh, p[0]));
    DotDimensionNumbers d;
    d.lhs_contracting_dimensions = {0};
    d.rhs_contracting_dimensions = {0};
    Instruction* b = Ok(e.DotGeneral(a, p[1], d));
    return V{Ok(e.Unary(Opcode::kTanh, b))};
  });
  Computation* g = Make(mb, "g", {F64({3}), F64({3, 3})}, [&](Emitter& e, V p) {
    Instruction* y = Ok(e.builder().Add(Opcode::kCall, {p[0], p[1]}, {}, {body}));
    return V{Ok(e.ReduceSum(y, {0}))};
  });
  auto vjp = transforms::Vjp(*g, {true, true}, mb, "g_vjp");
  EXPECT_TRUE(vjp.ok()) << vjp.status();
  return vjp.ok() ? vjp->num_residuals : -1;
}

TEST(TransformsCustomRules, CheckpointPoliciesDecideTheResiduals) {
  // Saved without a checkpoint: tanh(x), 1 - tanh^2 pieces, the dot, ...
  int64_t everything = CheckpointResiduals("everything");
  int64_t dots = CheckpointResiduals("dots");
  int64_t nothing = CheckpointResiduals("nothing");
  EXPECT_EQ(nothing, 2);  // only the checkpoint's inputs x and w
  EXPECT_EQ(dots, 3);     // and the dot_general
  EXPECT_GT(everything, dots);
}

TEST(TransformsCustomRules, CheckpointedGradientsAreRight) {
  for (std::string policy : {"nothing", "dots", "everything"}) {
    SCOPED_TRACE(policy);
    CheckDerivatives(FnCase{{F64({3}), F64({3, 3})}, [policy](Emitter& e, V p) {
      Computation* body = BuildFunction(
          e.module(), FnCase{{F64({3}), F64({3, 3})}, [](Emitter& e2, V q) {
            Instruction* a = Ok(e2.Unary(Opcode::kSine, q[0]));
            DotDimensionNumbers d;
            d.lhs_contracting_dimensions = {0};
            d.rhs_contracting_dimensions = {0};
            return V{Ok(e2.Unary(Opcode::kTanh, Ok(e2.DotGeneral(a, q[1], d))))};
          }}, "xjit_checkpoint_" + policy + "_b");
      return V{Ok(e.builder().Add(Opcode::kCall, {p[0], p[1]}, {}, {body}))};
    }});
  }
}

TEST(TransformsCustomRules, ProdJvpIsZeroSafe) {
  auto prod = [](std::vector<int64_t> dims) {
    return [dims](Emitter& e, V p) {
      Computation* body = *e.ScalarBody(Opcode::kMultiply, DType::kF64);
      ReduceAttrs a;
      a.dimensions = dims;
      return V{Ok(e.builder().Add(Opcode::kReduce, {p[0], Ok(e.Full(DType::kF64, {}, 1))}, a,
                                  {body}))};
    };
  };
  CheckDerivatives(FnCase{{F64({5})}, prod({0})});
  CheckDerivatives(FnCase{{F64({3, 4, 2})}, prod({0, 2})});
  CheckDerivatives(FnCase{{F64({3, 4})}, prod({1})});
  // A zero in the input: d/dx_i prod = prod of the others, still finite.
  ModuleBuilder mb("zero");
  Computation* f = Make(mb, "f", {F64({3})}, prod({0}));
  auto jvp = transforms::Jvp(*f, {true}, mb, "f_jvp");
  ASSERT_TRUE(jvp.ok()) << jvp.status();
  std::vector<double> got = RunRef(mb, jvp->computation, {FromDoubles(F64({3}), {0.0, 2.0, 3.0}),
                                                       FromDoubles(F64({3}), {1.0, 0.0, 0.0})});
  EXPECT_EQ(got, (std::vector<double>{0.0, 6.0}));
}

TEST(TransformsCustomRules, ReduceWithABatchedInitValue) {
  // Exact comparisons: max/min on floats, sums and products on integers (the
  // init is combined last, so float sums may round differently).
  for (DType dt : {DType::kF64, DType::kS32}) {
    for (Opcode op : {Opcode::kAdd, Opcode::kMultiply, Opcode::kMaximum, Opcode::kMinimum}) {
      if (dt == DType::kF64 && (op == Opcode::kAdd || op == Opcode::kMultiply)) continue;
      SCOPED_TRACE(OpcodeName(op));
      CheckBatching(FnCase{{Shape(dt, {4, 2}), Shape(dt, {})}, [op, dt](Emitter& e, V p) {
        Computation* body = *e.ScalarBody(op, dt);
        ReduceAttrs a;
        a.dimensions = {0};
        return V{Ok(e.builder().Add(Opcode::kReduce, {p[0], p[1]}, a, {body}))};
      }});
    }
  }
  CheckBatching(FnCase{{Shape(DType::kS32, {4}), Shape(DType::kS32, {})}, [](Emitter& e, V p) {
    Computation* body = *e.ScalarBody(Opcode::kMaximum, DType::kS32);
    ReduceAttrs a;
    a.dimensions = {0};
    return V{Ok(e.builder().Add(Opcode::kReduce, {p[0], p[1]}, a, {body}))};
  }}, {false, true});
}

TEST(TransformsCustomRules, MatmulWeightGradientNeedsNoTranspose) {
  // loss = sum(x @ w): the cotangent of w is x^T g, laid out as w directly.
  ModuleBuilder mb("mm");
  Computation* f = Make(mb, "f", {F64({5, 3}), F64({3, 4})}, [](Emitter& e, V p) {
    DotDimensionNumbers d;
    d.lhs_contracting_dimensions = {1};
    d.rhs_contracting_dimensions = {0};
    return V{Ok(e.ReduceSum(Ok(e.DotGeneral(p[0], p[1], d)), {0, 1}))};
  });
  auto vjp = transforms::Vjp(*f, {true, true}, mb, "f_vjp");
  ASSERT_TRUE(vjp.ok()) << vjp.status();
  int dots = 0, transposes = 0;
  for (const auto& instr : vjp->backward->instructions()) {
    dots += instr->opcode() == Opcode::kDotGeneral;
    transposes += instr->opcode() == Opcode::kTranspose;
  }
  EXPECT_EQ(dots, 2);
  EXPECT_EQ(transposes, 0);
  CheckDerivatives(FnCase{{F64({5, 3}), F64({3, 4})}, [](Emitter& e, V p) {
    DotDimensionNumbers d;
    d.lhs_contracting_dimensions = {1};
    d.rhs_contracting_dimensions = {0};
    return V{Ok(e.Unary(Opcode::kTanh, Ok(e.DotGeneral(p[0], p[1], d))))};
  }});
}

}  // namespace
}  // namespace xjit::testing
