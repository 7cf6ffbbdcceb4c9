// One JVP rule per op. Elementwise derivatives follow JAX's rules
// (jax/_src/lax/lax.py), including their numerically careful forms: they
// are written in terms of the primal result where JAX does (exp, tanh,
// logistic, sqrt, rsqrt), and ties of max/min split the tangent equally.
// Every rule builds only ops that transpose.cc can transpose: the tangent
// graph is linear in the tangents (multiplied or divided by primal values).
#include "xjit/transforms/fft_rules.h"
#include "xjit/transforms/control_flow_rules.h"
#include "xjit/transforms/jvp_rules.h"
#include "xjit/transforms/custom_call_rules.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "xjit/transforms/batch_norm_rules.h"
#include "xjit/transforms/linalg_rules.h"
#include "xjit/transforms/custom_rules.h"
#include "xjit/transforms/indexing_rules.h"
#include "xjit/transforms/collectives.h"
#include "xjit/transforms/region_jvp.h"
#include "xjit/transforms/status_macros.h"
#include "xjit/transforms/window_rules.h"
#include "xjit/transforms/stop_gradient.h"

namespace xjit::transforms {
namespace {

using Dir = ComparisonDirection;

JvpOut One(Value t) { return JvpOut{{}, {t}}; }

ValueOr ReplaceZero(Emitter& e, Value x);

// ---------------------------------------------------------------- structural

absl::StatusOr<JvpOut> ZeroTangent(JvpContext& ctx) {
  return JvpOut{{}, Parts(ctx.results.size(), nullptr)};
}

// ------------------------------------------------------------------ unary

// t * f(x, y), the shape of most unary rules.
template <typename F>
absl::StatusOr<JvpOut> Scale(JvpContext& ctx, F factor) {
  XJIT_TF_ASSIGN_OR_RETURN(Value k, factor(ctx.e, ctx.x(0), ctx.y()));
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.Mul(ctx.t(0), k));
  return One(t);
}

absl::StatusOr<JvpOut> AbsJvp(JvpContext& ctx) {
  if (IsComplex(ctx.x(0)->shape().dtype)) {
    // JAX's: real(t * conj(x) / replace_zero(|x|)), a real tangent.
    Emitter& e = ctx.e;
    Value x = ctx.x(0);
    XJIT_TF_ASSIGN_OR_RETURN(Value re, e.Unary(Opcode::kReal, x));
    XJIT_TF_ASSIGN_OR_RETURN(Value im, e.Unary(Opcode::kImag, x));
    XJIT_TF_ASSIGN_OR_RETURN(Value nim, e.Neg(im));
    XJIT_TF_ASSIGN_OR_RETURN(Value conj, e.Binary(Opcode::kComplex, re, nim));
    XJIT_TF_ASSIGN_OR_RETURN(Value ay, e.Convert(ctx.y(), x->shape().dtype));
    XJIT_TF_ASSIGN_OR_RETURN(Value den, ReplaceZero(e, ay));
    XJIT_TF_ASSIGN_OR_RETURN(Value k, e.Div(conj, den));
    XJIT_TF_ASSIGN_OR_RETURN(Value tk, e.Mul(ctx.t(0), k));
    XJIT_TF_ASSIGN_OR_RETURN(Value t, e.Unary(Opcode::kReal, tk));
    return One(t);
  }
  return Scale(ctx, [](Emitter& e, Value x, Value) { return e.Unary(Opcode::kSign, x); });
}

absl::StatusOr<JvpOut> CbrtJvp(JvpContext& ctx) {
  // t / (3 y^2)
  return Scale(ctx, [](Emitter& e, Value, Value y) -> ValueOr {
    XJIT_TF_ASSIGN_OR_RETURN(Value y2, e.Mul(y, y));
    XJIT_TF_ASSIGN_OR_RETURN(Value d, e.MulConst(y2, 3.0));
    XJIT_TF_ASSIGN_OR_RETURN(Value one, e.FullLike(y, 1.0));
    return e.Div(one, d);
  });
}

absl::StatusOr<JvpOut> CosJvp(JvpContext& ctx) {
  return Scale(ctx, [](Emitter& e, Value x, Value) -> ValueOr {
    XJIT_TF_ASSIGN_OR_RETURN(Value s, e.Unary(Opcode::kSine, x));
    return e.Neg(s);
  });
}

absl::StatusOr<JvpOut> SinJvp(JvpContext& ctx) {
  return Scale(ctx, [](Emitter& e, Value x, Value) { return e.Unary(Opcode::kCosine, x); });
}

absl::StatusOr<JvpOut> TanJvp(JvpContext& ctx) {
  // t * (1 + y^2)
  return Scale(ctx, [](Emitter& e, Value, Value y) -> ValueOr {
    XJIT_TF_ASSIGN_OR_RETURN(Value y2, e.Mul(y, y));
    XJIT_TF_ASSIGN_OR_RETURN(Value one, e.FullLike(y, 1.0));
    return e.Add(one, y2);
  });
}

absl::StatusOr<JvpOut> TanhJvp(JvpContext& ctx) {
  // t * (1 + y) * (1 - y), as JAX: no cancellation in 1 - y^2 near |y| = 1.
  return Scale(ctx, [](Emitter& e, Value, Value y) -> ValueOr {
    XJIT_TF_ASSIGN_OR_RETURN(Value one, e.FullLike(y, 1.0));
    XJIT_TF_ASSIGN_OR_RETURN(Value a, e.Add(one, y));
    XJIT_TF_ASSIGN_OR_RETURN(Value b, e.Sub(one, y));
    return e.Mul(a, b);
  });
}

absl::StatusOr<JvpOut> ErfJvp(JvpContext& ctx) {
  // t * 2/sqrt(pi) * exp(-x^2)
  return Scale(ctx, [](Emitter& e, Value x, Value) -> ValueOr {
    XJIT_TF_ASSIGN_OR_RETURN(Value x2, e.Mul(x, x));
    XJIT_TF_ASSIGN_OR_RETURN(Value n, e.Neg(x2));
    XJIT_TF_ASSIGN_OR_RETURN(Value ex, e.Unary(Opcode::kExponential, n));
    return e.MulConst(ex, 2.0 / std::sqrt(M_PI));
  });
}

absl::StatusOr<JvpOut> ExpJvp(JvpContext& ctx) {
  return Scale(ctx, [](Emitter&, Value, Value y) -> ValueOr { return y; });
}

absl::StatusOr<JvpOut> Expm1Jvp(JvpContext& ctx) {
  return Scale(ctx, [](Emitter& e, Value, Value y) -> ValueOr {
    XJIT_TF_ASSIGN_OR_RETURN(Value one, e.FullLike(y, 1.0));
    return e.Add(y, one);
  });
}

absl::StatusOr<JvpOut> LogJvp(JvpContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.Div(ctx.t(0), ctx.x(0)));
  return One(t);
}

