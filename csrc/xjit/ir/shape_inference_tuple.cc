// tuple, get_tuple_element and call: ops that group values or forward them
// to another computation. Tuples are legal operands only here.
#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit {
namespace shape_inference {

absl::StatusOr<Shape> InferTuple(Operands operands) {
  std::vector<Shape> parts;
  for (const Shape* s : operands) parts.push_back(*s);
  return Shape::Tuple(std::move(parts));
}

absl::StatusOr<Shape> InferGetTupleElement(const Shape& tuple, const GetTupleElementAttrs& attrs) {
  if (!tuple.is_tuple) {
    return absl::InvalidArgumentError(
        absl::StrCat("get_tuple_element: operand must be a tuple, got ", tuple.ToString()));
  }
  int64_t size = static_cast<int64_t>(tuple.tuple_shapes.size());
  if (attrs.index < 0 || attrs.index >= size) {
    return absl::OutOfRangeError(absl::StrCat("get_tuple_element: index ", attrs.index,
                                              " out of range for ", tuple.ToString()));
  }
  return tuple.tuple_shapes[attrs.index];
}

absl::StatusOr<Shape> InferCall(Operands operands, Called called) {
  // Computations after the callee are rules the transforms use (custom_jvp,
  // custom_vjp: transforms/custom_rules.h); running the call ignores them.
  if (called.empty() || called[0] == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("call: expected one callee computation, got ", called.size()));
  }
  const Computation& callee = *called[0];
  const std::vector<Instruction*>& params = callee.parameters();
  bool ok = params.size() == operands.size();
  for (size_t i = 0; ok && i < params.size(); ++i) {
    ok = params[i] != nullptr && params[i]->shape() == *operands[i];
  }
  if (!ok) {
    std::vector<const Shape*> want;
    for (const Instruction* p : params) {
      if (p != nullptr) want.push_back(&p->shape());
    }
    return absl::InvalidArgumentError(absl::StrCat("call: operands (", ShapesToString(operands),
                                                   ") do not match the parameters (",
                                                   ShapesToString(want), ") of ", callee.name()));
  }
  const std::vector<Instruction*>& results = callee.results();
  for (const Instruction* r : results) {
    if (r == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("call: callee ", callee.name(), " has a null result"));
    }
  }
  if (results.size() == 1) return results[0]->shape();
  std::vector<Shape> parts;
  for (const Instruction* r : results) parts.push_back(r->shape());
  return Shape::Tuple(std::move(parts));
}

}  // namespace shape_inference
}  // namespace xjit
