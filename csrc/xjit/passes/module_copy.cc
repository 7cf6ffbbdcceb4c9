#include "xjit/passes/module_copy.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xjit {

absl::StatusOr<Instruction*> ModuleCopier::CopyInstruction(
    const Instruction& instr, ComputationBuilder& builder,
    const absl::flat_hash_map<const Instruction*, Instruction*>& values) {
  if (instr.opcode() == Opcode::kParameter) return builder.Parameter(instr.shape());
  if (instr.opcode() == Opcode::kConstant) {
    if (!instr.attrs().literal) return absl::InvalidArgumentError("constant: missing literal");
    return builder.Constant(*instr.attrs().literal);
  }
  std::vector<Instruction*> operands;
  for (const Instruction* o : instr.operands()) {
    auto it = values.find(o);
    if (it == values.end()) {
      return absl::InternalError(absl::StrCat(OpcodeName(instr.opcode()),
                                              ": operand %", o->id(), " was not copied"));
    }
    operands.push_back(it->second);
  }
  if (inline_calls_ && instr.opcode() == Opcode::kCall && instr.called_computations().size() == 1) {
    return InlineCall(instr, builder, std::move(operands));
  }
  std::vector<Computation*> called;
  for (const Computation* c : instr.called_computations()) {
    auto copy = CopyComputation(*c);
    if (!copy.ok()) return copy.status();
    called.push_back(*copy);
  }
  return builder.Add(instr.opcode(), std::move(operands), instr.attrs(), std::move(called),
                     instr.source_location());
}

absl::StatusOr<Instruction*> ModuleCopier::InlineCall(const Instruction& call,
                                                      ComputationBuilder& builder,
                                                      std::vector<Instruction*> args) {
  const Computation& callee = *call.called_computations()[0];
  absl::flat_hash_map<const Instruction*, Instruction*> values;
  for (const auto& instr : callee.instructions()) {
    if (instr->opcode() == Opcode::kParameter) {
      const int64_t number = instr->attrs().dimension;
      if (number < 0 || number >= static_cast<int64_t>(args.size())) {
        return absl::InvalidArgumentError(absl::StrCat("call: parameter ", number, " out of range"));
      }
      values[instr.get()] = args[number];
      continue;
    }
    auto copy = CopyInstruction(*instr, builder, values);
    if (!copy.ok()) return copy.status();
    values[instr.get()] = *copy;
  }
  // As shape inference: one result is the value itself, several a tuple.
  std::vector<Instruction*> results;
  for (const Instruction* r : callee.results()) results.push_back(values.at(r));
  if (results.size() == 1) return results[0];
  return builder.Add(Opcode::kTuple, std::move(results), {}, {}, call.source_location());
}

absl::StatusOr<Computation*> ModuleCopier::CopyComputation(const Computation& c) {
  if (auto it = copies_.find(&c); it != copies_.end()) return it->second;
  ComputationBuilder* builder = target_.NewComputation(c.name());
  if (builder == nullptr) return absl::FailedPreconditionError("copy: the module was already built");
  absl::flat_hash_map<const Instruction*, Instruction*> values;
  for (const auto& instr : c.instructions()) {
    auto copy = CopyInstruction(*instr, *builder, values);
    if (!copy.ok()) return copy.status();
    values[instr.get()] = *copy;
  }
  std::vector<Instruction*> results;
  for (const Instruction* r : c.results()) results.push_back(values.at(r));
  auto done = builder->Finish(std::move(results));
  if (!done.ok()) return done.status();
  copies_[&c] = *done;
  return *done;
}

}  // namespace xjit

namespace xjit {

absl::StatusOr<std::unique_ptr<Module>> InlineEntryCalls(const Module& module) {
  const Computation* entry = module.entry();
  if (entry == nullptr) return absl::InvalidArgumentError("module has no entry computation");
  ModuleBuilder mb(module.name());
  ModuleCopier copier(mb, /*inline_calls=*/true);
  auto copy = copier.CopyComputation(*entry);
  if (!copy.ok()) return copy.status();
  return mb.Build(*copy);
}

}  // namespace xjit
