// Dense transposition between row-major buffers: what converts a custom
// call's operands and results to and from the layouts it declares (LAPACK's
// column-major matrices, batched).
#pragma once

#include <cstdint>

#include "absl/types/span.h"

namespace xjit {

// dst = transpose(src, order): dst's dimension i is src's dimension order[i];
// both dense row-major with elements of `width` bytes. The two innermost dst
// dimensions are copied in cache-sized tiles, so a matrix transpose reads and
// writes each cache line once.
void TransposeDense(const void* src, absl::Span<const int64_t> dims,
                    absl::Span<const int64_t> order, int64_t width, void* dst);

}  // namespace xjit
