// JVP and transpose of while, if and case (control_flow_rules.h).
#include "xjit/transforms/control_flow_rules.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xjit/transforms/jvp.h"
#include "xjit/transforms/status_macros.h"
#include "xjit/transforms/transpose.h"

namespace xjit::transforms {
namespace {

// A computation with `fn`'s parameters that calls it and returns the results
// `keep` lists.
absl::StatusOr<Computation*> Forward(ModuleBuilder& mb, const Computation& fn,
                                     const std::vector<int>& param_order,
                                     const std::vector<Shape>& param_shapes,
                                     const std::vector<int>& keep, const std::string& name) {
  ComputationBuilder* b = mb.NewComputation(name);
  if (b == nullptr) return absl::FailedPreconditionError("jvp: the module was already built");
  std::vector<Value> params;
  for (const Shape& s : param_shapes) params.push_back(b->Parameter(s));
  std::vector<Value> args;
  for (int i : param_order) args.push_back(params[i]);
  XJIT_TF_ASSIGN_OR_RETURN(Value call,
                           b->Add(Opcode::kCall, args, {}, {const_cast<Computation*>(&fn)}));
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> outs, SplitTuple(*b, call));
  std::vector<Value> results;
  for (int i : keep) results.push_back(outs[i]);
  return b->Finish(results);
}

// The scalar integer value of a constant instruction, if it is one.
std::optional<int64_t> IntConstant(const Instruction* c) {
  if (c == nullptr || c->opcode() != Opcode::kConstant || c->shape().is_tuple ||
      c->shape().rank() != 0) {
    return std::nullopt;
  }
  const Literal& l = c->attrs<ConstantAttrs>().value;
  switch (c->shape().dtype) {
    case DType::kS32: return l.data_as<int32_t>()[0];
    case DType::kS64: return l.data_as<int64_t>()[0];
    case DType::kU32: return l.data_as<uint32_t>()[0];
    default: return std::nullopt;
  }
}

// The trip count of a counting loop: carried value 0 starts at a constant
// c0, cond is `p0 < c1` for a constant c1 (in the cond, or a captured
// constant), and the body returns `p0 + 1` as its first value (how scan
// and fori_loop with static bounds lower).
std::optional<int64_t> StaticTripCount(const Instruction& loop) {
  const Computation& cond = *loop.called_computations()[0];
  const Computation& body = *loop.called_computations()[1];
  if (loop.operands().empty() || cond.results().size() != 1 || body.results().empty()) {
    return std::nullopt;
  }
  std::optional<int64_t> start = IntConstant(loop.operand(0));
  const Instruction* cmp = cond.results()[0];
  if (!start || cmp->opcode() != Opcode::kCompare ||
      cmp->attrs<CompareAttrs>().comparison_direction != ComparisonDirection::kLt ||
      cmp->operand(0) != cond.parameters()[0]) {
    return std::nullopt;
  }
  const Instruction* bound = cmp->operand(1);
  std::optional<int64_t> stop = IntConstant(bound);
  if (!stop && bound->opcode() == Opcode::kParameter) {
    const int64_t number = bound->attrs<ParameterAttrs>().number;
    const auto n = static_cast<int64_t>(body.results().size());
    if (number >= n && number < static_cast<int64_t>(loop.operands().size())) {
      stop = IntConstant(loop.operand(number));
    }
  }
  const Instruction* next = body.results()[0];
  if (!stop || next->opcode() != Opcode::kAdd) return std::nullopt;
  const Instruction* p0 = body.parameters()[0];
  const bool counts = (next->operand(0) == p0 && IntConstant(next->operand(1)) == 1) ||
                      (next->operand(1) == p0 && IntConstant(next->operand(0)) == 1);
  if (!counts) return std::nullopt;
  return std::max<int64_t>(0, *stop - *start);
}

std::vector<int> Iota(int n, int from = 0) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(from + i);
  return v;
}

