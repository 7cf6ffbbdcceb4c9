// The common gather and scatter of whole rows (x[idx], jnp.take,
// x.at[idx].add(v), embedding lookups and their gradients): one index per
// batch position, read at position b of the indices, addressing the
// operand's leading dimension, the window the full trailing dimensions,
// stored contiguously at b * row in the gathered result / the updates. The
// kernels read the indices with their own type, copy or combine whole rows
// (no per-element index decoding). A gather runs in parallel over indices; a
// scatter too under unique_indices, else on one thread in the serial order
// (so duplicates combine as the reference combines them).
#pragma once

#include <cstdint>

#include "xjit/backends/cpu/indexing_geometry.h"
#include "xjit/ir/opcode.h"

namespace xjit::cpu {

// Whether `g` is a row gather/scatter (see above).
bool IsRowIndexing(const IndexingGeometry& g);

struct RowIndexing {
  int64_t rows = 0;      // the operand's leading dimension
  int64_t row_bytes = 0;  // bytes per row
  int64_t count = 0;     // index positions
  DType index_type = DType::kS32;
};
RowIndexing MakeRowIndexing(const IndexingGeometry& g);

// out[b] = operand[clamp(indices[b], 0, rows - 1)].
void GatherRows(const RowIndexing& r, const void* operand, const void* indices, void* out);

// result[indices[b]] = combine(result[indices[b]], updates[b]) for the indices
// inside [0, rows) (the others are skipped); `result` already holds the input.
// combine: kAdd, kMultiply, kMaximum, kMinimum, or kParameter for "set".
using ScatterRowsFn = void (*)(const RowIndexing&, const void* indices, const void* updates,
                               void* result, bool unique_indices);
// nullptr when there is no typed kernel for (combine, t).
ScatterRowsFn ScatterRowsFor(Opcode combine, DType t);

}  // namespace xjit::cpu
