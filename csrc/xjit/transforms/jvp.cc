#include "xjit/transforms/jvp.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xjit/transforms/jvp_rules.h"
#include "xjit/transforms/status_macros.h"

namespace xjit::transforms {
namespace {

// The new instruction's value split into parts (a tuple-shaped result into
// one get_tuple_element per element).
absl::StatusOr<Parts> Explode(ComputationBuilder& b, Value v) {
  return SplitTuple(b, v);
}

bool ResultDifferentiable(const Shape& shape) {
  if (!shape.is_tuple) return IsDifferentiable(shape.dtype);
  for (const Shape& s : shape.tuple_shapes) {
    if (IsDifferentiable(s.dtype)) return true;
  }
  return false;
}

}  // namespace

ValueOr JvpContext::TOrZeros(int i) {
  if (t(i) != nullptr) return t(i);
  return e.ZerosLike(x(i)->shape());
}

// Clones `old` onto `operands` (already values of `b`), sharing its called computations.
absl::StatusOr<Value> CloneOnto(ComputationBuilder& b, const Instruction& old,
                                std::vector<Value> operands) {
  if (DeclaresResultType(old.opcode())) {
    return b.AddWithResultType(old.opcode(), old.shape(), std::move(operands), old.attributes(),
                               old.called_computations(), old.source_location());
  }
  return b.Add(old.opcode(), std::move(operands), old.attributes(), old.called_computations(),
               old.source_location());
}

absl::StatusOr<std::pair<Parts, Parts>> JvpDriver::Run(const Computation& source,
                                                       const Parts& primal_params,
                                                       const Parts& tangent_params) {
  ComputationBuilder& b = emitter_.builder();
  absl::flat_hash_map<const Instruction*, Parts> primal, tangent;
  // Tangent parts that exist but cannot be computed (a reduce whose body has
  // no rule): an error only if something needs them.
  absl::flat_hash_map<std::pair<const Instruction*, size_t>, absl::Status> poisoned;
  for (const auto& owned : source.instructions()) {
    const Instruction& old = *owned;
    Opcode op = old.opcode();
    if (op == Opcode::kParameter) {
      int64_t n = old.attrs<ParameterAttrs>().number;
      primal[&old] = {primal_params[n]};
      tangent[&old] = {tangent_params[n]};
      continue;
    }
    std::vector<Parts> po, to;
    std::vector<Value> flat;
    bool any_tangent = false;
    absl::Status poison = absl::OkStatus();
    for (const Instruction* o : old.operands()) {
      po.push_back(primal.at(o));
      to.push_back(tangent.at(o));
      for (Value t : to.back()) any_tangent = any_tangent || t != nullptr;
      for (size_t p = 0; p < po.back().size(); ++p) {
        auto it = poisoned.find({o, p});
        if (it != poisoned.end() && poison.ok()) poison = it->second;
      }
      if (po.back().size() == 1) flat.push_back(po.back()[0]);
    }
    if (op == Opcode::kGetTupleElement) {
      size_t index = static_cast<size_t>(old.attrs<GetTupleElementAttrs>().index);
      primal[&old] = {po[0][index]};
      tangent[&old] = {to[0][index]};
      auto it = poisoned.find({old.operand(0), index});
      if (it != poisoned.end()) poisoned[{&old, 0}] = it->second;
      continue;
    }
    if (op == Opcode::kTuple) {
      Parts p, t;
      for (size_t i = 0; i < po.size(); ++i) {
        if (po[i].size() != 1) {
          return absl::UnimplementedError("jvp: nested tuples are not supported");
        }
        p.push_back(po[i][0]);
        t.push_back(to[i][0]);
      }
      primal[&old] = p;
      tangent[&old] = t;
      continue;
    }
    if (flat.size() != old.operands().size()) {
      return absl::UnimplementedError(
          absl::StrCat("jvp: '", OpcodeName(op), "' with a tuple operand is not supported"));
    }
    bool needs_rule = any_tangent && ResultDifferentiable(old.shape());
    if (!needs_rule) {
      XJIT_TF_ASSIGN_OR_RETURN(Value v, CloneOnto(b, old, flat));
      XJIT_TF_ASSIGN_OR_RETURN(Parts parts, Explode(b, v));
      primal[&old] = parts;
      tangent[&old] = Parts(parts.size(), nullptr);
      continue;
    }
    if (!poison.ok()) return poison;
    JvpRule rule = JvpRuleFor(op);
    if (rule == nullptr) {
      return absl::UnimplementedError(
          absl::StrCat("jvp: no JVP rule for '", OpcodeName(op), "' yet"));
    }
    JvpContext ctx{old, po, to, {}, emitter_, *this};
    if (!JvpRuleInlines(op)) {
      XJIT_TF_ASSIGN_OR_RETURN(Value v, CloneOnto(b, old, flat));
      XJIT_TF_ASSIGN_OR_RETURN(ctx.results, Explode(b, v));
    }
    absl::StatusOr<JvpOut> out = rule(ctx);
    if (!out.ok()) {
      // A reduce whose body has no rule poisons its float tangents instead of failing
      // at once: argmax-style reductions are used for their integer result.
      if (op == Opcode::kReduce && absl::IsUnimplemented(out.status())) {
        for (size_t p = 0; p < ctx.results.size(); ++p) {
          if (IsDifferentiable(ctx.results[p]->shape().dtype)) poisoned[{&old, p}] = out.status();
        }
        primal[&old] = ctx.results;
        tangent[&old] = Parts(ctx.results.size(), nullptr);
        continue;
      }
      return out.status();
    }
    // A rule may replace the cloned primal (one op computing both, as the
    // JVP of a general reduce_window); the unused clone is dead code then.
    primal[&old] = JvpRuleInlines(op) || !out->primals.empty() ? out->primals : ctx.results;
    // Integer parts never carry a tangent, whatever the rule built.
    Parts& parts = primal[&old];
    for (size_t p = 0; p < parts.size() && p < out->tangents.size(); ++p) {
      if (!IsDifferentiable(parts[p]->shape().dtype)) out->tangents[p] = nullptr;
    }
    tangent[&old] = out->tangents;
  }
  Parts results, tangents;
  for (const Instruction* r : source.results()) {
    const Parts& p = primal.at(r);
    if (p.size() != 1) return absl::UnimplementedError("jvp: a tuple-valued result");
    auto it = poisoned.find({r, 0});
    if (it != poisoned.end()) return it->second;
    results.push_back(p[0]);
    tangents.push_back(tangent.at(r)[0]);
  }
  return std::make_pair(results, tangents);
}

absl::StatusOr<JvpResult> Jvp(const Computation& fn, const std::vector<bool>& wants_tangent,
                              ModuleBuilder& target, const std::string& name, bool for_vjp) {
  const std::vector<Instruction*>& params = fn.parameters();
  if (wants_tangent.size() != params.size()) {
    return absl::InvalidArgumentError(absl::StrCat("jvp: ", wants_tangent.size(),
                                                   " tangent flags for ", params.size(),
                                                   " parameters of ", fn.name()));
  }
  ComputationBuilder* b = target.NewComputation(name);
  if (b == nullptr) return absl::FailedPreconditionError("jvp: the module was already built");
  Parts primals, tangents;
  for (const Instruction* p : params) primals.push_back(b->Parameter(p->shape()));
  for (size_t i = 0; i < params.size(); ++i) {
    if (!wants_tangent[i]) {
      tangents.push_back(nullptr);
      continue;
    }
    const Shape& s = params[i]->shape();
    if (s.is_tuple || !IsDifferentiable(s.dtype)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "jvp: parameter ", i, " of ", fn.name(), " has type ", s.ToString(),
          "; only float and complex values get tangents"));
    }
    tangents.push_back(b->Parameter(s));
  }
  JvpDriver driver(target, *b);
  JvpResult result;
  if (for_vjp) driver.SetForVjp(&result.remat);
  XJIT_TF_ASSIGN_OR_RETURN(auto out, driver.Run(fn, primals, tangents));
  std::vector<Value> values = out.first;
  for (size_t i = 0; i < out.first.size(); ++i) {
    const Shape& s = out.first[i]->shape();
    bool has = IsDifferentiable(s.dtype);
    result.result_has_tangent.push_back(has);
    if (!has) continue;
    Value t = out.second[i];
    if (t == nullptr) {
      XJIT_TF_ASSIGN_OR_RETURN(t, driver.emitter().ZerosLike(s));
    }
    values.push_back(t);
  }
  XJIT_TF_ASSIGN_OR_RETURN(result.computation, b->Finish(values));
  return result;
}

}  // namespace xjit::transforms