std::vector<Shape> ShapesOf(const std::vector<Value>& values) {
  std::vector<Shape> out;
  for (Value v : values) out.push_back(v->shape());
  return out;
}

}  // namespace

absl::StatusOr<JvpOut> BranchJvp(JvpContext& ctx) {
  const Instruction& old = ctx.old;
  ModuleBuilder& mb = ctx.e.module();
  const int k = static_cast<int>(old.operands().size()) - 1;  // captured values
  std::vector<bool> wants(k, false);
  std::vector<Value> caps, tcaps;
  for (int i = 0; i < k; ++i) {
    caps.push_back(ctx.x(i + 1));
    Value t = ctx.t(i + 1);
    wants[i] = t != nullptr && IsDifferentiable(caps.back()->shape().dtype);
    if (wants[i]) tcaps.push_back(t);
  }
  if (tcaps.empty()) return JvpOut{{}, Parts(ctx.results.size(), nullptr)};
  std::vector<Computation*> branches;
  std::vector<bool> has;
  for (const Computation* branch : old.called_computations()) {
    XJIT_TF_ASSIGN_OR_RETURN(JvpResult j, Jvp(*branch, wants, mb, branch->name() + "_jvp"));
    has = j.result_has_tangent;
    const int n = static_cast<int>(branch->results().size());
    int nt = 0;
    for (bool h : has) nt += h;
    std::vector<Shape> params;
    for (const Instruction* p : j.computation->parameters()) params.push_back(p->shape());
    XJIT_TF_ASSIGN_OR_RETURN(
        Computation* t, Forward(mb, *j.computation, Iota(static_cast<int>(params.size())), params,
                                Iota(nt, n), branch->name() + "_tangent"));
    branches.push_back(t);
  }
  std::vector<Value> operands = {ctx.x(0)};
  operands.insert(operands.end(), caps.begin(), caps.end());
  operands.insert(operands.end(), tcaps.begin(), tcaps.end());
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.builder().Add(old.opcode(), operands, {}, branches));
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> tparts, SplitTuple(ctx.e.builder(), t));
  if (!t->shape().is_tuple) tparts = {t};
  Parts tangents;
  size_t next = 0;
  for (bool h : has) tangents.push_back(h ? tparts[next++] : nullptr);
  return JvpOut{{}, tangents};
}

