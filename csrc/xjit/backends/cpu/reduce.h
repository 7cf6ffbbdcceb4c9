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

// A column reduction fed a block of rows at a time (column_fusion.h): rows
// of `columns` contiguous elements accumulate into one accumulator per
// column (acc_width bytes each, the compute type: float32 for bfloat16), as
// the reduce thunk's column kernel accumulates a chunk of rows.
struct ColumnReduceKernel {
  // acc[j] = row 0's element j, then rows 1..rows-1 accumulated.
  void (*first_rows)(void* acc, const void* in, int64_t rows, int64_t columns);
  // rows 0..rows-1 accumulated into acc.
  void (*more_rows)(void* acc, const void* in, int64_t rows, int64_t columns);
  // out[j] = init combined with the `chunks` partial accumulators' element j,
  // in chunk order.
  void (*finish)(const void* partials, int64_t chunks, int64_t columns, const void* init,
                 void* out);
  int64_t acc_width;
  // Sums of float32/float64 only (null otherwise): the same with each row r
  // multiplied by scales[r] first, the product rounded as a multiply would
  // (a column fusion's v[:, None] * x summed over rows, v @ x).
  void (*first_rows_scaled)(void* acc, const void* in, const void* scales, int64_t rows,
                            int64_t columns) = nullptr;
  void (*more_rows_scaled)(void* acc, const void* in, const void* scales, int64_t rows,
                           int64_t columns) = nullptr;
};
// The kernel for a reduce whose body ir/reduce_body.h recognises, on its
// element type; null when there is none.
const ColumnReduceKernel* GetColumnReduceKernel(const Instruction& reduce);

}  // namespace xjit::cpu
