// A pass is a rewrite rule applied while the module is cloned ("a sweep",
// builder/rewriter.h), so that several passes share one copy: the pipeline
// chains its rules into one sweep per round; a pass run alone is a sweep
// with its one rule. The clone is verified by ModuleBuilder::Build.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/builder/rewriter.h"
#include "xjit/ir/graph.h"

namespace xjit::passes {

class RewriteRule {
 public:
  virtual ~RewriteRule() = default;
  // Readies the rule for a sweep of `module` (liveness, tables) and says
  // whether it would change anything: a scan, never a copy.
  virtual bool Prepare(const Module& module) = 0;
  // What becomes of one instruction; Clone() when the rule has nothing to
  // say. Sees the operands already rewritten (ctx.operands).
  virtual absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) = 0;
};

// A copy of `module` in which each instruction is what the first rule that
// does not answer Clone() makes of it. The rules must have been prepared
// for `module`.
absl::StatusOr<std::unique_ptr<Module>> Sweep(const Module& module,
                                              absl::Span<RewriteRule* const> rules);

// Prepares `rule` for `module` and, when it has work, replaces `module` by
// its sweep. True when it did.
absl::StatusOr<bool> RunRule(Module& module, RewriteRule& rule);

}  // namespace xjit::passes
