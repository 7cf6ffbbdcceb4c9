#include "xjit/passes/rewrite_rule.h"

#include <utility>
#include <vector>

namespace xjit::passes {

absl::StatusOr<std::unique_ptr<Module>> Sweep(const Module& module,
                                              absl::Span<RewriteRule* const> rules) {
  CloneOptions options;
  options.hook = [rules](const CloneContext& ctx) -> absl::StatusOr<CloneAction> {
    for (RewriteRule* rule : rules) {
      absl::StatusOr<CloneAction> action = rule->Rewrite(ctx);
      if (!action.ok() || action->kind() != CloneAction::Kind::kClone) return action;
    }
    return CloneAction::Clone();
  };
  return CloneModule(module, options);
}

absl::StatusOr<bool> RunRule(Module& module, RewriteRule& rule) {
  if (!rule.Prepare(module)) return false;
  RewriteRule* rules[] = {&rule};
  absl::StatusOr<std::unique_ptr<Module>> swept = Sweep(module, rules);
  if (!swept.ok()) return swept.status();
  module = std::move(**swept);
  return true;
}

}  // namespace xjit::passes
