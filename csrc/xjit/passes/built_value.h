// For passes that emit several instructions in a row, each of which may fail:
// `Built` is one built value or its error, and XJIT_ASSIGN_OR_RETURN names the
// value or returns the error.
#pragma once

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"

namespace xjit::passes {

using Built = absl::StatusOr<Instruction*>;

#define XJIT_ASSIGN_OR_RETURN(var, expr)          \
  absl::StatusOr<Instruction*> var##_or = (expr); \
  if (!var##_or.ok()) return var##_or.status();   \
  Instruction* var = *var##_or;

}  // namespace xjit::passes
