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

}  // namespace xjit::cpu
