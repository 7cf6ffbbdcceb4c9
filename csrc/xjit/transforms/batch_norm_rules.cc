// JVP and batching rules of batch_norm_inference/training/grad. None of the
// three is linear, so none has a transpose rule: their tangents are built
// from primitive ops that are linear in the tangents (multiplications by
// primal values, sums, broadcasts), which the transpose pass already handles.
//
// Notation (all per feature c, broadcast along feature_index):
// inv = rsqrt(variance + epsilon), xc = x - mean, xhat = xc * inv, N = the
// number of elements per feature.
// - inference: y = scale * xhat + offset;
//   dy = scale*inv*(dx - dmean) + dscale*xhat + doffset - scale*inv^3/2*dvar*xc.
// - training: mean and variance come from x: dmean = sum(dx)/N,
//   dvar = 2*sum(xc*dx)/N; then as inference.
// - grad: with g = grad_output, goff = sum(g), gs = sum(g*xhat),
//   grad_operand = scale*inv*(g - goff/N - xhat*gs/N); each result is
//   differentiated term by term (dxhat = (dx - dmean)*inv + xc*dinv).
// Batching folds the vmapped dimension into the feature dimension: the batch
// moves next to feature_index and merges with it (B*C features), so that
// training and grad compute per-lane statistics; results are split back.
#include "xjit/transforms/batch_norm_rules.h"

#include <vector>

#include "xjit/transforms/status_macros.h"

namespace xjit::transforms {
namespace {

// Tangent arithmetic where a null value is a symbolic zero.
class Tangents {
 public:
  Tangents(Emitter& e, const Shape& operand, int64_t feature_index)
      : e_(e), dims_(operand.dims), f_(feature_index) {
    for (int64_t i = 0; i < operand.rank(); ++i) {
      if (i != f_) reduce_dims_.push_back(i);
    }
    int64_t n = 1;
    for (int64_t d : reduce_dims_) n *= operand.dims[d];
    n_ = static_cast<double>(n);
  }
  double n() const { return n_; }
  // A per-feature vector broadcast to the operand's shape.
  ValueOr B(Value v) {
    if (v == nullptr) return nullptr;
    return e_.BroadcastInDim(v, dims_, {f_});
  }
  // The per-feature sum over every other dimension.
  ValueOr Sum(Value v) {
    if (v == nullptr) return nullptr;
    return e_.ReduceSum(v, reduce_dims_);
  }
  // p * t for a primal p.
  ValueOr Mul(Value p, Value t) {
    if (t == nullptr) return nullptr;
    return e_.Mul(p, t);
  }
  ValueOr MulConst(Value t, double c) {
    if (t == nullptr) return nullptr;
    return e_.MulConst(t, c);
  }
  ValueOr Add(Value a, Value b) { return e_.AddAny(a, b); }
  ValueOr Sub(Value a, Value b) {
    if (b == nullptr) return a;
    if (a == nullptr) return e_.Neg(b);
    return e_.Sub(a, b);
  }