absl::StatusOr<JvpOut> Log1pJvp(JvpContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value one, ctx.e.FullLike(ctx.x(0), 1.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value d, ctx.e.Add(one, ctx.x(0)));
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.Div(ctx.t(0), d));
  return One(t);
}

absl::StatusOr<JvpOut> LogisticJvp(JvpContext& ctx) {
  // t * y * (1 - y)
  return Scale(ctx, [](Emitter& e, Value, Value y) -> ValueOr {
    XJIT_TF_ASSIGN_OR_RETURN(Value one, e.FullLike(y, 1.0));
    XJIT_TF_ASSIGN_OR_RETURN(Value b, e.Sub(one, y));
    return e.Mul(y, b);
  });
}

absl::StatusOr<JvpOut> NegateJvp(JvpContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.Neg(ctx.t(0)));
  return One(t);
}

absl::StatusOr<JvpOut> RsqrtJvp(JvpContext& ctx) {
  // t * -0.5 * y / x
  return Scale(ctx, [](Emitter& e, Value x, Value y) -> ValueOr {
    XJIT_TF_ASSIGN_OR_RETURN(Value q, e.Div(y, x));
    return e.MulConst(q, -0.5);
  });
}

absl::StatusOr<JvpOut> SqrtJvp(JvpContext& ctx) {
  // t * 0.5 / y
  return Scale(ctx, [](Emitter& e, Value, Value y) -> ValueOr {
    XJIT_TF_ASSIGN_OR_RETURN(Value half, e.FullLike(y, 0.5));
    return e.Div(half, y);
  });
}

// real, imag: linear.
absl::StatusOr<JvpOut> SameOpJvp(JvpContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.builder().Add(ctx.old.opcode(), {ctx.t(0)}));
  return One(t);
}

// Rounding the tangent the same way (JAX's rule: the op is treated as linear).
absl::StatusOr<JvpOut> ReducePrecisionJvp(JvpContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(
      Value t, ctx.e.builder().Add(ctx.old.opcode(), {ctx.t(0)}, ctx.old.attributes()));
  return One(t);
}

