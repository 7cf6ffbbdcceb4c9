// Full reductions of long arrays split in two, as XLA's tree reduction
// rewriter does: reduce(x, all dims) over N elements becomes
// reduce(reduce(reshape(x, [N/K, K]), dims=[1]), dims=[0]). The first reduce
// is a row reduction: a backend fuses the element-wise ops that feed it (the
// x * x of a sum of squares, the x - mean of a variance) and runs its rows
// in parallel; the second reduces N/K partial results. When x already has a
// row reduction over a 2-D reshape [R, L] (L in [min_row, max_row]), K = L:
// fusion then reads each row once for both (x.reshape(R, -1).sum(1), x.max()).
// A reassociation the reduce spec allows; the split depends only on the
// program, so it computes the same bits in every run.
#pragma once

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/passes/rewrite_rule.h"

namespace xjit::passes {

struct ReductionSplittingOptions {
  int64_t min_elements = 256 * 1024;  // shorter reductions are left alone
  // K: the largest multiple of `row_multiple` in [min_row, max_row] dividing
  // N; a reduction with none is left alone.
  int64_t min_row = 1024;
  int64_t max_row = 16384;
  int64_t row_multiple = 32;
};

// Splits single-input reductions over every dimension whose body is a known
// monoid (ir/reduce_body.h) whose init may be applied twice: maximum,
// minimum, and, or with any init, add with a zero init.
std::unique_ptr<RewriteRule> MakeReductionSplittingRule(
    const ReductionSplittingOptions& options = {});

// The module with its reductions split, or null when none is (no copy).
absl::StatusOr<std::unique_ptr<Module>> SplitReductionsIfChanged(
    const Module& module, const ReductionSplittingOptions& options = {});

// True when a reduction was split.
absl::StatusOr<bool> RunReductionSplitting(Module& module,
                                           const ReductionSplittingOptions& options = {});

}  // namespace xjit::passes
