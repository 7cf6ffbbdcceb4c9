// Data movement on literals, for constant folding at compile time: the
// index maps of iota, reshape, broadcast_in_dim, transpose, slice, reverse
// and concatenate, on bytes, so
// no element semantics (rounding, conversions) are involved. Arithmetic on
// constants needs kernels, which live in the backends: it is not folded.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/ir/literal.h"

namespace xjit::passes {

// iota: element i along `iota_dimension` is i, for integer, floating-point
// and complex `shape`s (values exact: callers cap the size).
absl::StatusOr<Literal> IotaLiteral(const Shape& shape, int64_t iota_dimension);
// The same bytes under another shape with as many elements.
Literal ReshapeLiteral(const Literal& literal, const Shape& shape);
// broadcast_in_dim: operand dimension i becomes result dimension dims[i].
Literal BroadcastLiteral(const Literal& literal, const Shape& shape,
                         absl::Span<const int64_t> dims);
// transpose: result dimension i is operand dimension permutation[i].
Literal TransposeLiteral(const Literal& literal, absl::Span<const int64_t> permutation);
// slice: result element i is operand element start + i * strides (per
// dimension), `shape` being the slice's result.
Literal SliceLiteral(const Literal& literal, const Shape& shape,
                     absl::Span<const int64_t> start_indices, absl::Span<const int64_t> strides);
// reverse along `dimensions`.
Literal ReverseLiteral(const Literal& literal, absl::Span<const int64_t> dimensions);
// concatenate `parts` (same type, same dims but `dimension`) along `dimension`.
Literal ConcatenateLiterals(absl::Span<const Literal* const> parts, int64_t dimension);

}  // namespace xjit::passes
