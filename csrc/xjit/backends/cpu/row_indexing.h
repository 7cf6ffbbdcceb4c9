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
  int64_t wrap = 0;  // added to negative indices first (index_wrap.h), 0: none
  // A gather in JAX's fill mode (index_wrap.h's IndexFill): positions whose
  // index (before wrapping) is outside [fill_lo, fill_hi) get fill_bits.
  // Only for rows of one 4- or 8-byte scalar and s32/s64 indices
  // (GatherFillsRows).
  bool fill = false;
  int64_t fill_lo = 0, fill_hi = 0;
  uint64_t fill_bits = 0;
};
RowIndexing MakeRowIndexing(const IndexingGeometry& g);

// Whether GatherRows applies `r.fill` for rows of this size and index type.
bool GatherFillsRows(int64_t row_bytes, DType index_type);

// out[b] = operand[clamp(i, 0, rows - 1)], i = indices[b] (+ wrap if
// negative); the fill where r.fill says.
void GatherRows(const RowIndexing& r, const void* operand, const void* indices, void* out);

// result[i] = combine(result[i], updates[b]), i = indices[b] (+ wrap if
// negative), for the i inside [0, rows) (the others are skipped); `result`
// already holds the input.
// combine: kAdd, kMultiply, kMaximum, kMinimum, or kParameter for "set".
using ScatterRowsFn = void (*)(const RowIndexing&, const void* indices, const void* updates,
                               void* result, bool unique_indices);
// nullptr when there is no typed kernel for (combine, t).
ScatterRowsFn ScatterRowsFor(Opcode combine, DType t);

}  // namespace xjit::cpu
