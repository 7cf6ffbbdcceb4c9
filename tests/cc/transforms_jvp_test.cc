// JVP rules against finite differences and their transposes against the
// JVP (transforms/jvp_rules.cc, transforms/transpose_rules.cc), one case
// per op, on the reference backend.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "transforms_test_util.h"
#include "xjit/transforms/stop_gradient.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;
using V = std::vector<Instruction*>;

Shape F64(std::vector<int64_t> dims) { return Shape(DType::kF64, std::move(dims)); }

Instruction* Ok(absl::StatusOr<Instruction*> v) {
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : nullptr;
}

FnCase Unary(Opcode op, double lo = -1.5, double hi = 1.5) {
  return FnCase{{F64({2, 3})},
                [op](Emitter& e, V p) { return V{Ok(e.Unary(op, p[0]))}; }, lo, hi};
}

FnCase Binary(Opcode op, double lo = -1.5, double hi = 1.5) {
  return FnCase{{F64({2, 3}), F64({2, 3})},
                [op](Emitter& e, V p) { return V{Ok(e.Binary(op, p[0], p[1]))}; }, lo, hi};
}

TEST(TransformsJvp, ElementwiseUnary) {
  for (Opcode op : {Opcode::kAbs, Opcode::kCosine, Opcode::kErf, Opcode::kExponential,
                    Opcode::kExponentialMinusOne, Opcode::kLogistic, Opcode::kNegate,
                    Opcode::kSine, Opcode::kTan, Opcode::kTanh, Opcode::kCeil, Opcode::kFloor,
                    Opcode::kSign, Opcode::kRoundNearestEven, Opcode::kRoundNearestAfz}) {
    SCOPED_TRACE(OpcodeName(op));
    CheckDerivatives(Unary(op));
  }
  for (Opcode op : {Opcode::kCbrt, Opcode::kLog, Opcode::kLogPlusOne, Opcode::kRsqrt,
                    Opcode::kSqrt}) {
    SCOPED_TRACE(OpcodeName(op));
    CheckDerivatives(Unary(op, 0.5, 2.0));
  }
}

TEST(TransformsJvp, ElementwiseBinary) {
  for (Opcode op : {Opcode::kAdd, Opcode::kSubtract, Opcode::kMultiply, Opcode::kMaximum,
                    Opcode::kMinimum, Opcode::kAtan2}) {
    SCOPED_TRACE(OpcodeName(op));
    CheckDerivatives(Binary(op));
  }
  for (Opcode op : {Opcode::kDivide, Opcode::kPower, Opcode::kRemainder}) {
    SCOPED_TRACE(OpcodeName(op));
    CheckDerivatives(Binary(op, 0.5, 2.0));
  }
}

TEST(TransformsJvp, MaxTieSplitsTheTangent) {
  // maximum(x, x): JAX gives half of each tangent to each side: d/dx = 1.
  CheckDerivatives(FnCase{{F64({3})}, [](Emitter& e, V p) {
    return V{Ok(e.Binary(Opcode::kMaximum, p[0], p[0]))};
  }});
}

TEST(TransformsJvp, ConvertSelectClampCompare) {
  CheckDerivatives(FnCase{{F64({4})}, [](Emitter& e, V p) {
    Instruction* f = Ok(e.Convert(p[0], DType::kF32));
    Instruction* sq = Ok(e.Mul(f, f));
    return V{Ok(e.Convert(sq, DType::kF64))};
  }}, 2e-3, 1e-3);  // f32 inside: a wider step
  CheckDerivatives(FnCase{{F64({4}), F64({4})}, [](Emitter& e, V p) {
    Instruction* c = Ok(e.Compare(ComparisonDirection::kGt, p[0], p[1]));
    Instruction* s = Ok(e.Select(c, p[0], Ok(e.Mul(p[1], p[1]))));
    return V{s, c};  // a boolean result gets no tangent
  }});
  CheckDerivatives(FnCase{{F64({}), F64({5}), F64({})}, [](Emitter& e, V p) {
    Instruction* lo = Ok(e.MulConst(p[0], 0.5));
    return V{Ok(e.builder().Add(Opcode::kClamp, {lo, p[1], p[2]}))};
  }});
}

TEST(TransformsJvp, IntegerInputsGetNoTangent) {
  CheckDerivatives(FnCase{{F64({3}), Shape(DType::kS32, {3})}, [](Emitter& e, V p) {
    Instruction* f = Ok(e.Convert(p[1], DType::kF64));
    return V{Ok(e.Mul(p[0], f)), Ok(e.Add(p[1], p[1]))};
  }});
}

