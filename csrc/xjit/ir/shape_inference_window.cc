// convolution, reduce_window and select_and_scatter: the spec's constraints
// (C-numbers in the comments are the spec's) and the window arithmetic of
// ir/window_attrs.h.
#include <algorithm>
#include <cstdlib>
#include <optional>

#include "absl/strings/str_cat.h"
#include "xjit/ir/checked_math.h"
#include "xjit/ir/shape_inference_internal.h"
#include "xjit/ir/window_attrs.h"

namespace xjit {
namespace shape_inference {
namespace {

absl::Status Invalid(absl::string_view op, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(op, ": ", what));
}

// size(v) = n and every element > 0.
absl::Status CheckPositiveList(absl::string_view op, absl::string_view name,
                               const std::vector<int64_t>& v, int64_t n) {
  if (static_cast<int64_t>(v.size()) != n) {
    return Invalid(op, absl::StrCat(name, " must have ", n, " elements, got ", DimsToString(v)));
  }
  for (int64_t x : v) {
    if (x <= 0) return Invalid(op, absl::StrCat(name, " must be positive, got ", DimsToString(v)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> CheckPadding(absl::string_view op,
                                                                      const Literal& padding,
                                                                      int64_t n) {
  auto pairs = PaddingPairs(padding, n);
  if (!pairs.ok()) return Invalid(op, pairs.status().message());
  return pairs;
}

// [batch] + spatial + [feature] unique and in [0, rank).
absl::Status CheckLayout(absl::string_view op, absl::string_view what, int64_t a, int64_t b,
                         const std::vector<int64_t>& spatial, int64_t rank,
                         absl::string_view names) {
  std::vector<int64_t> all = {a};
  all.insert(all.end(), spatial.begin(), spatial.end());
  all.push_back(b);
  std::vector<bool> seen(std::max<int64_t>(rank, 0), false);
  for (int64_t d : all) {
    if (d < 0 || d >= rank || seen[d]) {
      return Invalid(op, absl::StrCat(what, " dimensions (", names, ") must be unique and in [0, ",
                                      rank, "), got ", DimsToString(all)));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

std::string RegionType(const Computation& c) {
  std::vector<std::string> params, results;
  std::vector<const Shape*> p, r;
  for (const Instruction* i : c.parameters()) {
    if (i != nullptr) p.push_back(&i->shape());
  }
  for (const Instruction* i : c.results()) {
    if (i != nullptr) r.push_back(&i->shape());
  }
  return absl::StrCat("(", ShapesToString(p), ") -> (", ShapesToString(r), ")");
}

// The region's parameter and result shapes are exactly `params` -> `results`.
absl::Status CheckRegion(absl::string_view op, absl::string_view role, const Computation* c,
                         const std::vector<Shape>& params, const std::vector<Shape>& results) {
  if (c == nullptr) return Invalid(op, absl::StrCat("missing ", role, " region"));
  bool ok = c->parameters().size() == params.size() && c->results().size() == results.size();
  for (size_t i = 0; ok && i < params.size(); ++i) {
    ok = c->parameters()[i] != nullptr && c->parameters()[i]->shape() == params[i];
  }
  for (size_t i = 0; ok && i < results.size(); ++i) {
    ok = c->results()[i] != nullptr && c->results()[i]->shape() == results[i];
  }
  if (ok) return absl::OkStatus();
  std::vector<const Shape*> p, r;
  for (const Shape& s : params) p.push_back(&s);
  for (const Shape& s : results) r.push_back(&s);
  return Invalid(op, absl::StrCat(role, " ", c->name(), " must have type (", ShapesToString(p),
                                  ") -> (", ShapesToString(r), "), got ", RegionType(*c)));
}

// The window arithmetic (dilated and padded sizes) fits in int64, so the
// kernels' index computations cannot overflow.
absl::Status CheckWindowArithmetic(absl::string_view op, const std::vector<int64_t>& base,
                                   const std::vector<WindowDimension>& window) {
  for (size_t i = 0; i < window.size(); ++i) {
    const WindowDimension& w = window[i];
    std::optional<int64_t> dilated_base = CheckedMul(std::max<int64_t>(base[i] - 1, 0),
                                                     w.base_dilation);
    std::optional<int64_t> dilated_window = CheckedMul(std::max<int64_t>(w.size - 1, 0),
                                                       w.window_dilation);
    std::optional<int64_t> padded;
    if (dilated_base) padded = CheckedAdd(*dilated_base, 1);
    if (padded) padded = CheckedAdd(*padded, w.padding_low);
    if (padded) padded = CheckedAdd(*padded, w.padding_high);
    // BaseIndex computes w * stride + k * window_dilation - padding_low.
    std::optional<int64_t> reach;
    if (w.padding_low == INT64_MIN || w.padding_high == INT64_MIN) padded.reset();
    if (padded && dilated_window) reach = CheckedAdd(std::max<int64_t>(*padded, 0), *dilated_window);
    if (reach) reach = CheckedAdd(*reach, std::abs(w.padding_low));
    if (reach) reach = CheckedAdd(*reach, w.stride);
    if (!padded || !reach) {
      return Invalid(op, absl::StrCat("the window of dimension ", i,
                                      " (dilations, padding, strides) overflows int64"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferConvolution(const Shape& lhs, const Shape& rhs,
                                       const ConvolutionAttrs& a) {
  constexpr absl::string_view op = "convolution";
  const ConvDimensionNumbers& d = a.dimension_numbers;
  const int64_t n = lhs.rank();
  if (rhs.rank() != n) {  // C1
    return Invalid(op, absl::StrCat("lhs and rhs must have the same rank, got ", lhs.ToString(),
                                    " and ", rhs.ToString()));
  }
  if (n < 2) return Invalid(op, absl::StrCat("operands must have rank >= 2, got ", lhs.ToString()));
  if (lhs.dtype != rhs.dtype) {
    return Invalid(op, absl::StrCat("lhs and rhs must have the same element type, got ",
                                    lhs.ToString(), " and ", rhs.ToString()));
  }
  const int64_t s = n - 2;
  if (static_cast<int64_t>(d.input_spatial_dimensions.size()) != s) {  // C12
    return Invalid(op, absl::StrCat("input_spatial_dimensions must have ", s, " elements, got ",
                                    DimsToString(d.input_spatial_dimensions)));
  }
  if (static_cast<int64_t>(d.kernel_spatial_dimensions.size()) != s) {  // C17
    return Invalid(op, absl::StrCat("kernel_spatial_dimensions must have ", s, " elements, got ",
                                    DimsToString(d.kernel_spatial_dimensions)));
  }
  if (static_cast<int64_t>(d.output_spatial_dimensions.size()) != s) {  // C19
    return Invalid(op, absl::StrCat("output_spatial_dimensions must have ", s, " elements, got ",
                                    DimsToString(d.output_spatial_dimensions)));
  }
  if (absl::Status st = CheckLayout(op, "input", d.input_batch_dimension, d.input_feature_dimension,
                                    d.input_spatial_dimensions, n, "batch, spatial..., feature");
      !st.ok()) {
    return st;  // C13
  }
  if (absl::Status st = CheckLayout(op, "kernel", d.kernel_input_feature_dimension,
                                    d.kernel_output_feature_dimension, d.kernel_spatial_dimensions,
                                    n, "input feature, spatial..., output feature");
      !st.ok()) {
    return st;  // C18
  }
  if (absl::Status st = CheckLayout(op, "output", d.output_batch_dimension,
                                    d.output_feature_dimension, d.output_spatial_dimensions, n,
                                    "batch, spatial..., feature");
      !st.ok()) {
    return st;  // C20
  }
  if (absl::Status st = CheckPositiveList(op, "window_strides", a.window_strides, s); !st.ok()) {
    return st;  // C2, C3
  }
  auto pads = CheckPadding(op, a.padding, s);  // C4
  if (!pads.ok()) return pads.status();
  if (absl::Status st = CheckPositiveList(op, "lhs_dilation", a.lhs_dilation, s); !st.ok()) {
    return st;  // C5, C6
  }
  if (absl::Status st = CheckPositiveList(op, "rhs_dilation", a.rhs_dilation, s); !st.ok()) {
    return st;  // C7, C8
  }
  if (static_cast<int64_t>(a.window_reversal.size()) != s) {  // C9
    return Invalid(op, absl::StrCat("window_reversal must have ", s, " elements, got ",
                                    DimsToString(a.window_reversal)));
  }
  for (int64_t r : a.window_reversal) {
    if (r != 0 && r != 1) {
      return Invalid(op, absl::StrCat("window_reversal must hold booleans, got ",
                                      DimsToString(a.window_reversal)));
    }
  }
  const int64_t fgc = a.feature_group_count, bgc = a.batch_group_count;
  if (fgc <= 0) {  // C21
    return Invalid(op, absl::StrCat("feature_group_count must be positive, got ", fgc));
  }
  if (bgc <= 0) {  // C22
    return Invalid(op, absl::StrCat("batch_group_count must be positive, got ", bgc));
  }
  if (fgc != 1 && bgc != 1) {  // C23
    return Invalid(op, absl::StrCat("feature_group_count and batch_group_count cannot both exceed "
                                    "1, got ", fgc, " and ", bgc));
  }
  const int64_t batch = lhs.dims[d.input_batch_dimension];
  const int64_t in_features = lhs.dims[d.input_feature_dimension];
  const int64_t kernel_in = rhs.dims[d.kernel_input_feature_dimension];
  const int64_t kernel_out = rhs.dims[d.kernel_output_feature_dimension];
  if (batch % bgc != 0) {  // C10
    return Invalid(op, absl::StrCat("the input batch dimension (size ", batch,
                                    ") must be divisible by batch_group_count ", bgc));
  }
  if (in_features % fgc != 0) {  // C11
    return Invalid(op, absl::StrCat("the input feature dimension (size ", in_features,
                                    ") must be divisible by feature_group_count ", fgc));
  }
  if (kernel_in != in_features / fgc) {  // C14
    return Invalid(op, absl::StrCat("the kernel input feature dimension (size ", kernel_in,
                                    ") must be the input feature dimension (size ", in_features,
                                    ") / feature_group_count ", fgc));
  }
  if (kernel_out % bgc != 0) {  // C15
    return Invalid(op, absl::StrCat("the kernel output feature dimension (size ", kernel_out,
                                    ") must be divisible by batch_group_count ", bgc));
  }
  if (kernel_out % fgc != 0) {  // C16
    return Invalid(op, absl::StrCat("the kernel output feature dimension (size ", kernel_out,
                                    ") must be divisible by feature_group_count ", fgc));
  }
  // C25, C26
  std::vector<WindowDimension> window = ConvolutionWindow(a, rhs);
  std::vector<int64_t> in_spatial;
  for (int64_t i = 0; i < s; ++i) in_spatial.push_back(lhs.dims[d.input_spatial_dimensions[i]]);
  if (absl::Status st = CheckWindowArithmetic(op, in_spatial, window); !st.ok()) return st;
  Shape result(lhs.dtype, std::vector<int64_t>(n, 0));
  result.dims[d.output_batch_dimension] = batch / bgc;
  result.dims[d.output_feature_dimension] = kernel_out;
  for (int64_t i = 0; i < s; ++i) {
    result.dims[d.output_spatial_dimensions[i]] =
        window[i].NumWindows(lhs.dims[d.input_spatial_dimensions[i]]);
  }
  return result;
}

absl::StatusOr<Shape> InferReduceWindow(Operands operands, const ReduceWindowAttrs& a,
                                        Called called) {
  constexpr absl::string_view op = "reduce_window";
  if (operands.empty() || operands.size() % 2 != 0) {  // C1
    return Invalid(op, absl::StrCat("expected N > 0 inputs followed by N init values, got ",
                                    operands.size(), " operand(s)"));
  }
  const size_t n = operands.size() / 2;
  Operands inputs = operands.subspan(0, n), inits = operands.subspan(n);
  for (size_t i = 0; i < n; ++i) {
    if (inputs[i]->dims != inputs[0]->dims) {  // C2
      return Invalid(op, absl::StrCat("inputs must have the same shape, got ",
                                      ShapesToString(inputs)));
    }
    if (inits[i]->rank() != 0 || inits[i]->dtype != inputs[i]->dtype) {  // C3
      return Invalid(op, absl::StrCat("init value ", i,
                                      " must be a scalar of the element type of input ", i, " (",
                                      inputs[i]->ToString(), "), got ", inits[i]->ToString()));
    }
  }
  const int64_t rank = inputs[0]->rank();
  if (absl::Status st = CheckPositiveList(op, "window_dimensions", a.window_dimensions, rank);
      !st.ok()) {
    return st;  // C4, C5
  }
  if (absl::Status st = CheckPositiveList(op, "window_strides", a.window_strides, rank); !st.ok()) {
    return st;  // C6, C7
  }
  if (absl::Status st = CheckPositiveList(op, "base_dilations", a.base_dilations, rank); !st.ok()) {
    return st;  // C8, C9
  }
  if (absl::Status st = CheckPositiveList(op, "window_dilations", a.window_dilations, rank);
      !st.ok()) {
    return st;  // C10, C11
  }
  auto pads = CheckPadding(op, a.padding, rank);  // C12
  if (!pads.ok()) return pads.status();
  if (called.size() != 1) {
    return Invalid(op, absl::StrCat("expected one body region, got ", called.size()));
  }
  std::vector<Shape> params, results;  // C13
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < n; ++i) params.push_back(Shape(inputs[i]->dtype, {}));
  }
  for (size_t i = 0; i < n; ++i) results.push_back(Shape(inputs[i]->dtype, {}));
  if (absl::Status st = CheckRegion(op, "body", called[0], params, results); !st.ok()) return st;
  std::vector<WindowDimension> window = ReduceWindowWindow(a);  // C14-C16
  if (absl::Status st = CheckWindowArithmetic(op, inputs[0]->dims, window); !st.ok()) return st;
  std::vector<int64_t> dims(rank);
  for (int64_t i = 0; i < rank; ++i) dims[i] = window[i].NumWindows(inputs[0]->dims[i]);
  if (n == 1) return Shape(inputs[0]->dtype, dims);
  std::vector<Shape> parts;
  for (size_t i = 0; i < n; ++i) parts.push_back(Shape(inputs[i]->dtype, dims));
  return Shape::Tuple(std::move(parts));
}

absl::StatusOr<Shape> InferSelectAndScatter(const Shape& operand, const Shape& source,
                                            const Shape& init_value,
                                            const SelectAndScatterAttrs& a, Called called) {
  constexpr absl::string_view op = "select_and_scatter";
  if (source.dtype != operand.dtype) {  // C1
    return Invalid(op, absl::StrCat("source must have the operand's element type, got ",
                                    operand.ToString(), " and ", source.ToString()));
  }
  if (init_value.rank() != 0 || init_value.dtype != operand.dtype) {  // C3
    return Invalid(op, absl::StrCat("init_value must be a scalar of the operand's element type, "
                                    "got ", init_value.ToString(), " for ", operand.ToString()));
  }
  const int64_t rank = operand.rank();
  if (absl::Status st = CheckPositiveList(op, "window_dimensions", a.window_dimensions, rank);
      !st.ok()) {
    return st;  // C4, C5
  }
  if (absl::Status st = CheckPositiveList(op, "window_strides", a.window_strides, rank); !st.ok()) {
    return st;  // C6, C7
  }
  auto pads = CheckPadding(op, a.padding, rank);  // C8
  if (!pads.ok()) return pads.status();
  std::vector<WindowDimension> window = SelectAndScatterWindow(a);  // C2
  if (absl::Status st = CheckWindowArithmetic(op, operand.dims, window); !st.ok()) return st;
  std::vector<int64_t> want(rank);
  for (int64_t i = 0; i < rank; ++i) want[i] = window[i].NumWindows(operand.dims[i]);
  if (source.dims != want) {
    return Invalid(op, absl::StrCat("source must have the shape of the windows, ",
                                    Shape(source.dtype, want).ToString(), ", got ",
                                    source.ToString()));
  }
  if (called.size() != 2) {
    return Invalid(op, absl::StrCat("expected select and scatter regions, got ", called.size()));
  }
  const Shape e(operand.dtype, {});
  if (absl::Status st = CheckRegion(op, "select", called[0], {e, e}, {Shape(DType::kPred, {})});
      !st.ok()) {
    return st;  // C9
  }
  if (absl::Status st = CheckRegion(op, "scatter", called[1], {e, e}, {e}); !st.ok()) {
    return st;  // C10
  }
  return operand;  // C11, C12
}

}  // namespace shape_inference
}  // namespace xjit
