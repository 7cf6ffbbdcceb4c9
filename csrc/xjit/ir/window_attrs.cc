#include "xjit/ir/window_attrs.h"

#include <string>
#include <type_traits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit {
namespace {

// "[b, 0, 1, f]" for one operand: `major`/`minor` name the two non-spatial
// dimensions (b/f, i/o, b/f).
std::string LayoutText(int64_t rank, char major_letter, int64_t major, char minor_letter,
                       int64_t minor, const std::vector<int64_t>& spatial) {
  std::vector<std::string> parts(rank, "?");
  if (major >= 0 && major < rank) parts[major] = std::string(1, major_letter);
  if (minor >= 0 && minor < rank) parts[minor] = std::string(1, minor_letter);
  for (size_t s = 0; s < spatial.size(); ++s) {
    if (spatial[s] >= 0 && spatial[s] < rank) parts[spatial[s]] = absl::StrCat(s);
  }
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

absl::Status LayoutError(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("#stablehlo.conv<", text, ">: ", why,
                   " (expected the form [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f])"));
}

// Reads "[b, 0, 1, f]" into (major, minor, spatial).
absl::Status ParseLayout(absl::string_view whole, absl::string_view part, char major_letter,
                         char minor_letter, int64_t& major, int64_t& minor,
                         std::vector<int64_t>& spatial) {
  part = absl::StripAsciiWhitespace(part);
  if (part.size() < 2 || part.front() != '[' || part.back() != ']') {
    return LayoutError(whole, absl::StrCat("'", part, "' is not a bracketed list"));
  }
  std::vector<std::string> items = absl::StrSplit(part.substr(1, part.size() - 2), ',');
  major = minor = -1;
  std::vector<int64_t> by_number(items.size(), -1);
  int64_t count = 0;
  for (size_t pos = 0; pos < items.size(); ++pos) {
    std::string item(absl::StripAsciiWhitespace(items[pos]));
    int64_t n = 0;
    if (item.size() == 1 && item[0] == major_letter && major < 0) {
      major = pos;
    } else if (item.size() == 1 && item[0] == minor_letter && minor < 0) {
      minor = pos;
    } else if (absl::SimpleAtoi(item, &n) && n >= 0 && n < static_cast<int64_t>(items.size()) &&
               by_number[n] < 0) {
      by_number[n] = pos;
      ++count;
    } else {
      return LayoutError(whole, absl::StrCat("unexpected or repeated dimension '", item, "' in ",
                                             part));
    }
  }
  if (major < 0 || minor < 0) {
    return LayoutError(whole, absl::StrCat(part, " must name '", std::string(1, major_letter),
                                           "' and '", std::string(1, minor_letter), "'"));
  }
  spatial.clear();
  for (int64_t s = 0; s < count; ++s) {
    if (by_number[s] < 0) {
      return LayoutError(whole, absl::StrCat("spatial dimensions of ", part,
                                             " must be numbered 0..", count - 1));
    }
    spatial.push_back(by_number[s]);
  }
  return absl::OkStatus();
}

}  // namespace

std::string ConvDimensionNumbers::ToText() const {
  const int64_t n = static_cast<int64_t>(input_spatial_dimensions.size()) + 2;
  const int64_t k = static_cast<int64_t>(kernel_spatial_dimensions.size()) + 2;
  const int64_t o = static_cast<int64_t>(output_spatial_dimensions.size()) + 2;
  std::string compact = absl::StrCat(
      LayoutText(n, 'b', input_batch_dimension, 'f', input_feature_dimension,
                 input_spatial_dimensions),
      "x",
      LayoutText(k, 'i', kernel_input_feature_dimension, 'o', kernel_output_feature_dimension,
                 kernel_spatial_dimensions),
      "->",
      LayoutText(o, 'b', output_batch_dimension, 'f', output_feature_dimension,
                 output_spatial_dimensions));
  if (compact.find('?') == std::string::npos) return compact;
  // Numbers the compact form cannot spell (a dimension named twice, as in the
  // spec's dynamic_conv example): the raw form, which FromText reads back.
  std::vector<std::string> fields;
  ForEachField<ConvDimensionNumbers>([&](const auto& field) {
    const auto& value = this->*field.member;
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, int64_t>) {
      fields.push_back(absl::StrCat(field.name, " = ", value));
    } else {
      fields.push_back(absl::StrCat(field.name, " = [", absl::StrJoin(value, ", "), "]"));
    }
  });
  return absl::StrCat("raw ", absl::StrJoin(fields, ", "));
}