absl::StatusOr<JvpOut> ConvertJvp(JvpContext& ctx) {
  if (!IsDifferentiable(ctx.x(0)->shape().dtype)) return One(nullptr);
  // complex -> real keeps the real part, of the tangent too (JAX's rule).
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.Convert(ctx.t(0), ctx.y()->shape().dtype));
  return One(t);
}

// ----------------------------------------------------------------- binary

absl::StatusOr<JvpOut> AddJvp(JvpContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.AddAny(ctx.t(0), ctx.t(1)));
  return One(t);
}

absl::StatusOr<JvpOut> SubtractJvp(JvpContext& ctx) {
  Value t1 = nullptr;
  if (ctx.t(1) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(t1, ctx.e.Neg(ctx.t(1)));
  }
  if (ctx.t(0) == nullptr) return One(t1);
  if (t1 == nullptr) return One(ctx.t(0));
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.Sub(ctx.t(0), ctx.t(1)));
  return One(t);
}

absl::StatusOr<JvpOut> MultiplyJvp(JvpContext& ctx) {
  Value a = nullptr, b = nullptr;
  if (ctx.t(0) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(a, ctx.e.Mul(ctx.t(0), ctx.x(1)));
  }
  if (ctx.t(1) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(b, ctx.e.Mul(ctx.x(0), ctx.t(1)));
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.AddAny(a, b));
  return One(t);
}

absl::StatusOr<JvpOut> DivideJvp(JvpContext& ctx) {
  // t0 / y  -  t1 * (out / y)
  Value a = nullptr, b = nullptr;
  if (ctx.t(0) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(a, ctx.e.Div(ctx.t(0), ctx.x(1)));
  }
  if (ctx.t(1) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(Value q, ctx.e.Div(ctx.y(), ctx.x(1)));
    XJIT_TF_ASSIGN_OR_RETURN(Value nq, ctx.e.Neg(q));
    XJIT_TF_ASSIGN_OR_RETURN(b, ctx.e.Mul(ctx.t(1), nq));
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.AddAny(a, b));
  return One(t);
}

absl::StatusOr<JvpOut> RemainderJvp(JvpContext& ctx) {
  // d/dx rem(x, y) = 1;  d/dy = -trunc(x / y)
  Value b = nullptr;
  if (ctx.t(1) != nullptr) {
    Emitter& e = ctx.e;
    XJIT_TF_ASSIGN_OR_RETURN(Value q, e.Div(ctx.x(0), ctx.x(1)));
    XJIT_TF_ASSIGN_OR_RETURN(Value s, e.Unary(Opcode::kSign, q));
    XJIT_TF_ASSIGN_OR_RETURN(Value aq, e.Unary(Opcode::kAbs, q));
    XJIT_TF_ASSIGN_OR_RETURN(Value fq, e.Unary(Opcode::kFloor, aq));
    XJIT_TF_ASSIGN_OR_RETURN(Value tq, e.Mul(s, fq));
    XJIT_TF_ASSIGN_OR_RETURN(Value ntq, e.Neg(tq));
    XJIT_TF_ASSIGN_OR_RETURN(b, e.Mul(ctx.t(1), ntq));
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.AddAny(ctx.t(0), b));
  return One(t);
}

