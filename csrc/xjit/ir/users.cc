#include "xjit/ir/users.h"

namespace xjit {

Users::Users(const Computation& computation)
    : computation_(&computation),
      users_(computation.instructions().size()),
      result_uses_(computation.instructions().size(), 0) {
  for (const auto& instr : computation.instructions()) {
    for (const Instruction* o : instr->operands()) {
      std::vector<Instruction*>& list = users_[o->id()];
      // Users are visited in order, so a repeated operand is the last entry.
      if (list.empty() || list.back() != instr.get()) list.push_back(instr.get());
    }
  }
  for (const Instruction* r : computation.results()) ++result_uses_[r->id()];
}

bool Users::Owns(const Instruction& instr) const {
  const auto& instrs = computation_->instructions();
  return instr.id() >= 0 && instr.id() < static_cast<int64_t>(instrs.size()) &&
         instrs[instr.id()].get() == &instr;
}

const std::vector<Instruction*>& Users::of(const Instruction& instr) const {
  static const std::vector<Instruction*> kNone;
  return Owns(instr) ? users_[instr.id()] : kNone;
}

int64_t Users::result_uses(const Instruction& instr) const {
  return Owns(instr) ? result_uses_[instr.id()] : 0;
}

}  // namespace xjit
