// Dot strength reduction, as XLA's algebraic simplifier does it: a
// dot_general one of whose operands has no free dimensions (a matrix times a
// vector, a vector times a matrix, a row-wise dot product, a dot of two
// vectors) becomes a multiply by the vector spread over the other operand,
// reduced over the contracting dimensions. That work is one pass over the
// matrix, which fusion joins to its producers and consumers; as a GEMM it was
// a library call with one column (2048x2048 @ v: 2.3x JAX's time before).
// Floating types of 32 and 64 bits only (a product of halves would round
// each term where the dot accumulates in float), and matrices of 16K
// elements or more (smaller products are faster as one small-matmul call).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/passes/rewrite_rule.h"

namespace xjit::passes {

std::unique_ptr<RewriteRule> MakeDotStrengthReductionRule();

// True when a dot was rewritten.
absl::StatusOr<bool> RunDotStrengthReduction(Module& module);

}  // namespace xjit::passes
