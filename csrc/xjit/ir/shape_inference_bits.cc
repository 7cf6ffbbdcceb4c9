// Ops about the bits of an element type: reduce_precision (rounds to a
// narrower float format and back) and bitcast_convert (reinterprets bits,
// adding or removing a minor dimension when the widths differ).
#include <limits>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit {
namespace shape_inference {

absl::StatusOr<Shape> InferReducePrecision(const Shape& x, const ReducePrecisionAttrs& attrs) {
  if (!IsFloat(x.dtype)) {  // C1
    return absl::InvalidArgumentError(absl::StrCat(
        "reduce_precision: expected floating-point element type, got ", x.ToString()));
  }
  constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
  if (attrs.exponent_bits < 1 || attrs.exponent_bits > kI32Max) {  // C2 (an si32)
    return absl::OutOfRangeError(absl::StrCat(
        "reduce_precision: exponent_bits must be >= 1 (and fit in i32), got ",
        attrs.exponent_bits));
  }
  if (attrs.mantissa_bits < 0 || attrs.mantissa_bits > kI32Max) {  // C3
    return absl::OutOfRangeError(absl::StrCat(
        "reduce_precision: mantissa_bits must be >= 0 (and fit in i32), got ",
        attrs.mantissa_bits));
  }
  return x;
}

absl::StatusOr<Shape> InferBitcastConvert(const Shape& x, const Shape* declared) {
  if (declared == nullptr || declared->is_tuple) {
    return absl::InvalidArgumentError(
        absl::StrCat("bitcast_convert: missing result type for operand ", x.ToString()));
  }
  const Shape& want = *declared;
  if (IsPred(x.dtype) || IsPred(want.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bitcast_convert: i1 has no defined bit layout; got ", x.ToString(), " -> ",
        want.ToString()));
  }
  if (IsComplex(x.dtype) != IsComplex(want.dtype)) {  // C2
    return absl::InvalidArgumentError(absl::StrCat(
        "bitcast_convert: a complex operand or result requires both to be complex, got ",
        x.ToString(), " -> ", want.ToString()));
  }
  // Sub-byte types count their own bits (i4[..., 2] <-> i8[...]), as the spec does.
  const int64_t in_bits = IsNarrow(x.dtype) ? BitWidth(x.dtype) : 8 * ByteWidth(x.dtype);
  const int64_t out_bits = IsNarrow(want.dtype) ? BitWidth(want.dtype) : 8 * ByteWidth(want.dtype);
  if (std::max(in_bits, out_bits) % std::min(in_bits, out_bits) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bitcast_convert: ", in_bits, "-bit and ", out_bits, "-bit elements do not regroup, got ",
        x.ToString(), " -> ", want.ToString()));
  }
  const int64_t rank = x.rank();
  std::vector<int64_t> dims = x.dims;  // C1
  std::string rule;
  if (out_bits < in_bits) {
    dims.push_back(in_bits / out_bits);
    rule = absl::StrCat("a narrower result adds a minor dimension of ", in_bits / out_bits);
  } else if (out_bits > in_bits) {
    const int64_t ratio = out_bits / in_bits;
    if (rank == 0 || x.dims.back() != ratio) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bitcast_convert: a wider result needs the operand's last dimension to be ", ratio,
          " (", out_bits, " / ", in_bits, " bits), got ", x.ToString(), " -> ", want.ToString()));
    }
    dims.pop_back();
    rule = "a wider result removes the operand's last dimension";
  } else {
    rule = "equal widths keep the shape";
  }
  if (want.dims != dims) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bitcast_convert: result shape must be ", Shape(want.dtype, dims).ToString(), " (", rule,
        "), got ", x.ToString(), " -> ", want.ToString()));
  }
  return want;
}

}  // namespace shape_inference
}  // namespace xjit
