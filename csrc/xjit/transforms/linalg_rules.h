// JVP, transpose and batching rules of cholesky and triangular_solve
// (linalg_rules.cc says how they are built); jvp_rules.cc, transpose_rules.cc
// and batching_rules.cc return them for these opcodes.
#pragma once

#include "xjit/transforms/batching_rules.h"
#include "xjit/transforms/jvp_rules.h"
#include "xjit/transforms/transpose_rules.h"
#include "absl/strings/string_view.h"

namespace xjit::transforms {

absl::StatusOr<JvpOut> CholeskyJvp(JvpContext& ctx);
absl::StatusOr<JvpOut> TriangularSolveJvp(JvpContext& ctx);
// triangular_solve is linear in b.
absl::StatusOr<std::vector<Value>> TriangularSolveTranspose(TransposeContext& ctx);
// Both ops are batched over their leading dimensions: the vmapped dimension
// becomes one more batch dimension.
absl::StatusOr<BatchOut> LinalgBatch(BatchContext& ctx);
// custom_call of a LAPACK target (lapack_*_ffi): they all batch over leading
// dimensions, so the vmapped dimension becomes the outermost batch dimension
// (layouts shifted by one). custom_call's batching rule
// (custom_call_rules.h) sends them here.
bool IsLapackTarget(absl::string_view target);
absl::StatusOr<BatchOut> LapackCustomCallBatch(BatchContext& ctx);

}  // namespace xjit::transforms
