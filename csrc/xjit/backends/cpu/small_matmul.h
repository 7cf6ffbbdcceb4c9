// dot_general of small float32 operands (a loop body's matrix-vector product,
// e.g. a 64x64 RNN step) on a plain vectorized loop: for a few thousand
// multiply-adds, setting up a oneDNN primitive call costs more than the work.
#pragma once

#include <memory>

#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// At most this many multiply-adds per run take the small kernel.
inline constexpr int64_t kSmallMatmulWork = 32 * 1024;

// A thunk for a float32 dot_general without batching dimensions, with one
// contracting dimension that is the first or the last of each operand, and
// at most kSmallMatmulWork multiply-adds; null for any other (matmul.cc's
// general lowering takes it).
std::unique_ptr<Thunk> MakeSmallMatmulThunk(const Instruction& dot, SlotId lhs, SlotId rhs,
                                            SlotId output);

}  // namespace xjit::cpu