// select(x == 0, 1, x)
ValueOr ReplaceZero(Emitter& e, Value x) {
  XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.FullLike(x, 0.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value one, e.FullLike(x, 1.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value is_zero, e.Compare(Dir::kEq, x, zero));
  return e.Select(is_zero, one, x);
}

absl::StatusOr<JvpOut> PowerJvp(JvpContext& ctx) {
  Emitter& e = ctx.e;
  Value x = ctx.x(0), p = ctx.x(1);
  Value a = nullptr, b = nullptr;
  if (ctx.t(0) != nullptr) {
    // t0 * (p == 0 ? 0 : p * x^(p - 1))   (JAX's _pow_jvp_lhs)
    if (!IsDifferentiable(p->shape().dtype)) {
      return absl::UnimplementedError("jvp: no JVP rule for 'power' with an integer exponent yet");
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.FullLike(p, 0.0));
    XJIT_TF_ASSIGN_OR_RETURN(Value one, e.FullLike(p, 1.0));
    XJIT_TF_ASSIGN_OR_RETURN(Value pm1, e.Sub(p, one));
    XJIT_TF_ASSIGN_OR_RETURN(Value pw, e.Binary(Opcode::kPower, x, pm1));
    XJIT_TF_ASSIGN_OR_RETURN(Value rp, ReplaceZero(e, p));
    XJIT_TF_ASSIGN_OR_RETURN(Value jac, e.Mul(rp, pw));
    XJIT_TF_ASSIGN_OR_RETURN(Value p0, e.Compare(Dir::kEq, p, zero));
    XJIT_TF_ASSIGN_OR_RETURN(Value j, e.Select(p0, zero, jac));
    XJIT_TF_ASSIGN_OR_RETURN(a, e.Mul(ctx.t(0), j));
  }
  if (ctx.t(1) != nullptr) {
    // t1 * log(replace_zero(x)) * y   (JAX's _pow_jvp_rhs)
    XJIT_TF_ASSIGN_OR_RETURN(Value rx, ReplaceZero(e, x));
    XJIT_TF_ASSIGN_OR_RETURN(Value lx, e.Unary(Opcode::kLog, rx));
    XJIT_TF_ASSIGN_OR_RETURN(Value k, e.Mul(lx, ctx.y()));
    XJIT_TF_ASSIGN_OR_RETURN(b, e.Mul(ctx.t(1), k));
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value t, e.AddAny(a, b));
  return One(t);
}

// JAX's _balanced_eq(x, z, y): 1 where x alone attains z, 0.5 on a tie, 0 elsewhere.
ValueOr BalancedEq(Emitter& e, Value x, Value z, Value y) {
  XJIT_TF_ASSIGN_OR_RETURN(Value xz, e.Compare(Dir::kEq, x, z));
  XJIT_TF_ASSIGN_OR_RETURN(Value yz, e.Compare(Dir::kEq, y, z));
  XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.FullLike(z, 0.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value half, e.FullLike(z, 0.5));
  XJIT_TF_ASSIGN_OR_RETURN(Value one, e.FullLike(z, 1.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value tie, e.Select(yz, half, one));
  return e.Select(xz, tie, zero);
}

absl::StatusOr<JvpOut> MinMaxJvp(JvpContext& ctx) {
  Value a = nullptr, b = nullptr;
  if (ctx.t(0) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(Value k, BalancedEq(ctx.e, ctx.x(0), ctx.y(), ctx.x(1)));
    XJIT_TF_ASSIGN_OR_RETURN(a, ctx.e.Mul(ctx.t(0), k));
  }
  if (ctx.t(1) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(Value k, BalancedEq(ctx.e, ctx.x(1), ctx.y(), ctx.x(0)));
    XJIT_TF_ASSIGN_OR_RETURN(b, ctx.e.Mul(ctx.t(1), k));
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.AddAny(a, b));
  return One(t);
}

absl::StatusOr<JvpOut> Atan2Jvp(JvpContext& ctx) {
  // atan2(a, b): da -> b / (a^2 + b^2), db -> -a / (a^2 + b^2)
  Emitter& e = ctx.e;
  XJIT_TF_ASSIGN_OR_RETURN(Value a2, e.Mul(ctx.x(0), ctx.x(0)));
  XJIT_TF_ASSIGN_OR_RETURN(Value b2, e.Mul(ctx.x(1), ctx.x(1)));
  XJIT_TF_ASSIGN_OR_RETURN(Value den, e.Add(a2, b2));
  Value ta = nullptr, tb = nullptr;
  if (ctx.t(0) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(Value k, e.Div(ctx.x(1), den));
    XJIT_TF_ASSIGN_OR_RETURN(ta, e.Mul(ctx.t(0), k));
  }
  if (ctx.t(1) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(Value na, e.Neg(ctx.x(0)));
    XJIT_TF_ASSIGN_OR_RETURN(Value k, e.Div(na, den));
    XJIT_TF_ASSIGN_OR_RETURN(tb, e.Mul(ctx.t(1), k));
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value t, e.AddAny(ta, tb));
  return One(t);
}

absl::StatusOr<JvpOut> ComplexJvp(JvpContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value re, ctx.TOrZeros(0));
  XJIT_TF_ASSIGN_OR_RETURN(Value im, ctx.TOrZeros(1));
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.Binary(Opcode::kComplex, re, im));
  return One(t);
}

// ---------------------------------------------------------------- ternary

absl::StatusOr<JvpOut> SelectJvp(JvpContext& ctx) {
  Emitter& e = ctx.e;
  const std::vector<int64_t>& dims = ctx.y()->shape().dims;
  Value pred = ctx.x(0);
  if (pred->shape().rank() == 0 && !dims.empty()) {
    XJIT_TF_ASSIGN_OR_RETURN(pred, e.BroadcastInDim(pred, dims, {}));
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value a, ctx.TOrZeros(1));
  XJIT_TF_ASSIGN_OR_RETURN(Value b, ctx.TOrZeros(2));
  XJIT_TF_ASSIGN_OR_RETURN(Value t, e.Select(pred, a, b));
  return One(t);
}

