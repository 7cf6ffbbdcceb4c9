#include "xjit/ir/graph.h"

namespace xjit {

Instruction* Computation::AddInstruction(std::unique_ptr<Instruction> instr) {
  instr->id_ = static_cast<int64_t>(instructions_.size());
  Instruction* raw = instr.get();
  instructions_.push_back(std::move(instr));
  if (raw->opcode() == Opcode::kParameter) {
    int64_t number = raw->attrs<ParameterAttrs>().number;
    if (static_cast<int64_t>(parameters_.size()) <= number) parameters_.resize(number + 1, nullptr);
    parameters_[number] = raw;
  }
  return raw;
}

void Computation::RemoveInstructions(const std::vector<bool>& keep) {
  size_t next = 0;
  for (size_t i = 0; i < instructions_.size(); ++i) {
    if (!keep[i]) continue;
    instructions_[i]->id_ = static_cast<int64_t>(next);
    if (next != i) instructions_[next] = std::move(instructions_[i]);
    ++next;
  }
  instructions_.resize(next);
}

Computation* Module::AddComputation(std::unique_ptr<Computation> c) {
  computations_.push_back(std::move(c));
  return computations_.back().get();
}

std::vector<Shape> Module::ParameterShapes() const {
  std::vector<Shape> out;
  for (const Instruction* p : entry_->parameters()) out.push_back(p->shape());
  return out;
}

std::vector<Shape> Module::ResultShapes() const {
  std::vector<Shape> out;
  for (const Instruction* r : entry_->results()) out.push_back(r->shape());
  return out;
}

bool HasSideEffects(const Instruction& instr) {
  if (HasSideEffects(instr.opcode())) return true;
  if (instr.opcode() == Opcode::kCustomCall &&
      instr.attrs<CustomCallAttrs>().has_side_effect) {
    return true;
  }
  // A region or callee with side effects (a while whose body writes to the
  // outfeed) makes the op that runs it one too.
  for (const Computation* called : instr.called_computations()) {
    for (const auto& i : called->instructions()) {
      if (HasSideEffects(*i)) return true;
    }
  }
  return false;
}

}  // namespace xjit
