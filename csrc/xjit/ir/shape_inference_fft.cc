// Shape rule of fft (issue 11): FFT/IFFT complex -> complex of the same shape;
// RFFT real -> complex, the last transformed dimension n -> n / 2 + 1;
// IRFFT complex -> real, the last dimension n / 2 + 1 -> n (n = fft_length's
// last entry, which is why the op carries fft_length at all).
#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit::shape_inference {
namespace {

absl::Status Error(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("fft: ", what));
}

DType ComplexFor(DType real) { return real == DType::kF64 ? DType::kC128 : DType::kC64; }

}  // namespace

absl::StatusOr<Shape> InferFft(const Shape& x, const FftAttrs& attrs) {
  const std::vector<int64_t>& len = attrs.fft_length;
  const int64_t k = static_cast<int64_t>(len.size());
  if (k < 1 || k > 3) {
    return Error(absl::StrCat("fft_length must have 1 to 3 entries, got ", DimsToString(len)));
  }
  if (k > x.rank()) {
    return Error(absl::StrCat("fft_length ", DimsToString(len), " transforms ", k,
                              " dimensions of an operand of rank ", x.rank()));
  }
  for (int64_t n : len) {
    if (n < 0) return Error(absl::StrCat("fft_length ", DimsToString(len), " has a negative entry"));
  }
  const FftType type = attrs.fft_type;
  const bool real_in = type == FftType::kRfft;
  if (real_in ? !(x.dtype == DType::kF32 || x.dtype == DType::kF64) : !IsComplex(x.dtype)) {
    return Error(absl::StrCat(EnumName(type), " takes a ",
                              real_in ? "f32 or f64" : "complex<f32> or complex<f64>",
                              " operand, got ", x.ToString()));
  }
  if ((type == FftType::kRfft || type == FftType::kIrfft) && len.back() == 0) {
    return Error(absl::StrCat(EnumName(type), " needs a positive last fft_length, got ",
                              DimsToString(len)));
  }
  const int64_t first = x.rank() - k;
  Shape out = x;
  for (int64_t i = 0; i < k; ++i) {
    int64_t want = len[i];
    if (type == FftType::kIrfft && i == k - 1) want = len[i] / 2 + 1;
    if (x.dims[first + i] != want) {
      return Error(absl::StrCat(EnumName(type), " with fft_length ", DimsToString(len),
                                " needs the operand's last ", k, " dimensions to be ",
                                type == FftType::kIrfft ? "fft_length with n / 2 + 1 last"
                                                        : "fft_length",
                                ", got ", x.ToString()));
    }
  }
  if (type == FftType::kRfft) {
    out.dtype = ComplexFor(x.dtype);
    out.dims.back() = len.back() / 2 + 1;
  } else if (type == FftType::kIrfft) {
    out.dtype = ComplexComponent(x.dtype);
    out.dims.back() = len.back();
  }
  return out;
}

}  // namespace xjit::shape_inference