absl::StatusOr<JvpOut> ClampJvp(JvpContext& ctx) {
  // clamp(lo, x, hi), JAX's three rules; scalar bounds are broadcast first.
  Emitter& e = ctx.e;
  const std::vector<int64_t>& dims = ctx.y()->shape().dims;
  XJIT_TF_ASSIGN_OR_RETURN(Value lo, e.BroadcastScalarTo(ctx.x(0), dims));
  XJIT_TF_ASSIGN_OR_RETURN(Value hi, e.BroadcastScalarTo(ctx.x(2), dims));
  Value x = ctx.x(1);
  XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.FullLike(ctx.y(), 0.0));
  Value t = nullptr;
  if (ctx.t(0) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(Value g, e.BroadcastScalarTo(ctx.t(0), dims));
    XJIT_TF_ASSIGN_OR_RETURN(Value c1, e.Compare(Dir::kGt, lo, x));
    XJIT_TF_ASSIGN_OR_RETURN(Value c2, e.Compare(Dir::kLt, lo, hi));
    XJIT_TF_ASSIGN_OR_RETURN(Value c, e.Binary(Opcode::kAnd, c1, c2));
    XJIT_TF_ASSIGN_OR_RETURN(Value s, e.Select(c, g, zero));
    XJIT_TF_ASSIGN_OR_RETURN(t, e.AddAny(t, s));
  }
  if (ctx.t(1) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(Value c1, e.Compare(Dir::kGt, x, lo));
    XJIT_TF_ASSIGN_OR_RETURN(Value c2, e.Compare(Dir::kLt, x, hi));
    XJIT_TF_ASSIGN_OR_RETURN(Value c, e.Binary(Opcode::kAnd, c1, c2));
    XJIT_TF_ASSIGN_OR_RETURN(Value s, e.Select(c, ctx.t(1), zero));
    XJIT_TF_ASSIGN_OR_RETURN(t, e.AddAny(t, s));
  }
  if (ctx.t(2) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(Value g, e.BroadcastScalarTo(ctx.t(2), dims));
    XJIT_TF_ASSIGN_OR_RETURN(Value c, e.Compare(Dir::kLt, hi, x));
    XJIT_TF_ASSIGN_OR_RETURN(Value s, e.Select(c, g, zero));
    XJIT_TF_ASSIGN_OR_RETURN(t, e.AddAny(t, s));
  }
  return One(t);
}

// ------------------------------------------------------ linear data movement

// The same op applied to the tangents (zeros for the operands without one):
// broadcast_in_dim, reshape, transpose, slice, concatenate, pad, reverse.
absl::StatusOr<JvpOut> LinearJvp(JvpContext& ctx) {
  std::vector<Value> ts;
  for (size_t i = 0; i < ctx.primal_operands.size(); ++i) {
    XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.TOrZeros(static_cast<int>(i)));
    ts.push_back(t);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value t, CloneOnto(ctx.e.builder(), ctx.old, ts));
  return One(t);
}

absl::StatusOr<JvpOut> DotGeneralJvp(JvpContext& ctx) {
  const DotDimensionNumbers& d = ctx.old.attrs<DotGeneralAttrs>().dot_dimension_numbers;
  Value a = nullptr, b = nullptr;
  if (ctx.t(0) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(a, ctx.e.DotGeneral(ctx.t(0), ctx.x(1), d));
  }
  if (ctx.t(1) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(b, ctx.e.DotGeneral(ctx.x(0), ctx.t(1), d));
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.AddAny(a, b));
  return One(t);
}

// ------------------------------------------------------------------ reduce

// The op of a body (a, b) -> op(a, b) or op(b, a), if it is one.
std::optional<Opcode> BinaryBodyOp(const Computation& body) {
  if (body.parameters().size() != 2 || body.results().size() != 1) return std::nullopt;
  const Instruction* r = body.results()[0];
  if (!IsElementwiseBinary(r->opcode()) || r->operands().size() != 2) return std::nullopt;
  const Instruction* p0 = body.parameters()[0];
  const Instruction* p1 = body.parameters()[1];
  bool straight = r->operand(0) == p0 && r->operand(1) == p1;
  bool swapped = r->operand(0) == p1 && r->operand(1) == p0;
  if (!straight && !(swapped && IsCommutative(r->opcode()))) return std::nullopt;
  return r->opcode();
}

