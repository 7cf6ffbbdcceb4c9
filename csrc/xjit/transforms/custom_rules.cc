#include "xjit/transforms/custom_rules.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xjit/ir/custom_call_config.h"
#include "xjit/transforms/batching_rules.h"
#include "xjit/transforms/collectives.h"
#include "xjit/transforms/status_macros.h"
#include "xjit/transforms/stop_gradient.h"

namespace xjit::transforms {
namespace {

// The token after `prefix` in `name`, up to the next '_'.
std::optional<absl::string_view> Token(absl::string_view name, absl::string_view prefix) {
  if (!absl::StartsWith(name, prefix)) return std::nullopt;
  absl::string_view rest = name.substr(prefix.size());
  return rest.substr(0, rest.find('_'));
}

absl::Status BadMarker(const Computation& f, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("call of ", f.name(), ": a marked call ", why));
}

// `v` split into parts (one get_tuple_element per element of a tuple).
absl::StatusOr<Parts> Split(ComputationBuilder& b, Value v) {
  return SplitTuple(b, v);
}

absl::StatusOr<Parts> CallParts(ComputationBuilder& b, Computation* callee, Parts operands) {
  XJIT_TF_ASSIGN_OR_RETURN(Value v, b.Add(Opcode::kCall, std::move(operands), {}, {callee}));
  return Split(b, v);
}

// One value of `parts` (a tuple of them when there are several).
absl::StatusOr<Value> Joined(ComputationBuilder& b, const Parts& parts) {
  if (parts.size() == 1) return parts[0];
  return b.Add(Opcode::kTuple, parts);
}

// Clones `comp` into `b` on `params`, inlining the calls that read a value
// derived from the parameters flagged in `dep` (a rule's tangents), so the
// tangent part of a rule is flat, transposable graph; other calls (custom
// markers of the rule's primal part) are kept for an outer transform.
absl::StatusOr<Parts> InlineRule(ComputationBuilder& b, const Computation& comp,
                                 const Parts& params, const std::vector<bool>& dep_params) {
  absl::flat_hash_map<const Instruction*, Parts> map;
  absl::flat_hash_set<const Instruction*> dep;
  for (const auto& owned : comp.instructions()) {
    const Instruction* instr = owned.get();
    if (instr->opcode() == Opcode::kParameter) {
      int64_t n = instr->attrs<ParameterAttrs>().number;
      map[instr] = {params[n]};
      if (dep_params[n]) dep.insert(instr);
      continue;
    }
    bool d = false;
    for (const Instruction* o : instr->operands()) d = d || dep.contains(o);
    if (d) dep.insert(instr);
    if (instr->opcode() == Opcode::kGetTupleElement) {
      const Parts& src = map.at(instr->operand(0));
      if (src.size() > 1) {
        map[instr] = {src[instr->attrs<GetTupleElementAttrs>().index]};
        continue;
      }
    }
    std::vector<Value> ops;
    std::vector<bool> flags;
    for (const Instruction* o : instr->operands()) {
      XJIT_TF_ASSIGN_OR_RETURN(Value v, Joined(b, map.at(o)));
      ops.push_back(v);
      flags.push_back(dep.contains(o));
    }
    if (instr->opcode() == Opcode::kCall && d &&
        !IsStopGradient(*instr->called_computations()[0]) &&
        !IsLinearCall(*instr->called_computations()[0]) &&
        !AsCollective(*instr->called_computations()[0]).has_value()) {
      XJIT_TF_ASSIGN_OR_RETURN(map[instr],
                               InlineRule(b, *instr->called_computations()[0], ops, flags));
      continue;
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value v, CloneOnto(b, *instr, ops));
    map[instr] = {v};
  }
  Parts out;
  for (const Instruction* r : comp.results()) {
    XJIT_TF_ASSIGN_OR_RETURN(Value v, Joined(b, map.at(r)));
    out.push_back(v);
  }
  return out;
}

absl::Status ClosedOver(const JvpContext& ctx, const CustomCall& c, absl::string_view what) {
  for (size_t i = c.count; i < ctx.tangent_operands.size(); ++i) {
    if (ctx.tangent_operands[i][0] != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Detected differentiation of a ", what, " function with respect to a closed-over "
          "value. That isn't supported because the custom ", what == "custom_jvp" ? "JVP" : "VJP",
          " rule only specifies how to differentiate the ", what,
          " function with respect to explicit input parameters. Pass the value as an argument "
          "instead."));
    }
  }
  return absl::OkStatus();
}

