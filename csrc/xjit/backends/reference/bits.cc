// reduce_precision and bitcast_convert: ops on the bit patterns of elements.
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "xjit/backends/reference/elementwise_util.h"
#include "xjit/backends/reference/ops.h"

namespace xjit::reference {
namespace {

// Rounds the bits of one float (kMantissa explicit mantissa bits, kBits in
// all) to `mantissa_bits` with ties to even, then flushes values outside an
// `exponent_bits` exponent range to signed zero or signed infinity. The
// reduced format has no subnormals: anything at or below its smallest
// exponent becomes zero (as XLA's reduce-precision). A NaN is returned as it
// came, payload and sign included (XLA does the same, even with 0 mantissa bits).
template <typename Bits, int kBits, int kMantissa>
Bits ReducePrecisionBits(Bits v, int64_t exponent_bits, int64_t mantissa_bits) {
  constexpr int kExponent = kBits - 1 - kMantissa;
  const Bits sign = Bits{1} << (kBits - 1);
  const Bits exp_mask = ((Bits{1} << kExponent) - 1) << kMantissa;
  const Bits man_mask = (Bits{1} << kMantissa) - 1;
  const bool is_nan = (v & exp_mask) == exp_mask && (v & man_mask) != 0;
  Bits x = v;
  if (mantissa_bits < kMantissa) {
    const int drop = kMantissa - static_cast<int>(mantissa_bits);
    const Bits last_kept = Bits{1} << drop;
    const Bits half_minus_one = (last_kept >> 1) - 1;
    const Bits odd = (x >> drop) & 1;  // ties to even: round half up only when odd
    x = static_cast<Bits>(x + half_minus_one + odd);
    x &= static_cast<Bits>(~(last_kept - 1));
  }
  if (exponent_bits < kExponent) {
    const Bits bias = (Bits{1} << (kExponent - 1)) - 1;
    const Bits reduced_bias = (Bits{1} << (exponent_bits - 1)) - 1;
    const Bits max_exp = bias + reduced_bias, min_exp = bias - reduced_bias;
    const Bits e = (x & exp_mask) >> kMantissa;
    if (e > max_exp) {
      x = (x & sign) | exp_mask;
    } else if (e <= min_exp) {
      x = x & sign;
    }
  }
  if (is_nan) x = v;
  return x;
}

template <typename T, typename Bits, int kBits, int kMantissa>
Literal ReduceEach(const Literal& x, int64_t e, int64_t m) {
  Literal out(x.shape());
  const int64_t n = x.shape().num_elements();
  for (int64_t i = 0; i < n; ++i) {
    Bits b;
    std::memcpy(&b, x.data() + i * sizeof(T), sizeof(Bits));
    b = ReducePrecisionBits<Bits, kBits, kMantissa>(b, e, m);
    std::memcpy(out.mutable_data() + i * sizeof(T), &b, sizeof(Bits));
  }
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvalReducePrecision(const Literal& x, int64_t exponent_bits,
                                            int64_t mantissa_bits) {
  if (exponent_bits < 1 || mantissa_bits < 0) {
    return absl::InvalidArgumentError("reduce_precision: bad exponent_bits or mantissa_bits");
  }
  switch (x.shape().dtype) {
    case DType::kF16: return ReduceEach<f16, uint16_t, 16, 10>(x, exponent_bits, mantissa_bits);
    case DType::kBF16: return ReduceEach<bf16, uint16_t, 16, 7>(x, exponent_bits, mantissa_bits);
    case DType::kF32: return ReduceEach<float, uint32_t, 32, 23>(x, exponent_bits, mantissa_bits);
    case DType::kF64: return ReduceEach<double, uint64_t, 64, 52>(x, exponent_bits, mantissa_bits);
    default: return UnsupportedType("reduce_precision", x.shape().dtype);
  }
}

absl::StatusOr<Literal> EvalBitcastConvert(const Literal& x, const Shape& result_shape) {
  // Row-major little-endian bytes are the same on both sides: a narrower
  // result's minor dimension holds the pieces of one element, least
  // significant first (the spec's example).
  if (result_shape.byte_size() != x.size_bytes()) {
    return absl::InvalidArgumentError(absl::StrCat("bitcast_convert: ", x.shape().ToString(),
                                                   " and ", result_shape.ToString(),
                                                   " differ in size"));
  }
  return Literal(result_shape, x.data());
}

}  // namespace xjit::reference
