// Dead-code elimination: drops every instruction no result of its
// computation depends on (parameters stay: they are the signature) and every
// computation the entry does not reach. Ops with side effects (the op
// table's kSideEffects) and what they use are kept.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/passes/rewrite_rule.h"

namespace xjit::passes {

// The rule, for chaining in a sweep: put it first, so nothing is rewritten
// only to be dropped.
std::unique_ptr<RewriteRule> MakeDeadCodeEliminationRule();

// True when something was removed.
absl::StatusOr<bool> RunDeadCodeElimination(Module& module);

}  // namespace xjit::passes
