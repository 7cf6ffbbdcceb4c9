// Call inlining: every call is replaced by a copy of its callee's body, its
// parameters bound to the call's operands (nested calls too, and calls
// inside reduce bodies). A callee with several results becomes a tuple of
// them, which tuple simplification then dissolves. Callees that nothing
// calls any more are dropped with the copy.
#pragma once

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"

namespace xjit::passes {

// True when a call was inlined.
absl::StatusOr<bool> RunCallInlining(Module& module);

}  // namespace xjit::passes