namespace {

// issue 11 (h-fft): the spec's other spelling, #stablehlo.conv<raw
// input_batch_dimension = 0, input_spatial_dimensions = [0, 1], ...> (its
// dynamic_conv example), every field given as `name = int` or `name = [ints]`.
absl::StatusOr<ConvDimensionNumbers> FromRawText(absl::string_view text,
                                                 absl::string_view fields) {
  ConvDimensionNumbers d;
  std::vector<bool> seen(9, false);
  while (true) {
    fields = absl::StripLeadingAsciiWhitespace(fields);
    if (fields.empty()) break;
    size_t eq = fields.find('=');
    if (eq == absl::string_view::npos) return LayoutError(text, "expected 'name = value'");
    std::string name(absl::StripAsciiWhitespace(fields.substr(0, eq)));
    fields = absl::StripLeadingAsciiWhitespace(fields.substr(eq + 1));
    std::vector<int64_t> values;
    bool list = !fields.empty() && fields[0] == '[';
    size_t end = list ? fields.find(']') : fields.find(',');
    if (list && end == absl::string_view::npos) return LayoutError(text, "missing ']'");
    absl::string_view value = list ? fields.substr(1, end - 1) : fields.substr(0, end);
    for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
      int64_t v;
      if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(item), &v)) {
        return LayoutError(text, absl::StrCat("'", item, "' is not an integer"));
      }
      values.push_back(v);
    }
    if (list) {
      fields = fields.substr(end + 1);
      fields = absl::StripLeadingAsciiWhitespace(fields);
      if (!fields.empty() && fields[0] == ',') fields = fields.substr(1);
    } else {
      fields = end == absl::string_view::npos ? absl::string_view() : fields.substr(end + 1);
    }
    int index = 0;
    bool found = false;
    ForEachField<ConvDimensionNumbers>([&](const auto& field) {
      using M = typename std::decay_t<decltype(field)>::Member;
      if (name == field.name) {
        found = true;
        seen[index] = true;
        if constexpr (std::is_same_v<M, int64_t>) {
          d.*field.member = values.size() == 1 ? values[0] : -1;
        } else {
          d.*field.member = values;
        }
      }
      ++index;
    });
    if (!found) return LayoutError(text, absl::StrCat("unknown field '", name, "'"));
  }
  for (bool s : seen) {
    if (!s) return LayoutError(text, "the raw form needs all nine fields");
  }
  return d;
}

}  // namespace

absl::StatusOr<ConvDimensionNumbers> ConvDimensionNumbers::FromText(absl::string_view text) {
  if (absl::string_view t = absl::StripLeadingAsciiWhitespace(text); absl::StartsWith(t, "raw")) {
    return FromRawText(text, t.substr(3));
  }
  size_t arrow = text.find("->");
  if (arrow == absl::string_view::npos) return LayoutError(text, "missing '->'");
  absl::string_view lhs_rhs = text.substr(0, arrow);
  size_t close = lhs_rhs.find(']');
  size_t x = close == absl::string_view::npos ? close : lhs_rhs.find('x', close);
  if (x == absl::string_view::npos) return LayoutError(text, "missing 'x' between the operands");
  ConvDimensionNumbers d;
  if (absl::Status s = ParseLayout(text, lhs_rhs.substr(0, x), 'b', 'f', d.input_batch_dimension,
                                   d.input_feature_dimension, d.input_spatial_dimensions);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ParseLayout(text, lhs_rhs.substr(x + 1), 'i', 'o',
                                   d.kernel_input_feature_dimension,
                                   d.kernel_output_feature_dimension, d.kernel_spatial_dimensions);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ParseLayout(text, text.substr(arrow + 2), 'b', 'f',
                                   d.output_batch_dimension, d.output_feature_dimension,
                                   d.output_spatial_dimensions);
      !s.ok()) {
    return s;
  }
  return d;
}

int64_t WindowDimension::NumWindows(int64_t base) const {
  const int64_t padded = padding_low + Dilated(base, base_dilation) + padding_high;
  const int64_t window = Dilated(size, window_dilation);
  if (padded <= 0 || window > padded) return 0;
  return (padded - window) / stride + 1;
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> PaddingPairs(const Literal& padding,
                                                                     int64_t n) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  if (padding == Literal()) {
    pairs.assign(n, {0, 0});
    return pairs;
  }
  const Shape& s = padding.shape();
  if (!IsInteger(s.dtype) || s.dims != std::vector<int64_t>{n, 2}) {
    return absl::InvalidArgumentError(absl::StrCat(
        "padding must be an integer tensor of shape [", n, ", 2], got ", s.ToString()));
  }
  std::vector<int64_t> flat;
  DispatchDType(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < 2 * n; ++i) flat.push_back(static_cast<int64_t>(padding.data_as<T>()[i]));
    }
  });
  for (int64_t i = 0; i < n; ++i) pairs.emplace_back(flat[2 * i], flat[2 * i + 1]);
  return pairs;
}

