#include "xjit/passes/tuple_simplification.h"

#include "xjit/ir/walk.h"

namespace xjit::passes {
namespace {

// The tuple `operands` take apart element by element, in order and whole;
// null if they do not.
Instruction* TupleTakenApart(absl::Span<Instruction* const> operands) {
  if (operands.empty() || operands[0]->opcode() != Opcode::kGetTupleElement) return nullptr;
  Instruction* whole = operands[0]->operand(0);
  if (whole->shape().tuple_shapes.size() != operands.size()) return nullptr;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Instruction* o = operands[i];
    if (o->opcode() != Opcode::kGetTupleElement || o->operand(0) != whole ||
        o->attrs<GetTupleElementAttrs>().index != static_cast<int64_t>(i)) {
      return nullptr;
    }
  }
  return whole;
}

// The simpler value for `instr` (given its operands), or null.
Instruction* Simplify(const Instruction& instr, absl::Span<Instruction* const> operands) {
  if (instr.opcode() == Opcode::kGetTupleElement && operands[0]->opcode() == Opcode::kTuple) {
    return operands[0]->operand(instr.attrs<GetTupleElementAttrs>().index);
  }
  if (instr.opcode() == Opcode::kTuple) return TupleTakenApart(operands);
  return nullptr;
}

class TupleSimplification : public RewriteRule {
 public:
  bool Prepare(const Module& module) override {
    for (const Computation* c : ComputationPostOrder(module)) {
      for (const auto& instr : c->instructions()) {
        if (Simplify(*instr, instr->operands()) != nullptr) return true;
      }
    }
    return false;
  }
  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) override {
    Instruction* simpler = Simplify(ctx.old, ctx.operands);
    return simpler != nullptr ? CloneAction::Replace(simpler) : CloneAction::Clone();
  }
};

}  // namespace

std::unique_ptr<RewriteRule> MakeTupleSimplificationRule() { return std::make_unique<TupleSimplification>(); }

absl::StatusOr<bool> RunTupleSimplification(Module& module) {
  TupleSimplification rule;
  return RunRule(module, rule);
}

}  // namespace xjit::passes
