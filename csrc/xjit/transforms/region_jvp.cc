#include "xjit/transforms/region_jvp.h"

#include <vector>

#include "xjit/transforms/batching.h"
#include "xjit/transforms/status_macros.h"

namespace xjit::transforms {

absl::StatusOr<JvpOut> MapJvp(JvpContext& ctx) {
  Emitter& e = ctx.e;
  const std::vector<int64_t>& dims = ctx.y()->shape().dims;
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  if (n == 0) {
    XJIT_TF_ASSIGN_OR_RETURN(Value zeros, e.ZerosLike(ctx.y()->shape()));
    return JvpOut{{}, {zeros}};
  }
  // The elements as one vmapped axis: map(f, xs) == vmap(f)(xs) on [n].
  Parts primals, tangents;
  for (size_t i = 0; i < ctx.primal_operands.size(); ++i) {
    XJIT_TF_ASSIGN_OR_RETURN(Value x, e.Reshape(ctx.x(static_cast<int>(i)), {n}));
    primals.push_back(x);
    Value t = ctx.t(static_cast<int>(i));
    if (t != nullptr) {
      XJIT_TF_ASSIGN_OR_RETURN(t, e.Reshape(t, {n}));
    }
    tangents.push_back(t);
  }
  const Computation& fn = *ctx.old.called_computations()[0];
  XJIT_TF_ASSIGN_OR_RETURN(
      Computation * lanes,
      Vmap(fn, std::vector<int64_t>(primals.size(), 0), n, {0}, e.module(), "map_jvp_lanes"));
  XJIT_TF_ASSIGN_OR_RETURN(auto out, ctx.driver.Run(*lanes, primals, tangents));
  XJIT_TF_ASSIGN_OR_RETURN(Value y, e.Reshape(out.first[0], dims));
  Value t = out.second[0];
  if (t != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(t, e.Reshape(t, dims));
  }
  return JvpOut{{y}, {t}};
}

namespace {

// (accumulator primals..., their tangents..., element primals..., their
// tangents...) -> (results..., result tangents...): the body's JVP as a
// reduce_window body, tangents only for the float operands `diff`.
absl::StatusOr<Computation*> BodyJvp(JvpContext& ctx, const Computation& body,
                                     const std::vector<size_t>& diff) {
  const size_t n = body.parameters().size() / 2;
  ComputationBuilder* b = ctx.e.module().NewComputation("reduce_window_jvp_body");
  if (b == nullptr) return absl::FailedPreconditionError("jvp: the module was already built");
  Parts primals(2 * n, nullptr), tangents(2 * n, nullptr);
  for (size_t side = 0; side < 2; ++side) {
    for (size_t i = 0; i < n; ++i) primals[side * n + i] = b->Parameter(Shape(ctx.x(i)->shape().dtype, {}));
    for (size_t d : diff) tangents[side * n + d] = b->Parameter(Shape(ctx.x(d)->shape().dtype, {}));
  }
  JvpDriver inner(ctx.e.module(), *b);
  XJIT_TF_ASSIGN_OR_RETURN(auto out, inner.Run(body, primals, tangents));
  std::vector<Value> results = out.first;
  for (size_t d : diff) {
    Value t = out.second[d];
    if (t == nullptr) {
      XJIT_TF_ASSIGN_OR_RETURN(t, inner.emitter().ZerosLike(out.first[d]->shape()));
    }
    results.push_back(t);
  }
  return b->Finish(results);
}

}  // namespace

absl::StatusOr<JvpOut> GeneralReduceWindowJvp(JvpContext& ctx) {
  if (ctx.driver.for_vjp()) {  // JAX: "Linearization failed ..."
    return absl::FailedPreconditionError(
        "vjp: reduce_window with a body other than one add, max or min is differentiable in "
        "forward mode only (jvp, jacfwd), as in JAX");
  }
  const size_t n = ctx.primal_operands.size() / 2;
  for (size_t i = n; i < 2 * n; ++i) {
    if (ctx.t(static_cast<int>(i)) != nullptr) {
      return absl::InvalidArgumentError(
          "reduce_window jvp does not support non-zero init_value_tangent.");
    }
  }
  std::vector<size_t> diff;  // operands that carry tangents
  for (size_t i = 0; i < n; ++i) {
    if (IsDifferentiable(ctx.x(static_cast<int>(i))->shape().dtype)) diff.push_back(i);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Computation * body,
                           BodyJvp(ctx, *ctx.old.called_computations()[0], diff));
  Emitter& e = ctx.e;
  std::vector<Value> operands, inits;
  for (size_t i = 0; i < n; ++i) {
    operands.push_back(ctx.x(static_cast<int>(i)));
    inits.push_back(ctx.x(static_cast<int>(n + i)));
  }
  for (size_t d : diff) {
    XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.TOrZeros(static_cast<int>(d)));
    operands.push_back(t);
    XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.Full(t->shape().dtype, {}, 0.0));
    inits.push_back(zero);
  }
  operands.insert(operands.end(), inits.begin(), inits.end());
  XJIT_TF_ASSIGN_OR_RETURN(Value r, e.builder().Add(Opcode::kReduceWindow, operands,
                                                    ctx.old.attributes(), {body}));
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> parts, SplitTuple(e.builder(), r));
  JvpOut out;
  out.primals.assign(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(n));
  out.tangents.assign(n, nullptr);
  for (size_t j = 0; j < diff.size(); ++j) out.tangents[diff[j]] = parts[n + j];
  return out;
}

}  // namespace xjit::transforms
