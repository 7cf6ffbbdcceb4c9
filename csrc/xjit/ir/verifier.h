// Checks a whole module: SSA order, operands in the same computation, every
// instruction's shape equal to what inference gives, regions well typed,
// entry computation present and results non-tuple arrays.
#pragma once

#include "absl/status/status.h"
#include "xjit/ir/graph.h"

namespace xjit {

absl::Status VerifyModule(const Module& module);

}  // namespace xjit
