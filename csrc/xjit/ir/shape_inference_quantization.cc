// uniform_quantize, uniform_dequantize, and every other op on quantized
// types, inferred on expressed types (the spec's dequantize_op_quantize).
#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit {
namespace shape_inference {
namespace {

absl::Status CheckQuantizedArray(absl::string_view op, const Shape& s) {
  const QuantizedType& q = *s.quant;
  const int64_t axis_size = q.per_axis() && q.quantized_dimension < s.rank()
                                ? s.dims[q.quantized_dimension] : -1;
  if (absl::Status st = CheckQuantizedType(q, s.rank(), axis_size); !st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", st.message()));
  }
  if (s.dtype != q.storage) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": a quantized tensor holds its storage type"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferUniformQuantize(const Shape& operand, const Shape* declared) {
  if (declared == nullptr || !declared->is_array() || !declared->is_quantized()) {
    return absl::InvalidArgumentError("uniform_quantize: the result must be a quantized tensor type");
  }
  if (absl::Status s = CheckQuantizedArray("uniform_quantize", *declared); !s.ok()) return s;
  if (!operand.is_array() || operand.dims != declared->dims) {
    return absl::InvalidArgumentError(absl::StrCat("uniform_quantize: operand ", operand.ToString(),
                                                   " and result ", declared->ToString(),
                                                   " must have the same shape"));
  }
  if (operand.is_quantized()) {
    if (absl::Status s = CheckQuantizedArray("uniform_quantize", operand); !s.ok()) return s;
    if (operand.quant->expressed != declared->quant->expressed) {
      return absl::InvalidArgumentError("uniform_quantize: operand and result must have one expressed type");
    }
  } else if (operand.dtype != declared->quant->expressed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "uniform_quantize: a float operand must have the result's expressed type ",
        StableHloName(declared->quant->expressed), ", got ", operand.ToString()));
  }
  return *declared;
}

absl::StatusOr<Shape> InferUniformDequantize(const Shape& operand) {
  if (!operand.is_array() || !operand.is_quantized()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "uniform_dequantize: operand must be a quantized tensor, got ", operand.ToString()));
  }
  if (absl::Status s = CheckQuantizedArray("uniform_dequantize", operand); !s.ok()) return s;
  return Shape(operand.quant->expressed, operand.dims);
}

}  // namespace shape_inference

namespace {

bool ForwardsValues(Opcode op) {
  switch (op) {
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kTuple:
    case Opcode::kGetTupleElement: case Opcode::kCall: case Opcode::kWhile: case Opcode::kIf:
    case Opcode::kCase: case Opcode::kComposite: case Opcode::kOptimizationBarrier:
    case Opcode::kCustomCall: case Opcode::kUniformQuantize: case Opcode::kUniformDequantize:
      return true;
    default:
      return false;
  }
}

bool IsQuantizedArray(const Shape* s) { return s != nullptr && s->is_array() && s->is_quantized(); }

}  // namespace

bool ComputesOnQuantizedTypes(Opcode op, absl::Span<const Shape* const> operands,
                              const Shape* declared_result) {
  if (ForwardsValues(op)) return false;
  if (IsQuantizedArray(declared_result)) return true;
  for (const Shape* s : operands) {
    if (IsQuantizedArray(s)) return true;
  }
  return false;
}

}  // namespace xjit
