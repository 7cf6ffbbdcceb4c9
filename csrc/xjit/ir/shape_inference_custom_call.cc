// Shape rule of custom_call: the caller declares the results; the operands
// are arrays, and layouts, when given, are permutations of their dimensions.
#include "absl/strings/str_cat.h"
#include "xjit/ir/custom_call_config.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit::shape_inference {

absl::StatusOr<Shape> InferCustomCall(Operands operands, const CustomCallAttrs& attrs,
                                      const Shape* declared) {
  if (attrs.call_target_name.empty()) {
    return absl::InvalidArgumentError("custom_call: call_target_name must not be empty");
  }
  if (absl::Status s = CheckArrays(Opcode::kCustomCall, operands); !s.ok()) return s;
  if (declared == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "custom_call @", attrs.call_target_name, ": missing the result types"));
  }
  std::vector<Shape> results;
  if (declared->is_tuple) {
    for (const Shape& s : declared->tuple_shapes) {
      if (s.is_tuple) {
        return absl::InvalidArgumentError(absl::StrCat(
            "custom_call @", attrs.call_target_name, ": results must be arrays, got ",
            declared->ToString()));
      }
      results.push_back(s);
    }
  } else {
    results.push_back(*declared);
  }
  std::vector<Shape> operand_shapes;
  for (const Shape* s : operands) operand_shapes.push_back(*s);
  if (absl::StatusOr<std::vector<std::vector<int64_t>>> l =
          ParseCustomCallLayouts(attrs.operand_layouts, operand_shapes, "operand_layouts");
      !l.ok()) {
    return l.status();
  }
  if (absl::StatusOr<std::vector<std::vector<int64_t>>> l =
          ParseCustomCallLayouts(attrs.result_layouts, results, "result_layouts");
      !l.ok()) {
    return l.status();
  }
  if (absl::StatusOr<CustomCallConfig> c = CustomCallConfig::FromAttrs(attrs); !c.ok()) {
    return c.status();
  }
  return *declared;
}

}  // namespace xjit::shape_inference
