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

// Whether `op` computes on quantized values here (an operand or the declared
// result is quantized, and the op is neither uniform_(de)quantize nor one that
// only forwards values: tuples, calls, control flow). Such an op is inferred
// on its operands' expressed types, as the spec's dequantize_op_quantize
// reads it, and a quantized result must be declared: the builder takes it
// as `declared_result` and the verifier passes the recorded one.
bool ComputesOnQuantizedTypes(Opcode op, absl::Span<const Shape* const> operands,
                              const Shape* declared_result);

absl::StatusOr<Shape> InferShape(Opcode op, absl::Span<const Shape* const> operands,
                                 const Attributes& attrs,
                                 absl::Span<const Computation* const> called,
                                 const Shape* declared_result = nullptr);

}  // namespace xjit
