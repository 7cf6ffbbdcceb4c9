// JVP, transpose and batching rules of convolution, reduce_window and
// select_and_scatter (window_rules.cc), the entries jvp_rules.cc,
// transpose_rules.cc and batching_rules.cc return for these opcodes.
//
// - convolution is bilinear: its JVP convolves each tangent with the other
//   primal; its transposes are convolutions (JAX's
//   _conv_general_dilated_transpose_lhs/rhs), for every layout and group count.
// - reduce_window with an add body is linear: the JVP is the same op on the
//   tangents, the transpose pads the cotangent (interior = stride - 1) and sums
//   windows again (JAX's _reduce_window_sum_transpose_rule). With a max/min
//   body the tangent is gathered where the window's max/min is (JAX's
//   select_and_gather_add, as a variadic reduce_window of (operand, tangent)),
//   whose transpose is select_and_scatter with an add scatter.
// - select_and_scatter with an add scatter is linear in source and init; its
//   transpose gathers the cotangent at the selected positions.
// - batching folds the vmapped dimension into the batch (or output feature)
//   dimension of a convolution, or one feature/batch group per batch element
//   when both operands are batched (JAX's _conv_general_dilated_batch_rule),
//   and into a size-1 window dimension of the windowed reductions.
#pragma once

#include "xjit/transforms/batching_rules.h"
#include "xjit/transforms/jvp_rules.h"
#include "xjit/transforms/transpose_rules.h"

namespace xjit::transforms {

absl::StatusOr<JvpOut> ConvolutionJvp(JvpContext& ctx);
absl::StatusOr<JvpOut> ReduceWindowJvp(JvpContext& ctx);
absl::StatusOr<JvpOut> SelectAndScatterJvp(JvpContext& ctx);

absl::StatusOr<std::vector<Value>> ConvolutionTranspose(TransposeContext& ctx);
absl::StatusOr<std::vector<Value>> ReduceWindowTranspose(TransposeContext& ctx);
absl::StatusOr<std::vector<Value>> SelectAndScatterTranspose(TransposeContext& ctx);

absl::StatusOr<BatchOut> ConvolutionBatch(BatchContext& ctx);
absl::StatusOr<BatchOut> ReduceWindowBatch(BatchContext& ctx);
absl::StatusOr<BatchOut> SelectAndScatterBatch(BatchContext& ctx);

}  // namespace xjit::transforms
