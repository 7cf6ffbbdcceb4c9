// dot_general on the CPU. Both operands are viewed as [B, M, K] x [B, K, N]
// (batch, free, contracting dims grouped); when a group is not contiguous in
// memory the operand is first transposed into scratch. f32/bf16/f16 run on a
// oneDNN matmul primitive built at compile time (f32 on OpenBLAS's sgemm for
// the shapes where oneDNN's generic kernel is slow); bf16/f16 where oneDNN
// has no kernel for them run in float32 (widened, rounded back); f64 and
// complex on BLAS; other element types (and any case both reject) on our own
// multi-threaded loop.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

absl::StatusOr<std::unique_ptr<Thunk>> MakeDotGeneralThunk(const Instruction& instr,
                                                           SlotId lhs, SlotId rhs, SlotId output,
                                                           LoweringContext& ctx);

}  // namespace xjit::cpu
