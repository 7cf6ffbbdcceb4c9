// Transposing copies in register tiles: a strided copy whose destination's
// innermost dim walks the source with a stride while another dim is the
// source's contiguous one (x.transpose(0, 2, 1), NCHW <-> NHWC). Element by
// element such a copy reads one element per cache line, and power-of-two
// strides pile those lines onto a few cache sets (64x512x128 floats: 2.0 ms,
// 3x JAX's time); here 16x16 tiles of 4-byte elements (8x8 of 8-byte ones,
// a cache line a row) are
// loaded as rows, transposed with vector shuffles and stored as rows.
#pragma once

#include "xjit/backends/cpu/strided_copy.h"

namespace xjit::cpu {

// Runs `copy` (simplified) as tiled transposes and returns true when it has
// that shape and 4- or 8-byte elements; false, having done nothing,
// otherwise.
bool RunTransposeTiles(const StridedCopy& copy, void* dst, const void* src);

// Rows [first, first + count) of the transpose of `src`, batches of
// [cols, rows] matrices (row-major, 4-byte elements) seen as batches of
// [rows, cols] with their rows numbered across batches, written to `dst` as
// count x cols (row-major) on the calling thread. The generated element-wise
// kernels read a transposed operand through such blocks (jit_region.cc).
void TransposedRows(const void* src, int64_t cols, int64_t rows, int64_t first, int64_t count,
                    void* dst);

}  // namespace xjit::cpu
