// fft on the CPU (issue 11): ducc0's FFTs, the library JAX's CPU backend
// calls (docs/dependencies.md). The transform runs over the fft_length.size()
// innermost dimensions of every batch element; IFFT and IRFFT scale by
// 1 / prod(fft_length), as XLA does.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

absl::StatusOr<std::unique_ptr<Thunk>> MakeFftThunk(const Instruction& instr, SlotId operand,
                                                    SlotId result);

}  // namespace xjit::cpu
