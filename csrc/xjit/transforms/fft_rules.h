// Transform rules of the issue-11 ops (fft_rules.cc): fft's JVP is fft of
// the tangent (it is linear); its transpose follows JAX's lax.fft (FFT and
// IFFT are their own transposes; RFFT's is the real part of an FFT of the
// zero-padded cotangent; IRFFT's a scaled, masked and conjugated RFFT); vmap
// applies it to the batched operand (it acts on the innermost dimensions).
// optimization_barrier passes tangents through and batches as itself.
#pragma once

#include "xjit/transforms/batching_rules.h"
#include "xjit/transforms/jvp_rules.h"
#include "xjit/transforms/transpose_rules.h"

namespace xjit::transforms {

absl::StatusOr<JvpOut> FftJvp(JvpContext& ctx);
absl::StatusOr<std::vector<Value>> FftTranspose(TransposeContext& ctx);
absl::StatusOr<BatchOut> FftBatch(BatchContext& ctx);

absl::StatusOr<JvpOut> OptimizationBarrierJvp(JvpContext& ctx);
absl::StatusOr<BatchOut> OptimizationBarrierBatch(BatchContext& ctx);

}  // namespace xjit::transforms
