#include "xjit/ir/walk.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"

namespace xjit {

std::vector<Instruction*> PostOrder(const Computation& c) {
  std::vector<Instruction*> out;
  out.reserve(c.instructions().size());
  for (const auto& instr : c.instructions()) out.push_back(instr.get());
  return out;
}

std::vector<Instruction*> ReversePostOrder(const Computation& c) {
  std::vector<Instruction*> out = PostOrder(c);
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<bool> LiveInstructions(const Computation& c) {
  // Operands precede their users, so one backward sweep marks everything.
  const auto& instrs = c.instructions();
  std::vector<bool> live(instrs.size(), false);
  for (const Instruction* r : c.results()) live[r->id()] = true;
  for (const auto& instr : instrs) {
    if (HasSideEffects(*instr)) live[instr->id()] = true;
  }
  for (size_t i = instrs.size(); i-- > 0;) {
    if (!live[i]) continue;
    for (const Instruction* o : instrs[i]->operands()) live[o->id()] = true;
  }
  return live;
}

std::vector<Instruction*> LivePostOrder(const Computation& c) {
  std::vector<bool> live = LiveInstructions(c);
  std::vector<Instruction*> out;
  for (const auto& instr : c.instructions()) {
    if (live[instr->id()]) out.push_back(instr.get());
  }
  return out;
}

std::vector<Computation*> ComputationPostOrder(const Module& module) {
  std::vector<Computation*> out;
  if (module.entry() == nullptr) return out;
  // Iterative depth-first search (call chains can be deep): a frame is a
  // computation and the index of the next instruction to look at.
  absl::flat_hash_set<const Computation*> seen = {module.entry()};
  std::vector<std::pair<Computation*, size_t>> stack = {{module.entry(), 0}};
  while (!stack.empty()) {
    auto& [c, next] = stack.back();
    Computation* callee = nullptr;
    while (callee == nullptr && next < c->instructions().size()) {
      for (Computation* k : c->instructions()[next]->called_computations()) {
        if (seen.insert(k).second) {
          callee = k;
          break;
        }
      }
      // Stay on this instruction until all its callees are seen.
      if (callee == nullptr) ++next;
    }
    if (callee != nullptr) {
      stack.push_back({callee, 0});
    } else {
      out.push_back(c);
      stack.pop_back();
    }
  }
  return out;
}

std::vector<Computation*> ComputationReversePostOrder(const Module& module) {
  std::vector<Computation*> out = ComputationPostOrder(module);
  std::reverse(out.begin(), out.end());
  return out;
}

bool AnyInstruction(const Module& module, absl::FunctionRef<bool(const Instruction&)> pred) {
  for (const auto& c : module.computations()) {
    for (const auto& instr : c->instructions()) {
      if (pred(*instr)) return true;
    }
  }
  return false;
}

bool AnyResultLeaf(const Module& module, absl::FunctionRef<bool(const Shape&)> pred) {
  return AnyInstruction(module, [&](const Instruction& instr) {
    const Shape& s = instr.shape();
    return s.is_array() ? pred(s) : AnyArrayLeaf(s, pred);
  });
}

bool AnyArrayLeafOfTypes(const Instruction& instr, absl::FunctionRef<bool(const Shape&)> pred) {
  if (AnyArrayLeaf(instr.shape(), pred)) return true;
  for (const Instruction* o : instr.operands()) {
    if (AnyArrayLeaf(o->shape(), pred)) return true;
  }
  return false;
}

}  // namespace xjit
