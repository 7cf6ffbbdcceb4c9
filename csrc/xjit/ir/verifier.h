// Checks a whole module: SSA order, operands in the same computation, every
// instruction's shape equal to what inference gives, regions well typed,
// entry computation present and results non-tuple arrays.
#pragma once

#include "absl/status/status.h"
#include "xjit/ir/graph.h"

namespace xjit {

absl::Status VerifyModule(const Module& module);

// VerifyModule without re-inferring each instruction's shape: for a module
// whose instructions all came through ComputationBuilder, which inferred and
// checked each one as it was appended (operands earlier and owned, shapes
// inferred from them). Checks what only the whole module shows: called
// computations in the module and acyclic, signatures, the entry's arrays.
absl::Status VerifyModuleStructure(const Module& module);

}  // namespace xjit