// A rule that declined when it was traced (custom_derivatives.py: the
// Python rule raised NotImplementedError): the custom_call marker, anywhere
// in it, carries the message.
const Instruction* DeclinedRuleMarker(const Computation& rule) {
  for (const auto& instr : rule.instructions()) {
    if (instr->opcode() == Opcode::kCustomCall &&
        instr->attrs<CustomCallAttrs>().call_target_name == kDeclinedRuleTarget) {
      return instr.get();
    }
    for (const Computation* called : instr->called_computations()) {
      if (const Instruction* m = DeclinedRuleMarker(*called)) return m;
    }
  }
  return nullptr;
}

absl::StatusOr<JvpOut> CustomJvpOf(JvpContext& ctx, const CustomCall& c) {
  XJIT_TF_RETURN_IF_ERROR(ClosedOver(ctx, c, "custom_jvp"));
  if (const Instruction* declined = DeclinedRuleMarker(*c.rule)) {
    absl::StatusOr<CustomCallConfig> config =
        CustomCallConfig::FromAttrs(declined->attrs<CustomCallAttrs>());
    return absl::UnimplementedError(config.ok() ? config->text()
                                                : "this custom_jvp rule is not implemented");
  }
  Parts params;
  std::vector<bool> dep;
  for (size_t i = 0; i < ctx.primal_operands.size(); ++i) {
    params.push_back(ctx.x(static_cast<int>(i)));
    dep.push_back(false);
  }
  for (int64_t i = 0; i < c.count; ++i) {
    if (!IsDifferentiable(ctx.x(static_cast<int>(i))->shape().dtype)) continue;
    XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.TOrZeros(static_cast<int>(i)));
    params.push_back(t);
    dep.push_back(true);
  }
  if (params.size() != c.rule->parameters().size()) {
    return BadMarker(*c.f, "has a JVP rule of the wrong arity");
  }
  XJIT_TF_ASSIGN_OR_RETURN(Parts out, InlineRule(ctx.e.builder(), *c.rule, params, dep));
  size_t np = c.f->results().size();
  JvpOut r;
  r.primals.assign(out.begin(), out.begin() + std::min(np, out.size()));
  size_t k = np;
  for (size_t j = 0; j < np && j < out.size(); ++j) {
    bool is_float = IsDifferentiable(out[j]->shape().dtype);
    r.tangents.push_back(is_float && k < out.size() ? out[k] : nullptr);
    if (is_float) ++k;
  }
  if (k != out.size() || r.primals.size() != np) {
    return BadMarker(*c.f, "has a JVP rule returning the wrong number of values");
  }
  return r;
}

// A linear call is linear in its linear args: its tangent is the same call
// on their tangents (JAX's linear_call JVP).
absl::StatusOr<JvpOut> LinearCallJvp(JvpContext& ctx, const CustomCall& c) {
  Parts primals, tangents;
  bool any = false;
  for (size_t i = 0; i < ctx.primal_operands.size(); ++i) {
    int k = static_cast<int>(i);
    primals.push_back(ctx.x(k));
    if (static_cast<int64_t>(i) < c.count) {
      if (ctx.t(k) != nullptr) {
        return absl::InvalidArgumentError(
            "linear_call: its residual arguments cannot be differentiated; pass values that "
            "depend on the differentiated inputs as linear arguments");
      }
      tangents.push_back(ctx.x(k));
      continue;
    }
    any = any || ctx.t(k) != nullptr;
    XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.TOrZeros(k));
    tangents.push_back(t);
  }
  ComputationBuilder& b = ctx.e.builder();
  const std::vector<Computation*> callees = {c.f, c.bwd};
  XJIT_TF_ASSIGN_OR_RETURN(Value p, b.Add(Opcode::kCall, primals, {}, callees));
  XJIT_TF_ASSIGN_OR_RETURN(Parts pp, Split(b, p));
  JvpOut r;
  r.primals = pp;
  r.tangents.assign(pp.size(), nullptr);
  if (!any) return r;
  XJIT_TF_ASSIGN_OR_RETURN(Value t, b.Add(Opcode::kCall, tangents, {}, callees));
  XJIT_TF_ASSIGN_OR_RETURN(r.tangents, Split(b, t));
  return r;
}