Literal PaddingLiteral(const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  const int64_t n = static_cast<int64_t>(pairs.size());
  Literal out(Shape(DType::kS64, {n, 2}));
  int64_t* p = out.mutable_data_as<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    p[2 * i] = pairs[i].first;
    p[2 * i + 1] = pairs[i].second;
  }
  return out;
}

namespace {
void FillOnes(std::vector<int64_t>& v, int64_t n) {
  if (v.empty()) v.assign(n, 1);
}
void FillPadding(Literal& padding, int64_t n) {
  if (padding == Literal()) padding = PaddingLiteral(std::vector<std::pair<int64_t, int64_t>>(n));
}
}  // namespace

void FillConvolutionDefaults(ConvolutionAttrs& a) {
  const int64_t n = static_cast<int64_t>(a.dimension_numbers.input_spatial_dimensions.size());
  FillOnes(a.window_strides, n);
  FillOnes(a.lhs_dilation, n);
  FillOnes(a.rhs_dilation, n);
  if (a.window_reversal.empty()) a.window_reversal.assign(n, 0);
  FillPadding(a.padding, n);
}

void FillReduceWindowDefaults(ReduceWindowAttrs& a, int64_t rank) {
  FillOnes(a.window_strides, rank);
  FillOnes(a.base_dilations, rank);
  FillOnes(a.window_dilations, rank);
  FillPadding(a.padding, rank);
}

void FillSelectAndScatterDefaults(SelectAndScatterAttrs& a, int64_t rank) {
  FillOnes(a.window_strides, rank);
  FillPadding(a.padding, rank);
}

namespace {
// Element i of `v`, or `fallback` when v is shorter (unnormalised attributes).
int64_t At(const std::vector<int64_t>& v, size_t i, int64_t fallback) {
  return i < v.size() ? v[i] : fallback;
}
}  // namespace

std::vector<WindowDimension> ConvolutionWindow(const ConvolutionAttrs& a, const Shape& rhs) {
  const ConvDimensionNumbers& d = a.dimension_numbers;
  const size_t n = d.input_spatial_dimensions.size();
  auto pads = PaddingPairs(a.padding, static_cast<int64_t>(n));
  std::vector<WindowDimension> w(n);
  for (size_t i = 0; i < n; ++i) {
    w[i].size = rhs.dims[d.kernel_spatial_dimensions[i]];
    w[i].stride = At(a.window_strides, i, 1);
    w[i].base_dilation = At(a.lhs_dilation, i, 1);
    w[i].window_dilation = At(a.rhs_dilation, i, 1);
    w[i].reversal = At(a.window_reversal, i, 0) != 0;
    if (pads.ok()) std::tie(w[i].padding_low, w[i].padding_high) = (*pads)[i];
  }
  return w;
}

std::vector<WindowDimension> ReduceWindowWindow(const ReduceWindowAttrs& a) {
  const size_t n = a.window_dimensions.size();
  auto pads = PaddingPairs(a.padding, static_cast<int64_t>(n));
  std::vector<WindowDimension> w(n);
  for (size_t i = 0; i < n; ++i) {
    w[i].size = a.window_dimensions[i];
    w[i].stride = At(a.window_strides, i, 1);
    w[i].base_dilation = At(a.base_dilations, i, 1);
    w[i].window_dilation = At(a.window_dilations, i, 1);
    if (pads.ok()) std::tie(w[i].padding_low, w[i].padding_high) = (*pads)[i];
  }
  return w;
}

std::vector<WindowDimension> SelectAndScatterWindow(const SelectAndScatterAttrs& a) {
  const size_t n = a.window_dimensions.size();
  auto pads = PaddingPairs(a.padding, static_cast<int64_t>(n));
  std::vector<WindowDimension> w(n);
  for (size_t i = 0; i < n; ++i) {
    w[i].size = a.window_dimensions[i];
    w[i].stride = At(a.window_strides, i, 1);
    if (pads.ok()) std::tie(w[i].padding_low, w[i].padding_high) = (*pads)[i];
  }
  return w;
}

}  // namespace xjit
