// sort and map: ops whose region is applied to scalars taken from every input
// at once (sort's comparator to two positions, map's computation to one).
#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit {
namespace shape_inference {
namespace {

// The region's parameter and result types, or an error naming `op` when a
// parameter number is missing or a result is null.
absl::Status RegionTypes(absl::string_view op, absl::string_view role, const Computation& region,
                         std::vector<Shape>& params, std::vector<Shape>& results) {
  for (const Instruction* p : region.parameters()) {
    if (p == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": ", role, " ", region.name(),
                                                     " has a gap in its parameter numbers"));
    }
    params.push_back(p->shape());
  }
  for (const Instruction* r : region.results()) {
    if (r == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": ", role, " ", region.name(), " has a null result"));
    }
    results.push_back(r->shape());
  }
  return absl::OkStatus();
}

std::string TypesToString(const std::vector<Shape>& shapes) {
  std::vector<const Shape*> ptrs;
  for (const Shape& s : shapes) ptrs.push_back(&s);
  return ShapesToString(ptrs);
}

absl::Status CheckSameDims(absl::string_view op, Operands inputs) {
  for (const Shape* s : inputs) {
    if (s->dims != inputs[0]->dims) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": inputs must have the same shape, got ", ShapesToString(inputs)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferSort(Operands inputs, const SortAttrs& attrs, Called called) {
  if (inputs.empty()) {  // C1
    return absl::InvalidArgumentError("sort: expected at least one input");
  }
  if (absl::Status s = CheckSameDims("sort", inputs); !s.ok()) return s;  // C3
  const int64_t rank = inputs[0]->rank();
  if (attrs.dimension < -rank || attrs.dimension >= rank) {  // C4
    return absl::OutOfRangeError(absl::StrCat("sort: dimension ", attrs.dimension,
                                              " is out of range [", -rank, ", ", rank,
                                              ") for inputs of rank ", rank));
  }
  if (called.size() != 1 || called[0] == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("sort: expected one comparator region, got ", called.size()));
  }
  // C5: (tensor<E0>, tensor<E0>, ..., tensor<EN-1>, tensor<EN-1>) -> tensor<i1>.
  std::vector<Shape> want_params, got_params, got_results;
  for (const Shape* s : inputs) {
    want_params.push_back(Shape(s->dtype, {}));
    want_params.push_back(Shape(s->dtype, {}));
  }
  const Computation& cmp = *called[0];
  if (absl::Status s = RegionTypes("sort", "comparator", cmp, got_params, got_results); !s.ok()) {
    return s;
  }
  const std::vector<Shape> want_results = {Shape(DType::kPred, {})};
  if (got_params != want_params || got_results != want_results) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sort: comparator ", cmp.name(), " must have type (", TypesToString(want_params),
        ") -> tensor<i1>, got (", TypesToString(got_params), ") -> (",
        TypesToString(got_results), ")"));
  }
  // C2: the results have the inputs' types; one input gives one array.
  if (inputs.size() == 1) return *inputs[0];
  std::vector<Shape> parts;
  for (const Shape* s : inputs) parts.push_back(*s);
  return Shape::Tuple(std::move(parts));
}

absl::StatusOr<Shape> InferMap(Operands inputs, const MapAttrs& attrs, Called called) {
  if (inputs.empty()) {  // C2
    return absl::InvalidArgumentError("map: expected at least one input");
  }
  if (absl::Status s = CheckSameDims("map", inputs); !s.ok()) return s;  // C1
  const int64_t rank = inputs[0]->rank();
  bool identity = static_cast<int64_t>(attrs.dimensions.size()) == rank;
  for (size_t i = 0; identity && i < attrs.dimensions.size(); ++i) {
    identity = attrs.dimensions[i] == static_cast<int64_t>(i);
  }
  if (!identity) {  // C3
    std::vector<int64_t> want;
    for (int64_t d = 0; d < rank; ++d) want.push_back(d);
    return absl::OutOfRangeError(absl::StrCat("map: dimensions must be ", DimsToString(want),
                                              " (every dimension of the rank-", rank,
                                              " inputs, in order), got ",
                                              DimsToString(attrs.dimensions)));
  }
  if (called.size() != 1 || called[0] == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("map: expected one computation region, got ", called.size()));
  }
  // C4: (tensor<E0>, ..., tensor<EN-1>) -> tensor<E'>.
  std::vector<Shape> want_params, got_params, got_results;
  for (const Shape* s : inputs) want_params.push_back(Shape(s->dtype, {}));
  const Computation& fn = *called[0];
  if (absl::Status s = RegionTypes("map", "computation", fn, got_params, got_results); !s.ok()) {
    return s;
  }
  bool one_scalar = got_results.size() == 1 && !got_results[0].is_tuple &&
                    got_results[0].rank() == 0;
  if (got_params != want_params || !one_scalar) {
    return absl::InvalidArgumentError(absl::StrCat(
        "map: computation ", fn.name(), " must take (", TypesToString(want_params),
        ") and return one scalar, got (", TypesToString(got_params), ") -> (",
        TypesToString(got_results), ")"));
  }
  return Shape(got_results[0].dtype, inputs[0]->dims);
}

}  // namespace shape_inference
}  // namespace xjit
