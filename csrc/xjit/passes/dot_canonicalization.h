// dot_general canonicalisation, as XLA's DotDecomposer: the operands become
// [B, M, K] x [B, K, N] (each group one dimension, a group without
// dimensions left out), so a backend's matmul sees one batch, one free and
// one contracting dimension per operand; a reshape restores the result.
// Only dots with some group of two or more dimensions are rewritten: the
// others already have that form or a transposed one (lhs [K, M] or rhs
// [N, K]) that GEMM libraries take as is. Operands whose dimensions are not
// in group order need a transpose: a copy of the operand at every run
// (backends can often read it strided instead), so that is done only when
// asked (`transpose_operands`); the default pipeline reshapes only, which
// costs nothing.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/passes/rewrite_rule.h"

namespace xjit::passes {

struct DotCanonicalizationOptions {
  bool transpose_operands = false;
};

std::unique_ptr<RewriteRule> MakeDotCanonicalizationRule(
    const DotCanonicalizationOptions& options = {});

// True when a dot was rewritten.
absl::StatusOr<bool> RunDotCanonicalization(Module& module,
                                            const DotCanonicalizationOptions& options = {});

}  // namespace xjit::passes
