// Shape inference: one function per op family, reached through InferShape.
// `attrs` must hold the op's struct (OpcodeAttrsKind); `declared_result` is
// the result type of an op that declares one (DeclaresResultType), checked
// against the operands, and must be null for the other ops.
// Every rejection names the op and the offending shapes/attributes.
// Status codes: InvalidArgument for wrong element types or shapes of
// operands (Python TypeError); OutOfRange for bad attribute values such as an
// axis out of range (Python ValueError).
#pragma once

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/ir/attributes.h"
#include "xjit/ir/graph.h"
#include "xjit/ir/opcode.h"
#include "xjit/ir/shape.h"

namespace xjit {

absl::StatusOr<Shape> InferShape(Opcode op, absl::Span<const Shape* const> operands,
                                 const Attributes& attrs,
                                 absl::Span<const Computation* const> called,
                                 const Shape* declared_result = nullptr);

}  // namespace xjit
