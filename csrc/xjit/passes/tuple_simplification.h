// Tuple simplification: get_tuple_element(tuple(a, b, ...), i) becomes the
// i-th operand, and tuple(get_tuple_element(t, 0), ..., (t, n-1)) of a whole
// n-tuple t becomes t. The tuples left unused are dead code.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/passes/rewrite_rule.h"

namespace xjit::passes {

std::unique_ptr<RewriteRule> MakeTupleSimplificationRule();

// True when something was simplified.
absl::StatusOr<bool> RunTupleSimplification(Module& module);

}  // namespace xjit::passes
