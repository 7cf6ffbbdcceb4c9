// batch_norm_inference/training/grad on the CPU. f32 runs on oneDNN's
// batch_normalization primitives (created at compile time): the operand is
// described as [outer, features, inner] around feature_index, in oneDNN's
// nchw layout, or nhwc when the feature dimension is the last one. Other
// element types (f64, bf16, f16: oneDNN's bf16/f16 kernels want f32 scale and
// statistics) and anything oneDNN refuses run on a multi-threaded kernel of
// our own with double accumulators.
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