absl::StatusOr<JvpOut> CustomVjpOf(JvpContext& ctx, const CustomCall& c) {
  if (!ctx.driver.for_vjp()) {
    return absl::InvalidArgumentError(
        "can't apply forward-mode autodiff (jvp) to a custom_vjp function.");
  }
  XJIT_TF_RETURN_IF_ERROR(ClosedOver(ctx, c, "custom_vjp"));
  ComputationBuilder& b = ctx.e.builder();
  Parts ops;
  for (size_t i = 0; i < ctx.primal_operands.size(); ++i) ops.push_back(ctx.x(static_cast<int>(i)));
  XJIT_TF_ASSIGN_OR_RETURN(Parts fo, CallParts(b, c.fwd, ops));
  size_t np = c.f->results().size();
  if (fo.size() < np) return BadMarker(*c.f, "has a forward rule returning too few values");
  JvpOut r;
  r.primals.assign(fo.begin(), fo.begin() + np);
  r.tangents.assign(np, nullptr);
  Parts residuals(fo.begin() + np, fo.end());
  Parts tangents;
  bool any = false;
  for (int64_t i = 0; i < c.count; ++i) {
    if (!IsDifferentiable(ctx.x(static_cast<int>(i))->shape().dtype)) continue;
    any = any || ctx.t(static_cast<int>(i)) != nullptr;
    XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.TOrZeros(static_cast<int>(i)));
    tangents.push_back(t);
  }
  std::vector<size_t> float_outs;
  for (size_t j = 0; j < np; ++j) {
    if (IsDifferentiable(r.primals[j]->shape().dtype)) float_outs.push_back(j);
  }
  if (!any || float_outs.empty()) return r;
  if (c.bwd->parameters().size() != residuals.size() + float_outs.size() ||
      c.bwd->results().size() != tangents.size()) {
    return BadMarker(*c.f, "has a backward rule of the wrong arity");
  }
  // The linear map tangents -> result tangents, transposed through bwd.
  ComputationBuilder* zb =
      ctx.e.module().NewComputation(absl::StrCat(kCustomLinPrefix, residuals.size(), "_zeros"));
  if (zb == nullptr) return absl::FailedPreconditionError("jvp: the module was already built");
  for (Value v : residuals) zb->Parameter(v->shape());
  for (Value v : tangents) zb->Parameter(v->shape());
  Emitter ze(ctx.e.module(), *zb);
  std::vector<Value> zeros;
  for (size_t j : float_outs) {
    XJIT_TF_ASSIGN_OR_RETURN(Value z, ze.ZerosLike(r.primals[j]->shape()));
    zeros.push_back(z);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Computation * zc, zb->Finish(zeros));
  Parts lin_ops = residuals;
  lin_ops.insert(lin_ops.end(), tangents.begin(), tangents.end());
  XJIT_TF_ASSIGN_OR_RETURN(Value lin, b.Add(Opcode::kCall, lin_ops, {}, {zc, c.bwd}));
  XJIT_TF_ASSIGN_OR_RETURN(Parts lt, Split(b, lin));
  for (size_t k = 0; k < float_outs.size(); ++k) r.tangents[float_outs[k]] = lt[k];
  return r;
}

// `comp` batched into a new computation of `e`'s module. `in_batched`: per
// parameter. `force`: per result, true = batched (broadcast if it is not),
// false = unbatched (summed over the batch if it is).
absl::StatusOr<Computation*> BatchCallee(Emitter& e, const Computation& comp,
                                         const std::vector<bool>& in_batched,
                                         const std::vector<bool>& force, int64_t axis_size) {
  ComputationBuilder* nb = e.module().NewComputation(absl::StrCat(comp.name(), "_vmap"));
  if (nb == nullptr) return absl::FailedPreconditionError("vmap: the module was already built");
  Parts params;
  for (size_t i = 0; i < comp.parameters().size(); ++i) {
    Shape s = comp.parameters()[i]->shape();
    if (in_batched[i]) s.dims.insert(s.dims.begin(), axis_size);
    params.push_back(nb->Parameter(s));
  }
  BatchDriver driver(e.module(), *nb, axis_size);
  XJIT_TF_ASSIGN_OR_RETURN(BatchOut out, driver.Run(comp, params, in_batched));
  std::vector<Value> results;
  for (size_t j = 0; j < out.values.size(); ++j) {
    Value v = out.values[j];
    if (force[j] && !out.batched[j]) {
      XJIT_TF_ASSIGN_OR_RETURN(v, BroadcastBatch(driver.emitter(), v, axis_size));
    } else if (!force[j] && out.batched[j]) {
      XJIT_TF_ASSIGN_OR_RETURN(v, driver.emitter().ReduceSum(v, std::vector<int64_t>{0}));
    }
    results.push_back(v);
  }
  return nb->Finish(results);
}

