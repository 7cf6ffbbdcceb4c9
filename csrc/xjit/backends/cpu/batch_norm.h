// batch_norm_inference/training/grad on the CPU. f32 runs on oneDNN's
// batch_normalization primitives (created at compile time) where oneDNN has
// a jit kernel for the layout: the operand is described as [outer, features,
// inner] around feature_index, as nchw {outer, C, inner, 1} or, feature last,
// nhwc {outer, C, 1, 1}. oneDNN's plain nchw kernel (ncsp_bnorm) is slower
// than ours (docs/performance.md), so those layouts, f64, bf16 and f16
// (oneDNN's low-precision kernels want f32 scale and statistics) run on our
// own multi-threaded kernel: vectorised per-feature sums (short stretches in
// the element type's float, added in double), then one normalising pass.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

absl::StatusOr<std::unique_ptr<Thunk>> MakeBatchNormThunk(const Instruction& instr,
                                                          const std::vector<SlotId>& in,
                                                          const std::vector<SlotId>& out,
                                                          LoweringContext& ctx);

// Whether `instr` runs on oneDNN (for tests and benchmarks).
bool BatchNormUsesOneDnn(const Instruction& instr);

}  // namespace xjit::cpu