TEST(TransformsJvp, DataMovement) {
  CheckDerivatives(FnCase{{F64({2, 1, 3})}, [](Emitter& e, V p) {
    Instruction* b = Ok(e.BroadcastInDim(p[0], {4, 2, 5, 3}, {1, 2, 3}));
    Instruction* t = Ok(e.Transpose(b, {3, 0, 2, 1}));
    Instruction* r = Ok(e.Reshape(t, {12, 10}));
    Instruction* s = Ok(e.Slice(r, {1, 0}, {12, 9}, {3, 2}));
    Instruction* sq = Ok(e.Mul(s, s));
    ReverseAttrs ra;
    ra.dimensions = {0, 1};
    return V{Ok(e.builder().Add(Opcode::kReverse, {sq}, ra))};
  }});
  CheckDerivatives(FnCase{{F64({2, 3}), F64({})}, [](Emitter& e, V p) {
    Instruction* sq = Ok(e.Mul(p[0], p[0]));
    return V{Ok(e.Pad(sq, p[1], {1, -1}, {-1, 2}, {1, 2}))};
  }});
  CheckDerivatives(FnCase{{F64({2, 3}), F64({2, 2})}, [](Emitter& e, V p) {
    ConcatenateAttrs a;
    a.dimension = 1;
    Instruction* c = Ok(e.builder().Add(Opcode::kConcatenate, {p[0], p[1], p[0]}, a));
    return V{Ok(e.Mul(c, c))};
  }});
}

TEST(TransformsJvp, DotGeneral) {
  CheckDerivatives(FnCase{{F64({3, 4}), F64({4, 5})}, [](Emitter& e, V p) {
    DotDimensionNumbers d;
    d.lhs_contracting_dimensions = {1};
    d.rhs_contracting_dimensions = {0};
    return V{Ok(e.DotGeneral(p[0], p[1], d))};
  }});
  // Batch dims, contractions in a different order on each side.
  CheckDerivatives(FnCase{{F64({2, 3, 4, 5}), F64({5, 2, 6, 4})}, [](Emitter& e, V p) {
    DotDimensionNumbers d;
    d.lhs_batching_dimensions = {0};
    d.rhs_batching_dimensions = {1};
    d.lhs_contracting_dimensions = {3, 2};
    d.rhs_contracting_dimensions = {0, 3};
    return V{Ok(e.DotGeneral(p[0], p[1], d))};
  }});
}

TEST(TransformsJvp, Reductions) {
  CheckDerivatives(FnCase{{F64({3, 4}), F64({})}, [](Emitter& e, V p) {
    Computation* body = *e.ScalarBody(Opcode::kAdd, DType::kF64);
    ReduceAttrs a;
    a.dimensions = {1};
    return V{Ok(e.builder().Add(Opcode::kReduce, {p[0], p[1]}, a, {body}))};
  }});
  for (Opcode op : {Opcode::kMaximum, Opcode::kMinimum}) {
    CheckDerivatives(FnCase{{F64({3, 4})}, [op](Emitter& e, V p) {
      Computation* body = *e.ScalarBody(op, DType::kF64);
      ReduceAttrs a;
      a.dimensions = {0};
      Instruction* init = Ok(e.Full(DType::kF64, {}, op == Opcode::kMaximum ? -1e9 : 1e9));
      return V{Ok(e.builder().Add(Opcode::kReduce, {p[0], init}, a, {body}))};
    }});
  }
}

