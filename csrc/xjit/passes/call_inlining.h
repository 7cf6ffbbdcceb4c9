// Call inlining: every call is replaced by a copy of its callee's body, its
// parameters bound to the call's operands (nested calls too, and calls
// inside reduce bodies). A callee with several results becomes a tuple of
// them, which tuple simplification then dissolves. Callees that nothing
// calls any more are dropped with the copy.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/passes/rewrite_rule.h"

namespace xjit::passes {

std::unique_ptr<RewriteRule> MakeCallInliningRule();

// True when a call was inlined.
absl::StatusOr<bool> RunCallInlining(Module& module);

}  // namespace xjit::passes