// JAX's _reduce_prod_jvp_rule: the product as a balanced tree of pairwise
// multiplies, differentiated by the product rule. No division, so zeros in
// the input are fine. The reduced dimensions are moved to the front and
// flattened: x as [n, rest]; each level multiplies even rows by odd rows
// (an odd n is padded with a row of ones first).
absl::StatusOr<JvpOut> ProdJvp(JvpContext& ctx, const std::vector<int64_t>& dims) {
  Emitter& e = ctx.e;
  Value x = ctx.x(0), y = ctx.y();
  const Shape& xs = x->shape();
  std::vector<int64_t> perm = dims, kept;
  int64_t n = 1, rest = 1;
  for (int64_t d : dims) n *= xs.dims[d];
  for (int64_t d = 0; d < xs.rank(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) {
      perm.push_back(d);
      kept.push_back(d);
      rest *= xs.dims[d];
    }
  }
  DType dt = xs.dtype;
  Value t = nullptr;
  Value p = nullptr;  // the product over the reduced dims, as y's dims
  if (n == 0) {
    XJIT_TF_ASSIGN_OR_RETURN(p, e.Full(dt, y->shape().dims, 1.0));
  } else {
    XJIT_TF_ASSIGN_OR_RETURN(Value xt, e.Transpose(x, perm));
    XJIT_TF_ASSIGN_OR_RETURN(Value xv, e.Reshape(xt, {n, rest}));
    Value tv = nullptr;
    if (ctx.t(0) != nullptr) {
      XJIT_TF_ASSIGN_OR_RETURN(Value tt, e.Transpose(ctx.t(0), perm));
      XJIT_TF_ASSIGN_OR_RETURN(tv, e.Reshape(tt, {n, rest}));
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value one, e.Full(dt, {}, 1.0));
    XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.Full(dt, {}, 0.0));
    while (n > 1) {
      if (n % 2 == 1) {
        XJIT_TF_ASSIGN_OR_RETURN(xv, e.Pad(xv, one, {0, 0}, {1, 0}, {0, 0}));
        if (tv != nullptr) {
          XJIT_TF_ASSIGN_OR_RETURN(tv, e.Pad(tv, zero, {0, 0}, {1, 0}, {0, 0}));
        }
        ++n;
      }
      XJIT_TF_ASSIGN_OR_RETURN(Value xa, e.Slice(xv, {0, 0}, {n, rest}, {2, 1}));
      XJIT_TF_ASSIGN_OR_RETURN(Value xb, e.Slice(xv, {1, 0}, {n, rest}, {2, 1}));
      if (tv != nullptr) {
        XJIT_TF_ASSIGN_OR_RETURN(Value ta, e.Slice(tv, {0, 0}, {n, rest}, {2, 1}));
        XJIT_TF_ASSIGN_OR_RETURN(Value tb, e.Slice(tv, {1, 0}, {n, rest}, {2, 1}));
        XJIT_TF_ASSIGN_OR_RETURN(Value l, e.Mul(ta, xb));
        XJIT_TF_ASSIGN_OR_RETURN(Value r, e.Mul(xa, tb));
        XJIT_TF_ASSIGN_OR_RETURN(tv, e.Add(l, r));
      }
      XJIT_TF_ASSIGN_OR_RETURN(xv, e.Mul(xa, xb));
      n /= 2;
    }
    XJIT_TF_ASSIGN_OR_RETURN(p, e.Reshape(xv, y->shape().dims));
    if (tv != nullptr) {
      XJIT_TF_ASSIGN_OR_RETURN(t, e.Reshape(tv, y->shape().dims));
    }
  }
  // y = init * p:  dy = init * dp + dinit * p
  if (t != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(Value init, e.BroadcastScalarTo(ctx.x(1), y->shape().dims));
    XJIT_TF_ASSIGN_OR_RETURN(t, e.Mul(t, init));
  }
  if (ctx.t(1) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(Value ti, e.BroadcastScalarTo(ctx.t(1), y->shape().dims));
    XJIT_TF_ASSIGN_OR_RETURN(Value s, e.Mul(ti, p));
    XJIT_TF_ASSIGN_OR_RETURN(t, e.AddAny(t, s));
  }
  return One(t);
}