std::vector<bool> AllTrue(size_t n) { return std::vector<bool>(n, true); }

}  // namespace

bool IsLinearCall(const Computation& f) {
  return absl::StartsWith(f.name(), kLinearCallPrefix);
}

absl::StatusOr<std::optional<CustomCall>> AsCustomCall(const Instruction& call) {
  if (call.opcode() != Opcode::kCall || call.called_computations().empty()) return std::nullopt;
  const std::vector<Computation*>& called = call.called_computations();
  const Computation& f = *called[0];
  CustomCall c;
  c.f = called[0];
  size_t want = 0;
  std::optional<absl::string_view> token;
  if ((token = Token(f.name(), kCustomJvpPrefix))) {
    c.kind = CustomKind::kJvp;
    want = 2;
  } else if ((token = Token(f.name(), kCustomVjpPrefix))) {
    c.kind = CustomKind::kVjp;
    want = 3;
  } else if ((token = Token(f.name(), kCustomLinPrefix))) {
    c.kind = CustomKind::kLin;
    want = 2;
  } else if ((token = Token(f.name(), kLinearCallPrefix))) {
    c.kind = CustomKind::kLinearCall;
    want = 2;
  } else if ((token = Token(f.name(), kCheckpointPrefix))) {
    c.kind = CustomKind::kCheckpoint;
    want = 1;
    if (*token == "nothing") {
      c.policy = RematPolicy::kNothingSaveable;
    } else if (*token == "everything") {
      c.policy = RematPolicy::kEverythingSaveable;
    } else if (*token == "dots") {
      c.policy = RematPolicy::kDotsSaveable;
    } else if (*token == "dotsnobatch") {
      c.policy = RematPolicy::kDotsNoBatchSaveable;
    } else {
      return BadMarker(f, absl::StrCat("names an unknown checkpoint policy '", *token, "'"));
    }
  } else {
    return std::nullopt;
  }
  if (c.kind != CustomKind::kCheckpoint &&
      (!absl::SimpleAtoi(*token, &c.count) || c.count < 0 ||
       (c.kind != CustomKind::kLin && c.count > static_cast<int64_t>(call.operands().size())))) {
    return BadMarker(f, "has no valid argument count in its name");
  }
  if (called.size() != want) {
    return BadMarker(f, absl::StrCat("needs ", want, " called computations, got ", called.size()));
  }
  if (c.kind == CustomKind::kJvp) c.rule = called[1];
  if (c.kind == CustomKind::kVjp) {
    c.fwd = called[1];
    c.bwd = called[2];
  }
  if (c.kind == CustomKind::kLin || c.kind == CustomKind::kLinearCall) c.bwd = called[1];
  if (c.kind == CustomKind::kLinearCall && !IsLinearCall(*c.bwd)) {
    return BadMarker(f, "has a transpose whose name lacks the linear_call marker");
  }
  return c;
}

bool RematSaves(RematPolicy policy, const Instruction& instr) {
  switch (policy) {
    case RematPolicy::kNothingSaveable: return false;
    case RematPolicy::kEverythingSaveable: return true;
    case RematPolicy::kDotsSaveable: return instr.opcode() == Opcode::kDotGeneral;
    case RematPolicy::kDotsNoBatchSaveable:
      return instr.opcode() == Opcode::kDotGeneral &&
             instr.attrs<DotGeneralAttrs>().dot_dimension_numbers.lhs_batching_dimensions.empty();
  }
  return false;
}

absl::StatusOr<JvpOut> CustomCallJvp(JvpContext& ctx, const CustomCall& custom) {
  switch (custom.kind) {
    case CustomKind::kJvp: return CustomJvpOf(ctx, custom);
    case CustomKind::kVjp: return CustomVjpOf(ctx, custom);
    case CustomKind::kLin:
      return absl::UnimplementedError(
          "jvp: the linearisation of a custom_vjp function cannot be differentiated");
    case CustomKind::kLinearCall: return LinearCallJvp(ctx, custom);
    case CustomKind::kCheckpoint: {
      // Differentiated in place; under Vjp its primal values are marked for
      // recomputation (transpose.cc) per the policy.
      size_t from = ctx.e.builder().computation()->instructions().size();
      Parts primals, tangents;
      for (size_t i = 0; i < ctx.primal_operands.size(); ++i) {
        primals.push_back(ctx.primal_operands[i][0]);
        tangents.push_back(ctx.tangent_operands[i][0]);
      }
      XJIT_TF_ASSIGN_OR_RETURN(auto out, ctx.driver.Run(*custom.f, primals, tangents));
      ctx.driver.MarkRemat(from, custom.policy);
      return JvpOut{out.first, out.second};
    }
  }
  return absl::InternalError("jvp: unknown custom call");
}