 private:
  Emitter& e_;
  std::vector<int64_t> dims_;
  int64_t f_;
  std::vector<int64_t> reduce_dims_;
  double n_ = 1.0;
};

// Primal values every rule needs.
struct Normalized {
  Value inv = nullptr;       // rsqrt(variance + epsilon), per feature
  Value inv_full = nullptr;  // inv broadcast
  Value xc = nullptr;        // x - mean
  Value xhat = nullptr;      // xc * inv
};

absl::StatusOr<Normalized> Normalize(Emitter& e, Tangents& t, Value x, Value mean, Value variance,
                                     float epsilon) {
  Normalized out;
  XJIT_TF_ASSIGN_OR_RETURN(Value eps, e.FullLike(variance, epsilon));
  XJIT_TF_ASSIGN_OR_RETURN(Value ve, e.Add(variance, eps));
  XJIT_TF_ASSIGN_OR_RETURN(out.inv, e.Unary(Opcode::kRsqrt, ve));
  XJIT_TF_ASSIGN_OR_RETURN(out.inv_full, t.B(out.inv));
  XJIT_TF_ASSIGN_OR_RETURN(Value mean_full, t.B(mean));
  XJIT_TF_ASSIGN_OR_RETURN(out.xc, e.Sub(x, mean_full));
  XJIT_TF_ASSIGN_OR_RETURN(out.xhat, e.Mul(out.xc, out.inv_full));
  return out;
}

// dinv = -inv^3/2 * dvar (null when dvar is).
ValueOr InvTangent(Emitter& e, Tangents& t, const Normalized& n, Value dvar) {
  if (dvar == nullptr) return nullptr;
  XJIT_TF_ASSIGN_OR_RETURN(Value inv2, e.Mul(n.inv, n.inv));
  XJIT_TF_ASSIGN_OR_RETURN(Value inv3, e.Mul(inv2, n.inv));
  XJIT_TF_ASSIGN_OR_RETURN(Value k, e.MulConst(inv3, -0.5));
  return t.Mul(k, dvar);
}

// The tangent of scale * xhat + offset.
ValueOr InferenceTangent(Emitter& e, Tangents& t, const Normalized& n, Value scale, Value dx,
                         Value dscale, Value doffset, Value dmean, Value dvar) {
  XJIT_TF_ASSIGN_OR_RETURN(Value dmean_full, t.B(dmean));
  XJIT_TF_ASSIGN_OR_RETURN(Value dxc, t.Sub(dx, dmean_full));
  XJIT_TF_ASSIGN_OR_RETURN(Value scale_inv, e.Mul(scale, n.inv));
  XJIT_TF_ASSIGN_OR_RETURN(Value scale_inv_full, t.B(scale_inv));
  XJIT_TF_ASSIGN_OR_RETURN(Value dy, t.Mul(scale_inv_full, dxc));
  XJIT_TF_ASSIGN_OR_RETURN(Value dscale_full, t.B(dscale));
  XJIT_TF_ASSIGN_OR_RETURN(Value from_scale, t.Mul(n.xhat, dscale_full));
  XJIT_TF_ASSIGN_OR_RETURN(dy, t.Add(dy, from_scale));
  XJIT_TF_ASSIGN_OR_RETURN(Value doffset_full, t.B(doffset));
  XJIT_TF_ASSIGN_OR_RETURN(dy, t.Add(dy, doffset_full));
  XJIT_TF_ASSIGN_OR_RETURN(Value dinv, InvTangent(e, t, n, dvar));
  XJIT_TF_ASSIGN_OR_RETURN(Value scale_dinv, t.Mul(scale, dinv));
  XJIT_TF_ASSIGN_OR_RETURN(Value scale_dinv_full, t.B(scale_dinv));
  XJIT_TF_ASSIGN_OR_RETURN(Value from_var, t.Mul(n.xc, scale_dinv_full));
  return t.Add(dy, from_var);
}

const BatchNormAttrs& Attrs(const JvpContext& ctx) { return ctx.old.attrs<BatchNormAttrs>(); }

}  // namespace

absl::StatusOr<JvpOut> BatchNormInferenceJvp(JvpContext& ctx) {
  Emitter& e = ctx.e;
  Tangents t(e, ctx.x(0)->shape(), Attrs(ctx).feature_index);
  XJIT_TF_ASSIGN_OR_RETURN(Normalized n, Normalize(e, t, ctx.x(0), ctx.x(3), ctx.x(4),
                                                   Attrs(ctx).epsilon));
  XJIT_TF_ASSIGN_OR_RETURN(Value dy, InferenceTangent(e, t, n, ctx.x(1), ctx.t(0), ctx.t(1),
                                                      ctx.t(2), ctx.t(3), ctx.t(4)));
  JvpOut out;
  out.tangents = {dy};
  return out;
}

absl::StatusOr<JvpOut> BatchNormTrainingJvp(JvpContext& ctx) {
  Emitter& e = ctx.e;
  Tangents t(e, ctx.x(0)->shape(), Attrs(ctx).feature_index);
  Value mean = ctx.results[1], variance = ctx.results[2];
  XJIT_TF_ASSIGN_OR_RETURN(Normalized n, Normalize(e, t, ctx.x(0), mean, variance,
                                                   Attrs(ctx).epsilon));
  Value dx = ctx.t(0);
  XJIT_TF_ASSIGN_OR_RETURN(Value sum_dx, t.Sum(dx));
  XJIT_TF_ASSIGN_OR_RETURN(Value dmean, t.MulConst(sum_dx, 1.0 / t.n()));
  XJIT_TF_ASSIGN_OR_RETURN(Value xc_dx, t.Mul(n.xc, dx));
  XJIT_TF_ASSIGN_OR_RETURN(Value sum_xc_dx, t.Sum(xc_dx));
  XJIT_TF_ASSIGN_OR_RETURN(Value dvar, t.MulConst(sum_xc_dx, 2.0 / t.n()));
  XJIT_TF_ASSIGN_OR_RETURN(Value dy, InferenceTangent(e, t, n, ctx.x(1), dx, ctx.t(1), ctx.t(2),
                                                      dmean, dvar));
  JvpOut out;
  out.tangents = {dy, dmean, dvar};
  return out;
}

absl::StatusOr<JvpOut> BatchNormGradJvp(JvpContext& ctx) {
  Emitter& e = ctx.e;
  Tangents t(e, ctx.x(0)->shape(), Attrs(ctx).feature_index);
  Value scale = ctx.x(1), g = ctx.x(4);
  Value dx = ctx.t(0), dscale = ctx.t(1), dmean = ctx.t(2), dvar = ctx.t(3), dg = ctx.t(4);
  Value gs = ctx.results[1], goff = ctx.results[2];
  XJIT_TF_ASSIGN_OR_RETURN(Normalized n, Normalize(e, t, ctx.x(0), ctx.x(2), ctx.x(3),
                                                   Attrs(ctx).epsilon));
  // dxhat = (dx - dmean) * inv + xc * dinv
  XJIT_TF_ASSIGN_OR_RETURN(Value dmean_full, t.B(dmean));
  XJIT_TF_ASSIGN_OR_RETURN(Value dxc, t.Sub(dx, dmean_full));
  XJIT_TF_ASSIGN_OR_RETURN(Value dxhat, t.Mul(n.inv_full, dxc));
  XJIT_TF_ASSIGN_OR_RETURN(Value dinv, InvTangent(e, t, n, dvar));
  XJIT_TF_ASSIGN_OR_RETURN(Value dinv_full, t.B(dinv));
  XJIT_TF_ASSIGN_OR_RETURN(Value xc_dinv, t.Mul(n.xc, dinv_full));
  XJIT_TF_ASSIGN_OR_RETURN(dxhat, t.Add(dxhat, xc_dinv));
  // d grad_offset = sum(dg); d grad_scale = sum(dg * xhat + g * dxhat).
  XJIT_TF_ASSIGN_OR_RETURN(Value d_goff, t.Sum(dg));
  XJIT_TF_ASSIGN_OR_RETURN(Value dg_xhat, t.Mul(n.xhat, dg));
  XJIT_TF_ASSIGN_OR_RETURN(Value g_dxhat, t.Mul(g, dxhat));
  XJIT_TF_ASSIGN_OR_RETURN(Value d_gs_terms, t.Add(dg_xhat, g_dxhat));
  XJIT_TF_ASSIGN_OR_RETURN(Value d_gs, t.Sum(d_gs_terms));
  // grad_operand = k * r with k = scale * inv, r = g - goff/N - xhat * gs/N:
  // d = dk * r + k * (dg - d_goff/N - dxhat * gs/N - xhat * d_gs/N).
  const double inv_n = 1.0 / t.n();
  XJIT_TF_ASSIGN_OR_RETURN(Value goff_n, e.MulConst(goff, inv_n));
  XJIT_TF_ASSIGN_OR_RETURN(Value gs_n, e.MulConst(gs, inv_n));
  XJIT_TF_ASSIGN_OR_RETURN(Value goff_n_full, t.B(goff_n));
  XJIT_TF_ASSIGN_OR_RETURN(Value gs_n_full, t.B(gs_n));
  XJIT_TF_ASSIGN_OR_RETURN(Value xhat_gs, e.Mul(n.xhat, gs_n_full));
  XJIT_TF_ASSIGN_OR_RETURN(Value r0, e.Sub(g, goff_n_full));
  XJIT_TF_ASSIGN_OR_RETURN(Value r, e.Sub(r0, xhat_gs));
  XJIT_TF_ASSIGN_OR_RETURN(Value dscale_inv, t.Mul(n.inv, dscale));
  XJIT_TF_ASSIGN_OR_RETURN(Value scale_dinv, t.Mul(scale, dinv));
  XJIT_TF_ASSIGN_OR_RETURN(Value dk, t.Add(dscale_inv, scale_dinv));
  XJIT_TF_ASSIGN_OR_RETURN(Value dk_full, t.B(dk));
  XJIT_TF_ASSIGN_OR_RETURN(Value d_go, t.Mul(r, dk_full));
  XJIT_TF_ASSIGN_OR_RETURN(Value d_goff_n, t.MulConst(d_goff, inv_n));
  XJIT_TF_ASSIGN_OR_RETURN(Value d_gs_n, t.MulConst(d_gs, inv_n));
  XJIT_TF_ASSIGN_OR_RETURN(Value d_goff_n_full, t.B(d_goff_n));
  XJIT_TF_ASSIGN_OR_RETURN(Value d_gs_n_full, t.B(d_gs_n));
  XJIT_TF_ASSIGN_OR_RETURN(Value dr, t.Sub(dg, d_goff_n_full));
  XJIT_TF_ASSIGN_OR_RETURN(Value dxhat_gs, t.Mul(gs_n_full, dxhat));
  XJIT_TF_ASSIGN_OR_RETURN(dr, t.Sub(dr, dxhat_gs));
  XJIT_TF_ASSIGN_OR_RETURN(Value xhat_dgs, t.Mul(n.xhat, d_gs_n_full));
  XJIT_TF_ASSIGN_OR_RETURN(dr, t.Sub(dr, xhat_dgs));
  XJIT_TF_ASSIGN_OR_RETURN(Value k, e.Mul(scale, n.inv));
  XJIT_TF_ASSIGN_OR_RETURN(Value k_full, t.B(k));
  XJIT_TF_ASSIGN_OR_RETURN(Value k_dr, t.Mul(k_full, dr));
  XJIT_TF_ASSIGN_OR_RETURN(d_go, t.Add(d_go, k_dr));
  JvpOut out;
  out.tangents = {d_go, d_gs, d_goff};
  return out;
}

absl::StatusOr<BatchOut> BatchNormBatch(BatchContext& ctx) {
  Emitter& e = ctx.e;
  const BatchNormAttrs& attrs = ctx.old.attrs<BatchNormAttrs>();
  const int64_t f = attrs.feature_index;
  const Shape& old_shape = ctx.old.operand(0)->shape();
  const int64_t rank = old_shape.rank();
  const int64_t b = ctx.axis_size, c = old_shape.dims[f];
  // [B, d0, ..., C, ...] -> [d0, ..., B, C, ...] -> [d0, ..., B*C, ...].
  std::vector<int64_t> to_feature;
  for (int64_t i = 1; i <= f; ++i) to_feature.push_back(i);
  to_feature.push_back(0);
  for (int64_t i = f + 1; i <= rank; ++i) to_feature.push_back(i);
  std::vector<int64_t> merged = old_shape.dims;
  merged[f] = b * c;
  std::vector<int64_t> split = old_shape.dims;  // [d0, ..., B, C, ...]
  split.insert(split.begin() + f, b);
  std::vector<int64_t> to_front = {f};  // the inverse of to_feature
  for (int64_t i = 0; i <= rank; ++i) {
    if (i != f) to_front.push_back(i);
  }
  std::vector<Value> ops;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.Batched(static_cast<int>(i)));
    const bool full = i == 0 || (ctx.old.opcode() == Opcode::kBatchNormGrad && i == 4);
    if (!full) {  // a per-feature vector [B, C]
      XJIT_TF_ASSIGN_OR_RETURN(v, e.Reshape(v, {b * c}));
    } else {
      XJIT_TF_ASSIGN_OR_RETURN(v, e.Transpose(v, to_feature));
      XJIT_TF_ASSIGN_OR_RETURN(v, e.Reshape(v, merged));
    }
    ops.push_back(v);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value r, e.builder().Add(ctx.old.opcode(), ops, attrs));
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> parts, SplitTuple(e.builder(), r));
  BatchOut out;
  for (size_t i = 0; i < parts.size(); ++i) {
    Value v = parts[i];
    if (i == 0) {
      XJIT_TF_ASSIGN_OR_RETURN(v, e.Reshape(v, split));
      XJIT_TF_ASSIGN_OR_RETURN(v, e.Transpose(v, to_front));
    } else {
      XJIT_TF_ASSIGN_OR_RETURN(v, e.Reshape(v, {b, c}));
    }
    out.values.push_back(v);
  }
  out.batched.assign(out.values.size(), true);
  return out;
}

}  // namespace xjit::transforms
