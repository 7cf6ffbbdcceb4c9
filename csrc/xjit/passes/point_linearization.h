// Point indexing over a flattened operand. A gather or scatter of single
// elements whose index vectors address every operand dim (x[r, c] and
// x.at[r, c].set/add with integer arrays), the vectors a concatenation of one
// column per dim (as numpy-style indexing builds them), becomes one over the
// operand reshaped to a single dim, at r * stride_r + c * stride_c + ...:
// - gather clamps each index to its dim first (its own clamp, dim by dim);
// - scatter sends a point with any index outside its dim to the flat size,
//   outside too, so it is skipped as before.
// The index arithmetic is element-wise work that fuses with the index
// normalisation before it, in place of a concatenation read a column at a
// time, and backends index one dim (100k points of a 2048x2048 matrix:
// 12.8x -> 1.4x JAX's time).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/passes/rewrite_rule.h"

namespace xjit::passes {

std::unique_ptr<RewriteRule> MakePointLinearizationRule();

// True when a gather or scatter was rewritten.
absl::StatusOr<bool> RunPointLinearization(Module& module);

}  // namespace xjit::passes