absl::StatusOr<std::vector<Value>> CustomLinTranspose(Emitter& e, const Instruction& lin,
                                                      const CustomCall& custom,
                                                      const std::vector<Value>& residuals,
                                                      std::vector<Value> cts) {
  const std::vector<Instruction*>& zero_results = custom.f->results();
  if (cts.size() != zero_results.size()) {
    return absl::InternalError("vjp: custom_vjp cotangents do not match its results");
  }
  Parts ops = residuals;
  for (size_t j = 0; j < cts.size(); ++j) {
    Value ct = cts[j];
    if (ct == nullptr) {
      XJIT_TF_ASSIGN_OR_RETURN(ct, e.ZerosLike(zero_results[j]->shape()));
    }
    ops.push_back(ct);
  }
  std::vector<Computation*> callees = {custom.bwd};
  if (custom.kind == CustomKind::kLinearCall) callees.push_back(custom.f);
  XJIT_TF_ASSIGN_OR_RETURN(Value v, e.builder().Add(Opcode::kCall, ops, {}, callees));
  XJIT_TF_ASSIGN_OR_RETURN(Parts out, Split(e.builder(), v));
  std::vector<Value> result(residuals.size(), nullptr);
  result.insert(result.end(), out.begin(), out.end());
  if (result.size() != lin.operands().size()) {
    return absl::InternalError("vjp: custom_vjp backward rule of the wrong arity");
  }
  return result;
}

absl::StatusOr<BatchOut> CustomCallBatch(Emitter& e, const Instruction& call,
                                         const CustomCall& c, const std::vector<Value>& operands,
                                         const std::vector<bool>& batched, int64_t axis_size) {
  std::vector<Computation*> callees;
  XJIT_TF_ASSIGN_OR_RETURN(
      Computation * f, BatchCallee(e, *c.f, batched, AllTrue(c.f->results().size()), axis_size));
  callees.push_back(f);
  // Tangents and cotangents are batched like their primals.
  std::vector<bool> arg_float_batched;
  const bool linear = c.kind == CustomKind::kLin || c.kind == CustomKind::kLinearCall;
  for (int64_t i = 0; i < c.count && !linear; ++i) {
    if (IsDifferentiable(operands[i]->shape().dtype)) arg_float_batched.push_back(batched[i]);
  }
  switch (c.kind) {
    case CustomKind::kCheckpoint:
      break;
    case CustomKind::kJvp: {
      std::vector<bool> in = batched;
      in.insert(in.end(), arg_float_batched.begin(), arg_float_batched.end());
      XJIT_TF_ASSIGN_OR_RETURN(
          Computation * rule,
          BatchCallee(e, *c.rule, in, AllTrue(c.rule->results().size()), axis_size));
      callees.push_back(rule);
      break;
    }
    case CustomKind::kVjp: {
      XJIT_TF_ASSIGN_OR_RETURN(
          Computation * fwd,
          BatchCallee(e, *c.fwd, batched, AllTrue(c.fwd->results().size()), axis_size));
      XJIT_TF_ASSIGN_OR_RETURN(
          Computation * bwd, BatchCallee(e, *c.bwd, AllTrue(c.bwd->parameters().size()),
                                         arg_float_batched, axis_size));
      callees.push_back(fwd);
      callees.push_back(bwd);
      break;
    }
    case CustomKind::kLin:
    case CustomKind::kLinearCall: {
      std::vector<bool> in(batched.begin(), batched.begin() + c.count);
      std::vector<bool> out(batched.begin() + c.count, batched.end());
      in.resize(c.bwd->parameters().size(), true);
      XJIT_TF_ASSIGN_OR_RETURN(Computation * bwd, BatchCallee(e, *c.bwd, in, out, axis_size));
      callees.push_back(bwd);
      break;
    }
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value v, e.builder().Add(Opcode::kCall, operands, {}, callees,
                                                    call.source_location()));
  XJIT_TF_ASSIGN_OR_RETURN(Parts parts, Split(e.builder(), v));
  return BatchOut{parts, std::vector<bool>(parts.size(), true)};
}

}  // namespace xjit::transforms
