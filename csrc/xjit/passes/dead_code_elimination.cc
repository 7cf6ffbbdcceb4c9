#include "xjit/passes/dead_code_elimination.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "xjit/ir/walk.h"
#include "xjit/passes/rewrite_module.h"

namespace xjit::passes {

absl::StatusOr<bool> RunDeadCodeElimination(Module& module) {
  std::vector<Computation*> reachable = ComputationPostOrder(module);
  bool changed = reachable.size() != module.computations().size();
  absl::flat_hash_map<const Computation*, std::vector<bool>> live;
  for (const Computation* c : reachable) {
    std::vector<bool> l = LiveInstructions(*c);
    for (const auto& instr : c->instructions()) {
      changed = changed || (!l[instr->id()] && instr->opcode() != Opcode::kParameter);
    }
    live.emplace(c, std::move(l));
  }
  if (!changed) return false;
  CloneOptions options;
  options.hook = [&live](const CloneContext& ctx) -> absl::StatusOr<CloneAction> {
    if (ctx.old.opcode() == Opcode::kParameter) return CloneAction::Clone();
    return live.at(&ctx.source)[ctx.old.id()] ? CloneAction::Clone() : CloneAction::Skip();
  };
  if (absl::Status s = RewriteModule(module, options); !s.ok()) return s;
  return true;
}

}  // namespace xjit::passes
