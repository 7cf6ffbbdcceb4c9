#include "xjit/ir/literal.h"

#include <cmath>
#include <complex>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/ir/narrow_float.h"

namespace xjit {
namespace {

// NaN and infinities print as the raw bits of the element type, as MLIR does.
std::string FloatText(double v, DType t) {
  if (std::isnan(v) || std::isinf(v)) {
    const bool neg = std::isinf(v) && v < 0;
    switch (t) {
      case DType::kF16: return std::isnan(v) ? "0x7E00" : (neg ? "0xFC00" : "0x7C00");
      case DType::kBF16: return std::isnan(v) ? "0x7FC0" : (neg ? "0xFF80" : "0x7F80");
      case DType::kF64:
        return std::isnan(v) ? "0x7FF8000000000000"
                             : (neg ? "0xFFF0000000000000" : "0x7FF0000000000000");
      default: return std::isnan(v) ? "0x7FC00000" : (neg ? "0xFF800000" : "0x7F800000");
    }
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), t == DType::kF64 ? "%.17g" : "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

// A narrow element (its code in the low bits of the byte): its value, or the
// raw code of a NaN or infinity, as MLIR prints them.
std::string NarrowText(uint8_t code, DType t) {
  if (IsInteger(t)) {
    const int shift = 8 - BitWidth(t);  // sign-extends a signed code
    return absl::StrCat(IsSignedInt(t) ? static_cast<int8_t>(code << shift) >> shift : int{code});
  }
  const float v = DecodeNarrowFloat(t, code);
  if (std::isfinite(v)) return FloatText(v, DType::kF32);
  return absl::StrCat("0x", absl::AsciiStrToUpper(absl::StrCat(absl::Hex(code, absl::kZeroPad2))));
}

}  // namespace

std::string Literal::ElementToString(int64_t i) const {
  DType t = shape_.dtype;
  if (IsNarrow(t)) return NarrowText(data()[i], t);
  std::string out;
  DispatchDType(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = data_as<T>()[i];
    if constexpr (std::is_same_v<T, bool>) {
      out = v ? "true" : "false";
    } else if constexpr (is_complex_v<T>) {
      const DType part = ComplexComponent(t);
      out = absl::StrCat("(", FloatText(v.real(), part), ", ", FloatText(v.imag(), part), ")");
    } else if constexpr (std::is_integral_v<T>) {
      out = absl::StrCat(v);
    } else {
      out = FloatText(static_cast<double>(v), t);
    }
  });
  return out;
}

std::string Literal::ToString() const {
  const int64_t n = shape_.num_elements();
  if (n > 0) {
    bool splat = true;
    const int64_t w = ByteWidth(shape_.dtype);
    for (int64_t i = 1; i < n && splat; ++i) splat = std::memcmp(data(), data() + i * w, w) == 0;
    if (splat && shape_.rank() > 0) return absl::StrCat("dense<", ElementToString(0), ">");
  }
  if (shape_.rank() == 0) return absl::StrCat("dense<", ElementToString(0), ">");
  // Nested brackets, row-major.
  std::string out = "dense<";
  const auto& dims = shape_.dims;
  // block[d]: elements spanned by one index step of dimension d-1, i.e. one
  // bracket pair at depth d opens at multiples of block[d].
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> block(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) block[d] = strides[d] * dims[d];
  for (int64_t i = 0; i < n; ++i) {
    for (size_t d = 0; d < dims.size(); ++d) {
      if (i % block[d] == 0) out += "[";
    }
    out += ElementToString(i);
    int closes = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      if ((i + 1) % block[d] == 0) ++closes;
    }
    out.append(closes, ']');
    if (i + 1 < n) out += ", ";
  }
  if (n == 0) {
    for (size_t d = 0; d < dims.size(); ++d) out += "[";
    for (size_t d = 0; d < dims.size(); ++d) out += "]";
  }
  out += ">";
  return out;
}

}  // namespace xjit
