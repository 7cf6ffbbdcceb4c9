// Common-subexpression elimination: of two instructions of one computation
// with the same op, operands, attributes, called computations and type, the
// later is replaced by the earlier (ops are pure). Called computations match
// when they are one or have the same instructions (tracing gives every
// reduce its own body). Parameters and ops with side effects are never
// merged. Run it with dead-code elimination: nothing is left unused here,
// but it makes earlier rewrites' duplicates (two broadcasts of one scalar)
// meet.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/passes/rewrite_rule.h"

namespace xjit::passes {

// The rule, for chaining in a sweep: put it last, since it clones the
// instructions it keeps itself (to remember them).
std::unique_ptr<RewriteRule> MakeCommonSubexpressionEliminationRule();

// True when something was merged.
absl::StatusOr<bool> RunCommonSubexpressionElimination(Module& module);

}  // namespace xjit::passes