absl::StatusOr<JvpOut> ReduceJvp(JvpContext& ctx) {
  if (ctx.primal_operands.size() != 2) {
    return absl::UnimplementedError("jvp: no JVP rule for a variadic 'reduce' yet");
  }
  Emitter& e = ctx.e;
  const std::vector<int64_t>& dims = ctx.old.attrs<ReduceAttrs>().dimensions;
  std::optional<Opcode> op = BinaryBodyOp(*ctx.old.called_computations()[0]);
  Value x = ctx.x(0), y = ctx.y();
  if (op == Opcode::kAdd) {
    Value t = nullptr;
    if (ctx.t(0) != nullptr) {
      XJIT_TF_ASSIGN_OR_RETURN(t, e.ReduceSum(ctx.t(0), dims));
    }
    if (ctx.t(1) != nullptr) {  // the init value is added once per output element
      XJIT_TF_ASSIGN_OR_RETURN(Value ti, e.BroadcastScalarTo(ctx.t(1), y->shape().dims));
      XJIT_TF_ASSIGN_OR_RETURN(t, e.AddAny(t, ti));
    }
    return One(t);
  }
  if (op == Opcode::kMaximum || op == Opcode::kMinimum) {
    // JAX's reduce_chooser_jvp_rule: the tangent at the locations attaining
    // the result, averaged over ties. The init value's tangent is dropped.
    if (ctx.t(0) == nullptr) return One(nullptr);
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < x->shape().rank(); ++d) {
      if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back(d);
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value yb, e.BroadcastInDim(y, x->shape().dims, kept));
    XJIT_TF_ASSIGN_OR_RETURN(Value at, e.Compare(Dir::kEq, x, yb));
    XJIT_TF_ASSIGN_OR_RETURN(Value loc, e.Convert(at, x->shape().dtype));
    XJIT_TF_ASSIGN_OR_RETURN(Value counts, e.ReduceSum(loc, dims));
    XJIT_TF_ASSIGN_OR_RETURN(Value picked, e.Mul(ctx.t(0), loc));
    XJIT_TF_ASSIGN_OR_RETURN(Value sum, e.ReduceSum(picked, dims));
    XJIT_TF_ASSIGN_OR_RETURN(Value t, e.Div(sum, counts));
    return One(t);
  }
  if (op == Opcode::kMultiply) return ProdJvp(ctx, dims);
  return absl::UnimplementedError(absl::StrCat(
      "jvp: no JVP rule for 'reduce' with a ",
      op.has_value() ? absl::StrCat("'", OpcodeName(*op), "'") : std::string("general"),
      " body yet (sum, max and min are differentiable)"));
}

// -------------------------------------------------------------- call, fusion

// Differentiates the called body in place (the call is inlined).
absl::StatusOr<JvpOut> InlineJvp(JvpContext& ctx) {
  const Computation& callee = *ctx.old.called_computations()[0];
  XJIT_TF_ASSIGN_OR_RETURN(std::optional<CustomCall> custom, AsCustomCall(ctx.old));
  if (custom.has_value()) return CustomCallJvp(ctx, *custom);
  if (std::optional<Collective> c = AsCollective(callee)) return CollectiveJvp(ctx, *c);
  if (IsStopGradient(callee)) {  // the identity, with a zero tangent
    XJIT_TF_ASSIGN_OR_RETURN(Value v, CloneOnto(ctx.e.builder(), ctx.old, {ctx.x(0)}));
    return JvpOut{{v}, {nullptr}};
  }
  Parts primals, tangents;
  for (size_t i = 0; i < ctx.primal_operands.size(); ++i) {
    primals.push_back(ctx.primal_operands[i][0]);
    tangents.push_back(ctx.tangent_operands[i][0]);
  }
  XJIT_TF_ASSIGN_OR_RETURN(auto out,
                           ctx.driver.Run(*ctx.old.called_computations()[0], primals, tangents));
  return JvpOut{out.first, out.second};
}

}  // namespace

std::optional<Opcode> ReduceBodyOp(const Computation& body) { return BinaryBodyOp(body); }

