// dot_general and reduce: ops that remove dims. Reduce also checks its body
// region against the inputs and init values.
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit {
namespace shape_inference {

absl::StatusOr<Shape> InferDotGeneral(const Shape& lhs, const Shape& rhs,
                                      const DotGeneralAttrs& attrs) {
  const DotDimensionNumbers& dn = attrs.dot_dimension_numbers;
  if (lhs.dtype != rhs.dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat("dot_general: operands must have the same element type, got ", lhs.ToString(),
                     " and ", rhs.ToString()));
  }
  if (dn.lhs_batching_dimensions.size() != dn.rhs_batching_dimensions.size() ||
      dn.lhs_contracting_dimensions.size() != dn.rhs_contracting_dimensions.size()) {
    return absl::OutOfRangeError(absl::StrCat(
        "dot_general: lhs and rhs need as many batching and contracting dimensions, got batching ",
        DimsToString(dn.lhs_batching_dimensions), " vs ", DimsToString(dn.rhs_batching_dimensions),
        ", contracting ", DimsToString(dn.lhs_contracting_dimensions), " vs ",
        DimsToString(dn.rhs_contracting_dimensions)));
  }
  // Batching and contracting dims of one side together must be unique.
  auto check_side = [](const char* side, const Shape& s, const std::vector<int64_t>& batch,
                       const std::vector<int64_t>& contract) -> absl::Status {
    std::vector<int64_t> all = batch;
    all.insert(all.end(), contract.begin(), contract.end());
    return CheckAxes(Opcode::kDotGeneral,
                     absl::StrCat(side, " batching+contracting dimensions of ", s.ToString()), all,
                     s.rank());
  };
  if (absl::Status s =
          check_side("lhs", lhs, dn.lhs_batching_dimensions, dn.lhs_contracting_dimensions);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          check_side("rhs", rhs, dn.rhs_batching_dimensions, dn.rhs_contracting_dimensions);
      !s.ok()) {
    return s;
  }
  auto check_pairs = [&](const char* what, const std::vector<int64_t>& l,
                         const std::vector<int64_t>& r) -> absl::Status {
    for (size_t i = 0; i < l.size(); ++i) {
      if (lhs.dims[l[i]] != rhs.dims[r[i]]) {
        return absl::InvalidArgumentError(
            absl::StrCat("dot_general: ", what, " dimension sizes differ: lhs ", lhs.ToString(),
                         " dim ", l[i], " vs rhs ", rhs.ToString(), " dim ", r[i]));
      }
    }
    return absl::OkStatus();
  };
  if (absl::Status s =
          check_pairs("batching", dn.lhs_batching_dimensions, dn.rhs_batching_dimensions);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          check_pairs("contracting", dn.lhs_contracting_dimensions, dn.rhs_contracting_dimensions);
      !s.ok()) {
    return s;
  }
  Shape r(lhs.dtype, {});
  for (int64_t d : dn.lhs_batching_dimensions) r.dims.push_back(lhs.dims[d]);
  for (int64_t d : dn.LhsFreeDimensions(lhs.rank())) r.dims.push_back(lhs.dims[d]);
  for (int64_t d : dn.RhsFreeDimensions(rhs.rank())) r.dims.push_back(rhs.dims[d]);
  return r;
}

absl::StatusOr<Shape> InferReduce(Operands operands, const ReduceAttrs& attrs, Called called) {
  if (operands.empty() || operands.size() % 2 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("reduce: expected N inputs followed by N init values, got ", operands.size(),
                     " operand(s)"));
  }
  size_t n = operands.size() / 2;
  Operands inputs = operands.subspan(0, n), inits = operands.subspan(n);
  for (size_t i = 0; i < n; ++i) {
    if (inputs[i]->dims != inputs[0]->dims) {
      return absl::InvalidArgumentError(
          absl::StrCat("reduce: inputs must have the same dims, got ", ShapesToString(inputs)));
    }
    if (inits[i]->rank() != 0 || inits[i]->dtype != inputs[i]->dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "reduce: init value ", i, " must be a scalar with the element type of input ",
          inputs[i]->ToString(), ", got ", inits[i]->ToString()));
    }
  }
  const Shape& in = *inputs[0];
  if (absl::Status s = CheckAxes(Opcode::kReduce, "dimensions", attrs.dimensions, in.rank());
      !s.ok()) {
    return s;
  }
  if (called.size() != 1 || called[0] == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("reduce: expected one body computation, got ", called.size()));
  }
  // Body: (acc_0..acc_{N-1}, x_0..x_{N-1}) -> (acc_0..acc_{N-1}), all scalars of
  // the init types (the spec's order; see docs/semantics.md).
  const Computation& body = *called[0];
  std::vector<Shape> want_params;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < n; ++i) want_params.push_back(*inits[i]);
  }
  std::vector<Shape> got_params;
  for (const Instruction* p : body.parameters()) {
    if (p == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("reduce: body ", body.name(), " has a gap in its parameter numbers"));
    }
    got_params.push_back(p->shape());
  }
  std::vector<Shape> got_results;
  for (const Instruction* r : body.results()) {
    if (r == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("reduce: body ", body.name(), " has a null result"));
    }
    got_results.push_back(r->shape());
  }
  std::vector<Shape> want_results(want_params.begin(), want_params.begin() + n);
  if (got_params != want_params || got_results != want_results) {
    std::vector<const Shape*> gp, gr, wp;
    for (const Shape& s : got_params) gp.push_back(&s);
    for (const Shape& s : got_results) gr.push_back(&s);
    for (const Shape& s : want_params) wp.push_back(&s);
    return absl::InvalidArgumentError(absl::StrCat(
        "reduce: body ", body.name(), " must have type (", ShapesToString(wp), ") -> (",
        ShapesToString(inits), "), got (", ShapesToString(gp), ") -> (", ShapesToString(gr), ")"));
  }
  absl::flat_hash_set<int64_t> reduced(attrs.dimensions.begin(), attrs.dimensions.end());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (!reduced.contains(d)) dims.push_back(in.dims[d]);
  }
  if (n == 1) return Shape(got_results[0].dtype, dims);
  std::vector<Shape> parts;
  for (const Shape& s : got_results) parts.push_back(Shape(s.dtype, dims));
  return Shape::Tuple(std::move(parts));
}

}  // namespace shape_inference
}  // namespace xjit
