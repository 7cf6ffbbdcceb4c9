#include "xjit/transforms/transpose.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xjit/transforms/jvp.h"
#include "xjit/transforms/custom_rules.h"
#include "xjit/transforms/jvp_rules.h"
#include "xjit/transforms/status_macros.h"
#include "xjit/transforms/transpose_rules.h"

namespace xjit::transforms {
namespace {

// Primal values rebuilt in the backward graph rather than saved: cheap ones
// (constants, iotas and broadcasts/reshapes/converts of them), and those
// made inside a checkpoint that its policy does not save.
class Remat {
 public:
  explicit Remat(const RematMap& checkpointed) : checkpointed_(checkpointed) {}
  bool operator()(const Instruction& instr) const {
    Opcode op = instr.opcode();
    if (op == Opcode::kParameter) return false;
    auto it = checkpointed_.find(&instr);
    if (it != checkpointed_.end() && !RematSaves(it->second, instr)) return true;
    if (op == Opcode::kConstant || op == Opcode::kIota) return true;
    if (op == Opcode::kBroadcastInDim || op == Opcode::kReshape || op == Opcode::kConvert) {
      return (*this)(*instr.operand(0));
    }
    return false;
  }

 private:
  const RematMap& checkpointed_;
};

class Backward {
 public:
  Backward(ModuleBuilder& module, ComputationBuilder& b, Remat remat)
      : e_(module, b), remat_(remat) {}
  Emitter& e() { return e_; }

  // The value in the backward graph of primal instruction `instr`.
  ValueOr Primal(const Instruction* instr) {
    auto it = values_.find(instr);
    if (it != values_.end()) return it->second;
    if (!remat_(*instr)) {
      return absl::InternalError(absl::StrCat("vjp: primal ", OpcodeName(instr->opcode()),
                                              " %", instr->id(), " was not saved"));
    }
    std::vector<Value> operands;
    for (const Instruction* o : instr->operands()) {
      XJIT_TF_ASSIGN_OR_RETURN(Value v, Primal(o));
      operands.push_back(v);
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value v, CloneOnto(e_.builder(), *instr, operands));
    values_[instr] = v;
    return v;
  }
  void Bind(const Instruction* instr, Value v) { values_[instr] = v; }