JvpRule JvpRuleFor(Opcode op) {
  switch (op) {
    case Opcode::kParameter:  // bound by the driver
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    // No rule: rng_bit_generator's results are integers (never asked).
    case Opcode::kRngBitGenerator:
      return nullptr;
    // An opaque host function: differentiable only through a custom_jvp around
    // it; the rule raises JAX's error for callbacks and FFI calls.
    case Opcode::kCustomCall:
      return CustomCallJvp;
    case Opcode::kMap: return MapJvp;
    case Opcode::kReducePrecision: return ReducePrecisionJvp;
    case Opcode::kSort: return SortJvp;
    case Opcode::kGather: return GatherJvp;
    case Opcode::kScatter: return ScatterJvp;
    case Opcode::kDynamicSlice: return DynamicSliceJvp;
    case Opcode::kDynamicUpdateSlice: return DynamicUpdateSliceJvp;
    case Opcode::kIf:
    case Opcode::kCase:
      return BranchJvp;
    case Opcode::kWhile:
      return WhileJvp;
    case Opcode::kConstant:
    case Opcode::kIota:
    case Opcode::kCeil:
    case Opcode::kFloor:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kSign:
    // Integer or boolean results: the driver never asks for these.
    case Opcode::kCountLeadingZeros:
    case Opcode::kIsFinite:
    case Opcode::kNot:
    case Opcode::kPopcnt:
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kCompare:
    // A float-to-float bitcast has a zero tangent, as in JAX (defjvp_zero).
    case Opcode::kBitcastConvert:
      return ZeroTangent;
    case Opcode::kAbs: return AbsJvp;
    case Opcode::kCbrt: return CbrtJvp;
    case Opcode::kCosine: return CosJvp;
    case Opcode::kErf: return ErfJvp;
    case Opcode::kExponential: return ExpJvp;
    case Opcode::kExponentialMinusOne: return Expm1Jvp;
    case Opcode::kImag: return SameOpJvp;
    case Opcode::kLog: return LogJvp;
    case Opcode::kLogPlusOne: return Log1pJvp;
    case Opcode::kLogistic: return LogisticJvp;
    case Opcode::kNegate: return NegateJvp;
    case Opcode::kReal: return SameOpJvp;
    case Opcode::kRsqrt: return RsqrtJvp;
    case Opcode::kSine: return SinJvp;
    case Opcode::kSqrt: return SqrtJvp;
    case Opcode::kTan: return TanJvp;
    case Opcode::kTanh: return TanhJvp;
    case Opcode::kConvert: return ConvertJvp;
    case Opcode::kAdd: return AddJvp;
    case Opcode::kSubtract: return SubtractJvp;
    case Opcode::kMultiply: return MultiplyJvp;
    case Opcode::kDivide: return DivideJvp;
    case Opcode::kRemainder: return RemainderJvp;
    case Opcode::kPower: return PowerJvp;
    case Opcode::kMaximum:
    case Opcode::kMinimum:
      return MinMaxJvp;
    case Opcode::kAtan2: return Atan2Jvp;
    case Opcode::kComplex: return ComplexJvp;
    case Opcode::kSelect: return SelectJvp;
    case Opcode::kClamp: return ClampJvp;
    case Opcode::kBroadcastInDim:
    case Opcode::kReshape:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kConcatenate:
    case Opcode::kPad:
    case Opcode::kReverse:
      return LinearJvp;
    case Opcode::kDotGeneral: return DotGeneralJvp;
    case Opcode::kReduce: return ReduceJvp;
    case Opcode::kCall:
    case Opcode::kComposite:  // its decomposition, differentiated in place
    case Opcode::kFusion:
      return InlineJvp;
    case Opcode::kConvolution: return ConvolutionJvp;
    case Opcode::kReduceWindow: return ReduceWindowJvp;
    case Opcode::kSelectAndScatter: return SelectAndScatterJvp;
    case Opcode::kBatchNormInference: return BatchNormInferenceJvp;
    case Opcode::kBatchNormTraining: return BatchNormTrainingJvp;
    case Opcode::kBatchNormGrad: return BatchNormGradJvp;
    case Opcode::kCholesky: return CholeskyJvp;
    case Opcode::kTriangularSolve: return TriangularSolveJvp;
    // issue 11 (h-fft)
    case Opcode::kFft: return FftJvp;
    case Opcode::kOptimizationBarrier: return OptimizationBarrierJvp;
    case Opcode::kReplicaId:  // integer results
    case Opcode::kPartitionId:
      return ZeroTangent;
    // No rule: lowered to static ops at compile time, after any transform.
    XJIT_DYNAMIC_SHAPE_OPS(XJIT_OPCODE_CASE)
    case Opcode::kRng:
    case Opcode::kUniformQuantize:  // lowered with their types first
    case Opcode::kUniformDequantize:
      return nullptr;
    // Tokens carry no tangent; an outfeed or send of a differentiated value
    // transfers the primal (as debug.print under grad prints the primal).
    XJIT_HOST_IO_OPS(XJIT_OPCODE_CASE)
      return ZeroTangent;
  }
  return nullptr;
}

// while builds its primal too: one loop carries the values and their tangents.
bool JvpRuleInlines(Opcode op) {
  return op == Opcode::kCall || op == Opcode::kFusion || op == Opcode::kWhile ||
         op == Opcode::kComposite;
}

}  // namespace xjit::transforms
