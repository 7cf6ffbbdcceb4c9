// fft by the definition (issue 11): a direct DFT along each transformed
// dimension in complex<double>, O(n^2) per line: ground truth, not speed.
// IRFFT first inverts the outer transformed dimensions, then sums the
// Hermitian-extended last one (imaginary parts of its DC and Nyquist terms
// drop out, as in numpy and ducc0). IFFT and IRFFT scale by 1 / prod(n).
#include <algorithm>
#include <cmath>
#include <complex>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xjit/backends/reference/ops.h"

namespace xjit::reference {
namespace {

using C = std::complex<double>;

std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

// In place DFT along `axis` of `data` (row-major `dims`); sign -1 forward.
void DftAlong(std::vector<C>& data, const std::vector<int64_t>& dims, int64_t axis, double sign) {
  const int64_t n = dims[axis];
  if (n == 0 || data.empty()) return;
  const std::vector<int64_t> st = Strides(dims);
  const int64_t stride = st[axis];
  const int64_t lines = static_cast<int64_t>(data.size()) / n;
  std::vector<C> line(n), out(n);
  for (int64_t l = 0; l < lines; ++l) {
    // Line l: the index with `axis` removed, re-expanded.
    const int64_t outer = l / stride, inner = l % stride;
    const int64_t base = outer * n * stride + inner;
    for (int64_t j = 0; j < n; ++j) line[j] = data[base + j * stride];
    for (int64_t k = 0; k < n; ++k) {
      C sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        const double angle = sign * 2.0 * M_PI * static_cast<double>((j * k) % n) / n;
        sum += line[j] * C(std::cos(angle), std::sin(angle));
      }
      out[k] = sum;
    }
    for (int64_t k = 0; k < n; ++k) data[base + k * stride] = out[k];
  }
}

template <typename T>
void Store(const std::vector<C>& values, Literal& out) {
  T* p = out.mutable_data_as<T>();
  for (size_t i = 0; i < values.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      p[i] = static_cast<T>(values[i].real());
    } else {
      using R = typename T::value_type;
      p[i] = T(static_cast<R>(values[i].real()), static_cast<R>(values[i].imag()));
    }
  }
}

std::vector<C> Load(const Literal& x) {
  const int64_t n = x.shape().num_elements();
  std::vector<C> v(n);
  for (int64_t i = 0; i < n; ++i) {
    switch (x.shape().dtype) {
      case DType::kF32: v[i] = x.data_as<float>()[i]; break;
      case DType::kF64: v[i] = x.data_as<double>()[i]; break;
      case DType::kC64: v[i] = C(x.data_as<std::complex<float>>()[i]); break;
      default: v[i] = x.data_as<C>()[i]; break;
    }
  }
  return v;
}

}  // namespace

absl::StatusOr<Literal> EvalFft(const Literal& x, const FftAttrs& attrs, const Shape& result) {
  const Shape& in = x.shape();
  const DType t = in.dtype;
  if (!(t == DType::kF32 || t == DType::kF64 || IsComplex(t))) {
    return absl::InvalidArgumentError(absl::StrCat("fft: unsupported operand ", in.ToString()));
  }
  const int64_t k = static_cast<int64_t>(attrs.fft_length.size());
  const int64_t rank = in.rank();
  std::vector<C> data = Load(x);
  std::vector<int64_t> dims = in.dims;
  double n_total = 1;
  for (int64_t n : attrs.fft_length) n_total *= static_cast<double>(n);
  switch (attrs.fft_type) {
    case FftType::kFft:
    case FftType::kIfft: {
      const double sign = attrs.fft_type == FftType::kFft ? -1 : 1;
      for (int64_t a = rank - k; a < rank; ++a) DftAlong(data, dims, a, sign);
      if (attrs.fft_type == FftType::kIfft && n_total > 0) {
        for (C& v : data) v /= n_total;
      }
      break;
    }
    case FftType::kRfft: {
      for (int64_t a = rank - k; a < rank; ++a) DftAlong(data, dims, a, -1);
      // Keep the first n / 2 + 1 entries of the last dimension.
      const int64_t n = dims.back(), m = result.dims.back();
      std::vector<C> kept(data.size() / std::max<int64_t>(n, 1) * m);
      for (size_t row = 0; row < kept.size() / std::max<int64_t>(m, 1); ++row) {
        for (int64_t j = 0; j < m; ++j) kept[row * m + j] = data[row * n + j];
      }
      data = std::move(kept);
      break;
    }
    case FftType::kIrfft: {
      for (int64_t a = rank - k; a < rank - 1; ++a) DftAlong(data, dims, a, 1);
      const int64_t m = dims.back(), n = result.dims.back();
      const int64_t rows = m == 0 ? 0 : static_cast<int64_t>(data.size()) / m;
      std::vector<C> full(rows * n);
      for (int64_t row = 0; row < rows; ++row) {
        for (int64_t j = 0; j < n; ++j) {
          C sum = 0;
          for (int64_t f = 0; f < n; ++f) {
            // Hermitian extension of the n / 2 + 1 stored entries.
            const C v = f < m ? data[row * m + f] : std::conj(data[row * m + (n - f)]);
            const double angle = 2.0 * M_PI * static_cast<double>((f * j) % n) / n;
            sum += v * C(std::cos(angle), std::sin(angle));
          }
          full[row * n + j] = C(sum.real() / n_total, 0);
        }
      }
      data = std::move(full);
      break;
    }
  }
  Literal out(result);
  switch (result.dtype) {
    case DType::kF32: Store<float>(data, out); break;
    case DType::kF64: Store<double>(data, out); break;
    case DType::kC64: Store<std::complex<float>>(data, out); break;
    case DType::kC128: Store<std::complex<double>>(data, out); break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("fft: unsupported result ", result.ToString()));
  }
  return out;
}

}  // namespace xjit::reference
