// Dead-code elimination: drops every instruction no result of its
// computation depends on (parameters stay: they are the signature) and every
// computation the entry does not reach. No op has side effects today; one
// that does must be kept here when it is added.
#pragma once

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"

namespace xjit::passes {

// True when something was removed.
absl::StatusOr<bool> RunDeadCodeElimination(Module& module);

}  // namespace xjit::passes