absl::StatusOr<std::vector<Value>> BranchTranspose(TransposeContext& ctx) {
  const Instruction& old = ctx.old;  // (selector, caps..., tangents...) -> tangents
  ModuleBuilder& mb = ctx.e.module();
  ComputationBuilder& b = ctx.e.builder();
  const int num = static_cast<int>(old.operands().size());
  std::vector<bool> wants;
  std::vector<Value> primal_args;
  std::vector<Shape> arg_shapes;
  for (int i = 1; i < num; ++i) {
    wants.push_back(ctx.linear[i]);
    arg_shapes.push_back(ctx.operand_shape(i));
    if (ctx.linear[i]) continue;
    if (ctx.primal[i] == nullptr) return absl::InternalError("vjp: if/case primal operand missing");
    primal_args.push_back(ctx.primal[i]);
  }
  if (ctx.linear[0]) return absl::InternalError("vjp: a branch selector depends on a tangent");
  // The result cotangents, zeros where none flows back.
  std::vector<Shape> out_shapes =
      old.shape().is_tuple ? old.shape().tuple_shapes : std::vector<Shape>{old.shape()};
  std::vector<Value> cts = ctx.ct_parts.empty() ? std::vector<Value>{ctx.ct} : ctx.ct_parts;
  cts.resize(out_shapes.size(), nullptr);
  for (size_t i = 0; i < cts.size(); ++i) {
    if (cts[i] == nullptr) {
      XJIT_TF_ASSIGN_OR_RETURN(cts[i], ctx.e.ZerosLike(out_shapes[i]));
    }
  }
  // Each branch: (primal args..., cts...) -> VJP forward with zero tangents
  // (the branch is linear in them), then backward.
  std::vector<Computation*> branches;
  for (const Computation* branch : old.called_computations()) {
    XJIT_TF_ASSIGN_OR_RETURN(VjpResult v, Vjp(*branch, wants, mb, branch->name() + "_vjp"));
    ComputationBuilder* rb = mb.NewComputation(branch->name() + "_transpose");
    if (rb == nullptr) return absl::FailedPreconditionError("vjp: the module was already built");
    std::vector<Value> args;
    std::vector<Value> params;
    for (Value p : primal_args) params.push_back(rb->Parameter(p->shape()));
    size_t next = 0;
    for (size_t i = 0; i < wants.size(); ++i) {
      if (wants[i]) {
        Literal zero(arg_shapes[i]);
        std::memset(zero.mutable_data(), 0, zero.size_bytes());
        args.push_back(rb->Constant(std::move(zero)));
      } else {
        args.push_back(params[next++]);
      }
    }
    std::vector<Value> ct_params;
    for (Value c : cts) ct_params.push_back(rb->Parameter(c->shape()));
    XJIT_TF_ASSIGN_OR_RETURN(Value fwd, rb->Add(Opcode::kCall, args, {}, {v.forward}));
    XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> fouts, SplitTuple(*rb, fwd));
    if (!fwd->shape().is_tuple) fouts = {fwd};
    const size_t n = v.result_has_cotangent.size();
    std::vector<Value> bargs(fouts.begin() + n, fouts.end());  // residuals
    for (size_t i = 0; i < n; ++i) {
      if (v.result_has_cotangent[i]) bargs.push_back(ct_params[i]);
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value bwd, rb->Add(Opcode::kCall, bargs, {}, {v.backward}));
    XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> bouts, SplitTuple(*rb, bwd));
    if (!bwd->shape().is_tuple) bouts = {bwd};
    XJIT_TF_ASSIGN_OR_RETURN(Computation* r, rb->Finish(bouts));
    branches.push_back(r);
  }
  std::vector<Value> operands = {ctx.primal[0]};
  operands.insert(operands.end(), primal_args.begin(), primal_args.end());
  operands.insert(operands.end(), cts.begin(), cts.end());
  XJIT_TF_ASSIGN_OR_RETURN(Value t, b.Add(old.opcode(), operands, {}, branches));
  std::vector<Value> parts = {t};
  if (t->shape().is_tuple) {
    XJIT_TF_ASSIGN_OR_RETURN(parts, SplitTuple(b, t));
  }
  std::vector<Value> out(num, nullptr);
  size_t next = 0;
  for (int i = 1; i < num; ++i) {
    if (ctx.linear[i]) out[i] = parts[next++];
  }
  return out;
}