TEST(TransformsJvp, ReduceMaxTiesShareTheTangent) {
  // max over [x, x, y] with x > y: JAX splits the tangent between the two x's.
  ModuleBuilder mb("ties");
  FnCase c{{F64({2})}, [](Emitter& e, V p) {
    Computation* body = *e.ScalarBody(Opcode::kMaximum, DType::kF64);
    ConcatenateAttrs ca;
    Instruction* x = Ok(e.Slice(p[0], {0}, {1}, {1}));
    Instruction* cat = Ok(e.builder().Add(Opcode::kConcatenate, {x, x, p[0]}, ca));
    ReduceAttrs a;
    a.dimensions = {0};
    Instruction* init = Ok(e.Full(DType::kF64, {}, -1e9));
    return V{Ok(e.builder().Add(Opcode::kReduce, {cat, init}, a, {body}))};
  }};
  Computation* f = BuildFunction(mb, c, "f");
  auto vjp = transforms::Vjp(*f, {true}, mb, "g");
  ASSERT_TRUE(vjp.ok()) << vjp.status();
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(F64({2}));
  std::vector<Instruction*> fwd = CallParts(*cb, vjp->forward, {x});
  Emitter e(mb, *cb);
  std::vector<Instruction*> bargs(fwd.begin() + 1, fwd.end());
  bargs.push_back(Ok(e.Full(DType::kF64, {}, 1.0)));
  std::vector<Instruction*> g = CallParts(*cb, vjp->backward, bargs);
  auto module = mb.Build(*cb->Finish(g));
  ASSERT_TRUE(module.ok()) << module.status();
  Literal arg = FromDoubles(F64({2}), {2.0, 1.0});
  auto got = RunOn("reference", **module, {arg});
  ASSERT_TRUE(got.ok()) << got.status();
  // x appears three times in [x, x, y]: twice as the tie, once through y = x[0]... here
  // p = [2, 1]: values [2, 2, 2, 1]; the max 2 is attained 3 times, each gets 1/3;
  // all three are x = p[0].
  EXPECT_EQ(AsDoubles((*got)[0]), (std::vector<double>{1.0, 0.0}));
}

TEST(TransformsJvp, CallsAreDifferentiatedInline) {
  FnCase c{{F64({3}), F64({3})}, [](Emitter& e, V p) {
    ComputationBuilder* inner = e.module().NewComputation("inner");
    Instruction* a = inner->Parameter(F64({3}));
    Instruction* b = inner->Parameter(F64({3}));
    Instruction* s = *inner->Add(Opcode::kSine, {a});
    Instruction* m = *inner->Add(Opcode::kMultiply, {s, b});
    Computation* callee = *inner->Finish({m, s});
    std::vector<Instruction*> r = CallParts(e.builder(), callee, {p[0], p[1]});
    return V{Ok(e.Add(r[0], r[1]))};
  }};
  CheckDerivatives(c);
}

TEST(TransformsJvp, StopGradientHasZeroTangent) {
  // f(x) = x * stop_gradient(x): d/dx = stop_gradient(x) = x.
  ModuleBuilder mb("sg");
  FnCase c{{F64({3})}, [](Emitter& e, V p) {
    return V{Ok(e.Mul(p[0], Ok(transforms::StopGradient(e, p[0]))))};
  }};
  Computation* f = BuildFunction(mb, c, "f");
  auto jvp = transforms::Jvp(*f, {true}, mb, "g");
  ASSERT_TRUE(jvp.ok()) << jvp.status();
  auto module = mb.Build(jvp->computation);
  ASSERT_TRUE(module.ok()) << module.status();
  Literal x = FromDoubles(F64({3}), {1.0, 2.0, 3.0});
  Literal t = FromDoubles(F64({3}), {1.0, 1.0, 1.0});
  auto got = RunOn("reference", **module, {x, t});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(AsDoubles((*got)[1]), (std::vector<double>{1.0, 2.0, 3.0}));
}

TEST(TransformsJvp, UnsupportedReduceBodyIsAClearError) {
  ModuleBuilder mb("sub");
  FnCase c{{F64({3})}, [](Emitter& e, V p) {
    Computation* body = *e.ScalarBody(Opcode::kSubtract, DType::kF64);
    ReduceAttrs a;
    a.dimensions = {0};
    return V{Ok(e.builder().Add(Opcode::kReduce, {p[0], Ok(e.Full(DType::kF64, {}, 1))}, a,
                                {body}))};
  }};
  Computation* f = BuildFunction(mb, c, "f");
  auto jvp = transforms::Jvp(*f, {true}, mb, "g");
  ASSERT_FALSE(jvp.ok());
  EXPECT_EQ(jvp.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(jvp.status().message(), HasSubstr("'subtract' body"));
}

TEST(TransformsJvp, BadTangentFlagsAreRejected) {
  ModuleBuilder mb("bad");
  FnCase c{{Shape(DType::kS32, {3})}, [](Emitter& e, V p) { return V{Ok(e.Add(p[0], p[0]))}; }};
  Computation* f = BuildFunction(mb, c, "f");
  auto jvp = transforms::Jvp(*f, {true}, mb, "g");
  ASSERT_FALSE(jvp.ok());
  EXPECT_THAT(jvp.status().message(), HasSubstr("only float and complex values get tangents"));
  auto wrong = transforms::Jvp(*f, {true, false}, mb, "h");
  EXPECT_FALSE(wrong.ok());
}

}  // namespace
}  // namespace xjit::testing