 private:
  Emitter e_;
  Remat remat_;
  absl::flat_hash_map<const Instruction*, Value> values_;
};

}  // namespace

absl::StatusOr<VjpResult> Vjp(const Computation& fn, const std::vector<bool>& wants_cotangent,
                              ModuleBuilder& target, const std::string& name) {
  XJIT_TF_ASSIGN_OR_RETURN(JvpResult jvp,
                           Jvp(fn, wants_cotangent, target, name + "_jvp", /*for_vjp=*/true));
  Remat remat(jvp.remat);
  const Computation& j = *jvp.computation;
  const int64_t num_params = static_cast<int64_t>(fn.parameters().size());
  const int64_t num_results = static_cast<int64_t>(fn.results().size());

  // Partial evaluation: which instructions depend on a tangent.
  absl::flat_hash_set<const Instruction*> linear;
  std::vector<const Instruction*> tangent_params;
  for (const auto& owned : j.instructions()) {
    const Instruction* instr = owned.get();
    bool is_linear = false;
    if (instr->opcode() == Opcode::kParameter) {
      is_linear = instr->attrs<ParameterAttrs>().number >= num_params;
      if (is_linear) tangent_params.push_back(instr);
    }
    for (const Instruction* o : instr->operands()) is_linear = is_linear || linear.contains(o);
    if (is_linear) linear.insert(instr);
  }
  // Residuals: primal values the linear part reads, in instruction order;
  // for a value rebuilt in the backward graph, the saved values it is rebuilt from.
  std::vector<const Instruction*> residuals;
  absl::flat_hash_set<const Instruction*> saved, walked;
  std::vector<const Instruction*> stack;
  for (const auto& owned : j.instructions()) {
    if (!linear.contains(owned.get())) continue;
    for (const Instruction* o : owned->operands()) {
      if (linear.contains(o)) continue;
      stack.push_back(o);
      while (!stack.empty()) {
        const Instruction* v = stack.back();
        stack.pop_back();
        if (!remat(*v)) {
          if (saved.insert(v).second) residuals.push_back(v);
          continue;
        }
        if (!walked.insert(v).second) continue;
        for (const Instruction* in : v->operands()) stack.push_back(in);
      }
    }
  }

  // Forward: the primal instructions, returning the results and residuals.
  ComputationBuilder* fb = target.NewComputation(name + "_fwd");
  if (fb == nullptr) return absl::FailedPreconditionError("vjp: the module was already built");
  absl::flat_hash_map<const Instruction*, Value> fmap;
  for (const auto& owned : j.instructions()) {
    const Instruction* instr = owned.get();
    if (linear.contains(instr)) continue;
    if (instr->opcode() == Opcode::kParameter) {
      fmap[instr] = fb->Parameter(instr->shape());
      continue;
    }
    std::vector<Value> operands;
    for (const Instruction* o : instr->operands()) operands.push_back(fmap.at(o));
    XJIT_TF_ASSIGN_OR_RETURN(Value v, CloneOnto(*fb, *instr, operands));
    fmap[instr] = v;
  }
  std::vector<Value> fresults;
  for (int64_t i = 0; i < num_results; ++i) fresults.push_back(fmap.at(j.results()[i]));
  for (const Instruction* r : residuals) fresults.push_back(fmap.at(r));
  VjpResult result;
  XJIT_TF_ASSIGN_OR_RETURN(result.forward, fb->Finish(fresults));
  result.num_residuals = static_cast<int64_t>(residuals.size());
  result.result_has_cotangent = jvp.result_has_tangent;

  // Backward: residuals and result cotangents in, parameter cotangents out.
  ComputationBuilder* bb = target.NewComputation(name + "_bwd");
  if (bb == nullptr) return absl::FailedPreconditionError("vjp: the module was already built");
  Backward bw(target, *bb, remat);
  for (const Instruction* r : residuals) bw.Bind(r, bb->Parameter(r->shape()));
  absl::flat_hash_map<const Instruction*, Value> ct;
  auto accumulate = [&](const Instruction* at, Value v) -> absl::Status {
    if (v == nullptr) return absl::OkStatus();
    if (v->shape() != at->shape()) {
      return absl::InternalError(absl::StrCat(
          "vjp: the transpose of ", OpcodeName(at->opcode()), " made a cotangent of type ",
          v->shape().ToString(), " for a value of type ", at->shape().ToString()));
    }
    auto it = ct.find(at);
    if (it == ct.end()) {
      ct[at] = v;
      return absl::OkStatus();
    }
    XJIT_TF_ASSIGN_OR_RETURN(it->second, bw.e().Add(it->second, v));
    return absl::OkStatus();
  };
  for (int64_t i = num_results; i < static_cast<int64_t>(j.results().size()); ++i) {
    const Instruction* out_tangent = j.results()[i];
    Value param = bb->Parameter(out_tangent->shape());
    if (linear.contains(out_tangent)) XJIT_TF_RETURN_IF_ERROR(accumulate(out_tangent, param));
  }
  // Cotangents of the elements of linear tuples (a custom_vjp linearisation
  // with several results), gathered from their get_tuple_element users.
  absl::flat_hash_map<const Instruction*, std::vector<Value>> tuple_ct;
  for (auto it = j.instructions().rbegin(); it != j.instructions().rend(); ++it) {
    const Instruction& instr = **it;
    if (!linear.contains(&instr) || instr.opcode() == Opcode::kParameter) continue;
    if (instr.opcode() == Opcode::kGetTupleElement) {
      auto found = ct.find(&instr);
      if (found == ct.end()) continue;
      const Instruction* tuple = instr.operand(0);
      std::vector<Value>& parts = tuple_ct[tuple];
      parts.resize(tuple->shape().tuple_shapes.size(), nullptr);
      Value& part = parts[instr.attrs<GetTupleElementAttrs>().index];
      XJIT_TF_ASSIGN_OR_RETURN(part, bw.e().AddAny(part, found->second));
      continue;
    }
    Value instr_ct = nullptr;
    std::vector<Value> parts;
    if (instr.shape().is_tuple) {
      auto found = tuple_ct.find(&instr);
      if (found == tuple_ct.end()) continue;
      parts = found->second;
    } else {
      auto found = ct.find(&instr);
      if (found == ct.end()) continue;
      instr_ct = found->second;
    }
    TransposeRule rule = TransposeRuleFor(instr.opcode());
    if (rule == nullptr) {
      return absl::UnimplementedError(absl::StrCat(
          "vjp: no transpose rule for '", OpcodeName(instr.opcode()), "' yet"));
    }
    TransposeContext tctx{instr, instr_ct, {}, {}, bw.e()};
    tctx.ct_parts = std::move(parts);
    for (const Instruction* o : instr.operands()) {
      bool is_linear = linear.contains(o);
      tctx.linear.push_back(is_linear);
      Value v = nullptr;
      if (!is_linear) {
        XJIT_TF_ASSIGN_OR_RETURN(v, bw.Primal(o));
      }
      tctx.primal.push_back(v);
    }
    XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> cts, rule(tctx));
    for (size_t k = 0; k < cts.size() && k < instr.operands().size(); ++k) {
      if (tctx.linear[k]) XJIT_TF_RETURN_IF_ERROR(accumulate(instr.operand(k), cts[k]));
    }
  }
  std::vector<Value> bresults;
  for (const Instruction* t : tangent_params) {
    auto found = ct.find(t);
    Value v = found == ct.end() ? nullptr : found->second;
    if (v == nullptr) {
      XJIT_TF_ASSIGN_OR_RETURN(v, bw.e().ZerosLike(t->shape()));
    }
    bresults.push_back(v);
  }
  XJIT_TF_ASSIGN_OR_RETURN(result.backward, bb->Finish(bresults));
  return result;
}

}  // namespace xjit::transforms
