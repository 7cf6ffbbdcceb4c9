// The reference evaluator: walks a computation's instructions in order and
// computes each value with the kernels of ops.h. Called computations (reduce
// bodies, call targets) are evaluated recursively by the same function.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/backends/reference/value.h"
#include "xjit/ir/graph.h"

namespace xjit::reference {

// `args` holds one value per parameter, in parameter-number order. Returns
// one value per computation result. Every instruction's value is checked
// against its declared shape, so a wrong graph is an error, not a wrong answer.
absl::StatusOr<std::vector<Value>> EvaluateComputation(const Computation& computation,
                                                       absl::Span<const Value> args);

}  // namespace xjit::reference
