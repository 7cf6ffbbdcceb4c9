// while, if and case on the reference backend (control_flow.cc).
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/reference/value.h"
#include "xjit/ir/graph.h"

namespace xjit::reference {

// Runs cond and body on the operands until cond is false.
absl::StatusOr<Value> EvalWhile(const Instruction& instr, const std::vector<const Value*>& operands);
// if and case: evaluates the selected branch on the captured operands.
absl::StatusOr<Value> EvalBranch(const Instruction& instr, const std::vector<const Value*>& operands);

}  // namespace xjit::reference
