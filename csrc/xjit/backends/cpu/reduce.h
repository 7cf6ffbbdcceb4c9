// reduce on the CPU. A body that is one add/multiply/maximum/minimum/and/or of
// its two parameters gets a typed kernel (vectorisable, float accumulation for
// f16/bf16); any other body, including variadic ones such as argmax, runs
// through the ScalarEvaluator. Both are multi-threaded over the outputs.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// inputs: the N operands then the N init values; outputs: the N results.
absl::StatusOr<std::unique_ptr<Thunk>> MakeReduceThunk(const Instruction& instr,
                                                       std::vector<SlotId> inputs,
                                                       std::vector<SlotId> outputs);

// out[r] = init combined with the row_size contiguous elements of row r, for
// r < rows: the typed kernel's loop for one output, so a fused row reduction
// (row_fusion.h) gives the reduce thunk's result bit for bit.
using RowReduceKernel = void (*)(const void* in, const void* init, void* out, int64_t rows,
                                 int64_t row_size);
// The kernel for a reduce whose body ir/reduce_body.h recognises, on its
// element type; null when there is none.
RowReduceKernel GetRowReduceKernel(const Instruction& reduce);

}  // namespace xjit::cpu
