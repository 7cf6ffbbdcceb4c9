#include "xjit/passes/dead_code_elimination.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "xjit/ir/walk.h"

namespace xjit::passes {
namespace {

class DeadCodeElimination : public RewriteRule {
 public:
  bool Prepare(const Module& module) override {
    std::vector<Computation*> reachable = ComputationPostOrder(module);
    bool found = reachable.size() != module.computations().size();
    live_.clear();
    for (const Computation* c : reachable) {
      std::vector<bool> live = LiveInstructions(*c);
      for (const auto& instr : c->instructions()) {
        found = found || (!live[instr->id()] && instr->opcode() != Opcode::kParameter);
      }
      live_.emplace(c, std::move(live));
    }
    return found;
  }

  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) override {
    if (ctx.old.opcode() == Opcode::kParameter) return CloneAction::Clone();
    return live_.at(&ctx.source)[ctx.old.id()] ? CloneAction::Clone() : CloneAction::Skip();
  }

 private:
  absl::flat_hash_map<const Computation*, std::vector<bool>> live_;
};

}  // namespace

std::unique_ptr<RewriteRule> MakeDeadCodeEliminationRule() {
  return std::make_unique<DeadCodeElimination>();
}

absl::StatusOr<bool> RunDeadCodeElimination(Module& module) {
  DeadCodeElimination rule;
  return RunRule(module, rule);
}

}  // namespace xjit::passes
