// batch_norm_inference, batch_norm_training and batch_norm_grad: the spec's
// constraints (C1-C7 of each op), checked in the order the spec lists them.
#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit {
namespace shape_inference {
namespace {

// C1: 0 <= feature_index < rank(operand), on a floating-point operand.
absl::Status CheckOperand(Opcode op, const Shape& operand, const BatchNormAttrs& attrs) {
  if (!IsFloat(operand.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        OpcodeName(op), ": operand must be a tensor of a floating-point type, got ",
        operand.ToString()));
  }
  if (attrs.feature_index < 0 || attrs.feature_index >= operand.rank()) {
    return absl::OutOfRangeError(absl::StrCat(
        OpcodeName(op), ": feature_index ", attrs.feature_index,
        " is out of range [0, ", operand.rank(), ") for an operand of rank ", operand.rank()));
  }
  return absl::OkStatus();
}

// The per-feature operands (scale, offset, mean, variance): 1-d, of the
// operand's element type, of size dim(operand, feature_index).
absl::Status CheckFeatureVector(Opcode op, absl::string_view name, const Shape& v,
                                const Shape& operand, int64_t feature_index) {
  const int64_t features = operand.dims[feature_index];
  if (v.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), ": ", name,
                                                   " must be 1-dimensional, got ", v.ToString()));
  }
  if (v.dtype != operand.dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat(OpcodeName(op), ": ", name, " must have the operand's element type (",
                     operand.ToString(), "), got ", v.ToString()));
  }
  if (v.dims[0] != features) {
    return absl::InvalidArgumentError(absl::StrCat(
        OpcodeName(op), ": size of ", name, " (", v.dims[0],
        ") must equal the operand's dimension feature_index ", feature_index, " (", features,
        ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckCount(Opcode op, Operands operands, size_t want, absl::string_view names) {
  if (operands.size() != want) {
    return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), ": expected ", want,
                                                   " operands (", names, "), got ",
                                                   operands.size()));
  }
  return absl::OkStatus();
}

absl::Status CheckFeatureVectors(Opcode op, Operands operands,
                                 std::initializer_list<std::pair<int, absl::string_view>> which,
                                 int64_t feature_index) {
  for (const auto& [i, name] : which) {
    if (absl::Status s = CheckFeatureVector(op, name, *operands[i], *operands[0], feature_index);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// (operand type, feature vector type, feature vector type).
Shape OperandAndTwoVectors(const Shape& operand, int64_t feature_index) {
  const Shape v(operand.dtype, {operand.dims[feature_index]});
  return Shape::Tuple({operand, v, v});
}

}  // namespace

absl::StatusOr<Shape> InferBatchNorm(Opcode op, Operands operands, const BatchNormAttrs& attrs) {
  switch (op) {
    case Opcode::kBatchNormInference:
      if (absl::Status s = CheckCount(op, operands, 5, "operand, scale, offset, mean, variance");
          !s.ok()) {
        return s;
      }
      break;
    case Opcode::kBatchNormTraining:
      if (absl::Status s = CheckCount(op, operands, 3, "operand, scale, offset"); !s.ok()) return s;
      break;
    case Opcode::kBatchNormGrad:
      if (absl::Status s =
              CheckCount(op, operands, 5, "operand, scale, mean, variance, grad_output");
          !s.ok()) {
        return s;
      }
      break;
    default:
      return absl::InternalError(absl::StrCat(OpcodeName(op), ": not a batch_norm op"));
  }
  const Shape& operand = *operands[0];
  if (absl::Status s = CheckOperand(op, operand, attrs); !s.ok()) return s;
  const int64_t f = attrs.feature_index;
  switch (op) {
    case Opcode::kBatchNormInference:
      if (absl::Status s = CheckFeatureVectors(
              op, operands, {{1, "scale"}, {2, "offset"}, {3, "mean"}, {4, "variance"}}, f);
          !s.ok()) {
        return s;
      }
      return operand;
    case Opcode::kBatchNormTraining:
      if (absl::Status s = CheckFeatureVectors(op, operands, {{1, "scale"}, {2, "offset"}}, f);
          !s.ok()) {
        return s;
      }
      return OperandAndTwoVectors(operand, f);
    default: {  // kBatchNormGrad
      if (absl::Status s = CheckFeatureVectors(
              op, operands, {{1, "scale"}, {2, "mean"}, {3, "variance"}}, f);
          !s.ok()) {
        return s;
      }
      const Shape& grad_output = *operands[4];
      if (grad_output != operand) {  // C2, C3
        return absl::InvalidArgumentError(absl::StrCat(
            OpcodeName(op), ": grad_output must have the operand's type ", operand.ToString(),
            ", got ", grad_output.ToString()));
      }
      return OperandAndTwoVectors(operand, f);
    }
  }
}

}  // namespace shape_inference
}  // namespace xjit
