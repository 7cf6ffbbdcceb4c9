// Quantized types (ir/quantized_type.h) lowered to plain ones, as the spec
// defines every op on them: dequantize_op_quantize. uniform_dequantize
// becomes (convert(q) - zero_point) * scale in the expressed type;
// uniform_quantize becomes convert(clamp(min, round_nearest_even(x / scale)
// + zero_point, max)) to the storage type; any other op on quantized
// operands runs on their dequantized values and quantizes its result to its
// declared type. Values that are only passed along (parameters, constants,
// tuples, calls, control flow) keep their storage bytes, typed as the
// storage type. Both backends run it first, so no backend sees a quantized
// type. Ops with regions of their own (reduce, sort, ...) on quantized
// operands are not lowered: they are an Unimplemented error naming the op.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"

namespace xjit::passes {

bool HasQuantizedTypes(const Module& module);

absl::StatusOr<std::unique_ptr<Module>> ExpandQuantizedOps(const Module& module);

}  // namespace xjit::passes
