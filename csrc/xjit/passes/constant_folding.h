// Constant and iota folding, for small results only (at most
// kMaxFoldedElements elements, so compile time and the module's size stay
// small): iota becomes a constant; reshape, transpose, broadcast_in_dim,
// slice and reverse of a constant, and concatenate of constants, become
// constants. A broadcast of a single element is left
// alone: backends read such splats in place instead of materialising them.
// Element-wise ops of integer and bool splats are evaluated
// (integer_splat_folding.h); other element-wise arithmetic and converts of
// constants are not folded: they need the backends' kernels and semantics,
// which this layer does not include.
#pragma once

#include <cstdint>

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/passes/rewrite_rule.h"

namespace xjit::passes {

std::unique_ptr<RewriteRule> MakeConstantFoldingRule();

inline constexpr int64_t kMaxFoldedElements = 4096;

// True when something was folded.
absl::StatusOr<bool> RunConstantFolding(Module& module);

}  // namespace xjit::passes
