// Shape rules of the token and host-transfer ops (StableHLO spec: after_all,
// infeed, outfeed, send, recv).
#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit::shape_inference {
namespace {

absl::Status Error(Opcode op, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), ": ", what));
}

// (values..., token): the data operands are arrays, the last operand a token.
absl::Status CheckDataThenToken(Opcode op, Operands operands) {
  if (operands.empty() || !operands.back()->is_token) {
    return Error(op, absl::StrCat("the last operand must be a !stablehlo.token, got (",
                                  ShapesToString(operands), ")"));
  }
  for (size_t i = 0; i + 1 < operands.size(); ++i) {
    if (!operands[i]->is_array()) {
      return Error(op, absl::StrCat("operand ", i, " must be a tensor, got ",
                                    operands[i]->ToString()));
    }
  }
  return absl::OkStatus();
}

// infeed/recv: (token) -> the declared (values..., token) tuple.
absl::StatusOr<Shape> InferReceiving(Opcode op, const Shape& token, const Shape* declared) {
  if (!token.is_token) {
    return Error(op, absl::StrCat("operand must be a !stablehlo.token, got ", token.ToString()));
  }
  if (declared == nullptr) return Error(op, "missing result types");
  // One declared array stands for (array, token), as the Python binding gives it.
  if (declared->is_array()) return Shape::Tuple({*declared, Shape::Token()});
  if (!declared->is_tuple || declared->tuple_shapes.empty() ||
      !declared->tuple_shapes.back().is_token) {
    return Error(op, absl::StrCat("results must be (tensors..., !stablehlo.token), got ",
                                  declared->ToString()));
  }
  const std::vector<Shape>& parts = declared->tuple_shapes;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!parts[i].is_array()) {
      return Error(op, absl::StrCat("result ", i, " must be a tensor, got ", parts[i].ToString()));
    }
  }
  return *declared;
}

}  // namespace

absl::StatusOr<Shape> InferHostIo(Opcode op, Operands operands, const Shape* declared) {
  switch (op) {
    case Opcode::kAfterAll:
      for (size_t i = 0; i < operands.size(); ++i) {
        if (!operands[i]->is_token) {
          return Error(op, absl::StrCat("operand ", i, " must be a !stablehlo.token, got ",
                                        operands[i]->ToString()));
        }
      }
      return Shape::Token();
    case Opcode::kOutfeed:
    case Opcode::kSend:
      if (absl::Status s = CheckDataThenToken(op, operands); !s.ok()) return s;
      return Shape::Token();
    case Opcode::kInfeed:
    case Opcode::kRecv:
      return InferReceiving(op, *operands[0], declared);
    default:
      return Error(op, "not a host transfer op (bug in InferShape)");
  }
}

}  // namespace xjit::shape_inference