absl::StatusOr<JvpOut> WhileJvp(JvpContext& ctx) {
  const Instruction& old = ctx.old;
  ModuleBuilder& mb = ctx.e.module();
  ComputationBuilder& b = ctx.e.builder();
  const Computation& cond = *old.called_computations()[0];
  const Computation& body = *old.called_computations()[1];
  const int total = static_cast<int>(old.operands().size());
  const int n = static_cast<int>(body.results().size());
  std::vector<Value> carry, tcarry, caps, tcaps;
  std::vector<bool> wants(total, false);
  bool any = false;
  for (int i = 0; i < total; ++i) {
    Value x = ctx.x(i);
    const bool diff = IsDifferentiable(x->shape().dtype);
    if (i < n) {
      carry.push_back(x);
      wants[i] = diff;  // every float carried value gets a tangent (zeros when none flows in)
      any = any || (diff && ctx.t(i) != nullptr);
      if (diff) {
        XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.TOrZeros(i));
        tcarry.push_back(t);
      }
    } else {
      caps.push_back(x);
      wants[i] = diff && ctx.t(i) != nullptr;
      any = any || wants[i];
      if (wants[i]) tcaps.push_back(ctx.t(i));
    }
  }
  if (ctx.driver.for_vjp() && any) {
    // A loop with a trip count known here (scan, fori_loop with static
    // bounds) is unrolled into the JVP graph, which Vjp then transposes.
    if (std::optional<int64_t> trips = StaticTripCount(old); trips.has_value()) {
      Parts primals = carry, tangents;
      primals.insert(primals.end(), caps.begin(), caps.end());
      for (int i = 0; i < total; ++i) tangents.push_back(i < n ? nullptr : ctx.t(i));
      for (int i = 0; i < n; ++i) tangents[i] = ctx.t(i);
      for (int64_t it = 0; it < *trips; ++it) {
        XJIT_TF_ASSIGN_OR_RETURN(auto next, ctx.driver.Run(body, primals, tangents));
        for (int i = 0; i < n; ++i) {
          primals[i] = next.first[i];
          tangents[i] = next.second[i];
        }
      }
      return JvpOut{Parts(primals.begin(), primals.begin() + n),
                    Parts(tangents.begin(), tangents.begin() + n)};
    }
    return absl::FailedPreconditionError(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
        "dynamic start/stop values. Try using lax.scan, or using fori_loop with static "
        "start/stop.");
  }
  XJIT_TF_ASSIGN_OR_RETURN(JvpResult j, Jvp(body, wants, mb, body.name() + "_jvp"));
  // The new loop's operands: carry, tangent carry, caps, tangent caps.
  std::vector<Value> operands = carry;
  operands.insert(operands.end(), tcarry.begin(), tcarry.end());
  operands.insert(operands.end(), caps.begin(), caps.end());
  operands.insert(operands.end(), tcaps.begin(), tcaps.end());
  const int nt = static_cast<int>(tcarry.size()), k = static_cast<int>(caps.size());
  std::vector<Shape> shapes = ShapesOf(operands);
  // cond: call the old cond on (carry, caps).
  std::vector<int> cond_args = Iota(n);
  for (int i = 0; i < k; ++i) cond_args.push_back(n + nt + i);
  XJIT_TF_ASSIGN_OR_RETURN(Computation * new_cond,
                           Forward(mb, cond, cond_args, shapes, {0}, cond.name() + "_jvp"));
  // body: the JVP takes (carry, caps, tangents of the flagged ones in order).
  std::vector<int> body_args = Iota(n);
  for (int i = 0; i < k; ++i) body_args.push_back(n + nt + i);
  for (int i = 0; i < nt; ++i) body_args.push_back(n + i);
  for (int i = 0; i < static_cast<int>(tcaps.size()); ++i) body_args.push_back(n + nt + k + i);
  std::vector<int> keep = Iota(n);
  int tangent_index = n;
  for (bool h : j.result_has_tangent) {
    if (h) keep.push_back(tangent_index++);
  }
  if (static_cast<int>(keep.size()) != n + nt) {
    return absl::InternalError("jvp: while body tangents do not match the carried tangents");
  }
  XJIT_TF_ASSIGN_OR_RETURN(Computation * new_body,
                           Forward(mb, *j.computation, body_args, shapes, keep,
                                   body.name() + "_jvp_body"));
  XJIT_TF_ASSIGN_OR_RETURN(Value w, b.Add(Opcode::kWhile, operands, {}, {new_cond, new_body}));
  std::vector<Value> parts = {w};
  if (w->shape().is_tuple) {
    XJIT_TF_ASSIGN_OR_RETURN(parts, SplitTuple(b, w));
  }
  JvpOut out;
  int next = n;
  for (int i = 0; i < n; ++i) {
    out.primals.push_back(parts[i]);
    out.tangents.push_back(IsDifferentiable(parts[i]->shape().dtype) ? parts[next++] : nullptr);
  }
  return out;
}

}  // namespace xjit::transforms
