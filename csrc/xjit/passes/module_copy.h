// Copying instructions and computations into a ModuleBuilder, for passes that
// rebuild a module (the graph is append-only). Called computations are copied
// once each. Superseded by the rewriter's Cloner (builder/rewriter.h) where
// that is available.
#pragma once

#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "xjit/builder/builder.h"
#include "xjit/ir/graph.h"

namespace xjit {

class ModuleCopier {
 public:
  // inline_calls: a call is replaced by a copy of its callee's body.
  explicit ModuleCopier(ModuleBuilder& target, bool inline_calls = false)
      : target_(target), inline_calls_(inline_calls) {}

  // Appends a copy of `instr` to `builder`, its operands looked up in `values`
  // (old -> new) and its called computations copied.
  absl::StatusOr<Instruction*> CopyInstruction(
      const Instruction& instr, ComputationBuilder& builder,
      const absl::flat_hash_map<const Instruction*, Instruction*>& values);

  // A finished copy of `c` in the target module (memoised).
  absl::StatusOr<Computation*> CopyComputation(const Computation& c);

 private:
  absl::StatusOr<Instruction*> InlineCall(const Instruction& call, ComputationBuilder& builder,
                                          std::vector<Instruction*> args);

  ModuleBuilder& target_;
  bool inline_calls_;
  absl::flat_hash_map<const Computation*, Computation*> copies_;
};

}  // namespace xjit

namespace xjit {

// A copy of `module` with every call of the entry replaced by its callee's body
// (recursively). Until the passes layer has its own inlining pass.
absl::StatusOr<std::unique_ptr<Module>> InlineEntryCalls(const Module& module);

}  // namespace xjit
