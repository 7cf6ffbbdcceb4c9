#include "xjit/builder/rewriter.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace xjit {
namespace {

std::string Describe(const Instruction& instr, const Computation& c) {
  return absl::StrCat(OpcodeName(instr.opcode()), " %", instr.id(), " of ", c.name());
}

}  // namespace

Cloner::Cloner(ModuleBuilder& target, CloneOptions options)
    : target_(target), options_(std::move(options)) {}

namespace {

bool SameSignature(const Computation& a, const Computation& b) {
  auto same = [](const std::vector<Instruction*>& x, const std::vector<Instruction*>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i] == nullptr || y[i] == nullptr || x[i]->shape() != y[i]->shape()) return false;
    }
    return true;
  };
  return same(a.parameters(), b.parameters()) && same(a.results(), b.results());
}

// Whether a copy of `old` over `operands` calling `called` has old's shape
// without inferring it: the same operand types and callee signatures (a
// rewrite upstream may have changed neither). Most copies of a sweep are.
bool KeepsShapes(const Instruction& old, const std::vector<Instruction*>& operands,
                 const std::vector<Computation*>& called) {
  if (operands.size() != old.operands().size()) return false;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i] == nullptr || operands[i]->shape() != old.operand(i)->shape()) return false;
  }
  for (size_t i = 0; i < called.size(); ++i) {
    const Computation* was = old.called_computations()[i];
    if (called[i] == was) continue;
    // A fusion's shape rule reads its region's body (row_geometry.h), not
    // only its signature: a rewritten region is checked again.
    if (old.opcode() == Opcode::kFusion || !SameSignature(*called[i], *was)) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<Instruction*> Cloner::CloneInstruction(const Instruction& old,
                                                      std::vector<Instruction*> operands,
                                                      ComputationBuilder& builder) {
  std::vector<Computation*> called;
  for (Computation* callee : old.called_computations()) {
    if (options_.callees == CalleePolicy::kShare) {
      called.push_back(callee);
      continue;
    }
    absl::StatusOr<Computation*> clone = CloneComputation(*callee);
    if (!clone.ok()) return clone.status();
    called.push_back(*clone);
  }
  if (KeepsShapes(old, operands, called)) {
    return builder.AddCopyOf(old, std::move(operands), std::move(called));
  }
  if (DeclaresResultType(old.opcode())) {
    return builder.AddWithResultType(old.opcode(), old.shape(), std::move(operands),
                                     old.attributes(), std::move(called), old.source_location());
  }
  return builder.Add(old.opcode(), std::move(operands), old.attributes(), std::move(called),
                     old.source_location());
}

absl::StatusOr<std::vector<Instruction*>> Cloner::CloneBody(const Computation& source,
                                                            ComputationBuilder& builder,
                                                            ValueMap& map) {
  map.reserve(map.size() + source.instructions().size());
  for (const auto& owned : source.instructions()) {
    const Instruction& old = *owned;
    if (map.contains(&old)) continue;
    std::vector<Instruction*> operands;
    operands.reserve(old.operands().size());
    for (const Instruction* o : old.operands()) {
      auto it = map.find(o);
      if (it == map.end()) {
        return absl::InternalError(absl::StrCat("clone: operand of ", Describe(old, source),
                                                " was not visited before it"));
      }
      operands.push_back(it->second);
    }
    CloneAction action = CloneAction::Clone();
    if (options_.hook) {
      absl::StatusOr<CloneAction> decided =
          options_.hook(CloneContext{old, source, operands, builder, *this, map});
      if (!decided.ok()) return decided.status();
      action = *decided;
    }
    switch (action.kind()) {
      case CloneAction::Kind::kSkip:
        map[&old] = nullptr;
        break;
      case CloneAction::Kind::kReplace:
        if (action.replacement() == nullptr) {
          return absl::InternalError(
              absl::StrCat("clone: null replacement for ", Describe(old, source)));
        }
        map[&old] = action.replacement();
        break;
      case CloneAction::Kind::kClone: {
        for (size_t i = 0; i < operands.size(); ++i) {
          if (operands[i] == nullptr) {
            return absl::InternalError(absl::StrCat("clone: operand ", i, " of ",
                                                    Describe(old, source), " was skipped"));
          }
        }
        absl::StatusOr<Instruction*> clone = CloneInstruction(old, std::move(operands), builder);
        if (!clone.ok()) return clone.status();
        map[&old] = *clone;
        break;
      }
    }
  }
  std::vector<Instruction*> results;
  for (size_t i = 0; i < source.results().size(); ++i) {
    Instruction* r = map.at(source.results()[i]);
    if (r == nullptr) {
      return absl::InternalError(
          absl::StrCat("clone: result ", i, " of ", source.name(), " was skipped"));
    }
    results.push_back(r);
  }
  return results;
}

absl::StatusOr<Computation*> Cloner::CloneComputation(const Computation& source) {
  auto it = computations_.find(&source);
  if (it != computations_.end()) return it->second;
  if (!in_progress_.insert(&source).second) {
    return absl::InvalidArgumentError(
        absl::StrCat("clone: computation ", source.name(), " is reached recursively"));
  }
  ComputationBuilder* builder = target_.NewComputation(source.name());
  if (builder == nullptr) {
    return absl::FailedPreconditionError("clone: the target module was already built");
  }
  ValueMap map;
  absl::StatusOr<std::vector<Instruction*>> results = CloneBody(source, *builder, map);
  in_progress_.erase(&source);
  if (!results.ok()) return results.status();
  absl::StatusOr<Computation*> clone = builder->Finish(*std::move(results));
  if (!clone.ok()) return clone.status();
  computations_[&source] = *clone;
  return *clone;
}

absl::StatusOr<std::unique_ptr<Module>> CloneModule(const Module& module,
                                                    const CloneOptions& options) {
  if (module.entry() == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("clone: module ", module.name(), " has no entry computation"));
  }
  ModuleBuilder target(module.name());
  Cloner cloner(target, options);
  absl::StatusOr<Computation*> entry = cloner.CloneComputation(*module.entry());
  if (!entry.ok()) return entry.status();
  return target.Build(*entry);
}

}  // namespace xjit
