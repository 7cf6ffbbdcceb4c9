// Small-float codec driven by one format description per type.
//
// Encoding follows the steps of ml_dtypes' ConvertImpl (float8.h), since
// matching it bit for bit is the point; the types then differ only in their
// Format row. What that gives, per kind of type (found by experiment against
// ml_dtypes 0.6.0, recorded in tests/cc/narrow_float_test.cc):
//   IEEE (e3m4, e4m3, e5m2): overflow and +-inf give +-inf, NaN gives the
//     quiet NaN (top mantissa bit) with the input's sign, -0 stays -0.
//   FN (e4m3fn): overflow and +-inf give NaN (all ones) with the sign.
//   FNUZ (e4m3fnuz, e4m3b11fnuz, e5m2fnuz): overflow, inf and NaN give 0x80
//     whatever the sign; -0 and negative underflow give +0.
//   No NaN, no inf (f4e2m1fn, f6e2m3fn, f6e3m2fn): overflow and +-inf
//     saturate to +-max; NaN gives -0 and -NaN gives +0 (ml_dtypes'
//     quiet_NaN() for these types is the -0 code, and the sign flips it).
//   e8m0fnu (no sign, no zero, NaN = 0xFF): NaN, inf, overflow, zero and every
//     negative input give 0xFF; values in (0, 2^-127] give 0x00 (2^-127),
//     those in (2^-127, 2^-126) give 0x01.
// Rounding is to nearest, ties to even, except that with no mantissa bits
// (e8m0fnu) ties round up: ml_dtypes takes the implicit bit as the "even" bit.
// A float64 input is first rounded to float32, as numpy casts through
// ml_dtypes do (float64 -> float32 -> small float); see narrow_float.h.
#include "xjit/ir/narrow_float.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

namespace xjit {
namespace {

enum class NanKind : uint8_t {
  kIeee,  // exponent all ones: inf if the mantissa is 0, else NaN
  kFn,    // all ones is NaN; no inf
  kFnuz,  // the -0 code (sign bit alone) is NaN; no inf, no -0
  kNone,  // neither NaN nor inf
};

struct Format {
  DType type;
  int exp_bits, man_bits, bias;
  bool has_sign, has_zero;
  NanKind nan;
};

constexpr Format kFormats[] = {
    {DType::kF8E3M4, 3, 4, 3, true, true, NanKind::kIeee},
    {DType::kF8E4M3, 4, 3, 7, true, true, NanKind::kIeee},
    {DType::kF8E4M3FN, 4, 3, 7, true, true, NanKind::kFn},
    {DType::kF8E4M3FNUZ, 4, 3, 8, true, true, NanKind::kFnuz},
    {DType::kF8E4M3B11FNUZ, 4, 3, 11, true, true, NanKind::kFnuz},
    {DType::kF8E5M2, 5, 2, 15, true, true, NanKind::kIeee},
    {DType::kF8E5M2FNUZ, 5, 2, 16, true, true, NanKind::kFnuz},
    {DType::kF8E8M0FNU, 8, 0, 127, false, false, NanKind::kFn},
    {DType::kF4E2M1FN, 2, 1, 1, true, true, NanKind::kNone},
    {DType::kF6E2M3FN, 2, 3, 1, true, true, NanKind::kNone},
    {DType::kF6E3M2FN, 3, 2, 3, true, true, NanKind::kNone},
};
constexpr int kNumFormats = sizeof(kFormats) / sizeof(kFormats[0]);

// Rows are indexed by DType - kF8E3M4.
constexpr bool RowsInDTypeOrder() {
  for (int i = 0; i < kNumFormats; ++i) {
    if (static_cast<int>(kFormats[i].type) != static_cast<int>(DType::kF8E3M4) + i) return false;
  }
  return static_cast<int>(DType::kF8E3M4) + kNumFormats - 1 == static_cast<int>(DType::kF6E3M2FN);
}
static_assert(RowsInDTypeOrder(), "kFormats must list the small floats in DType order");

// Everything encoding and decoding need, derived from a Format.
struct Codec {
  Format f;
  uint8_t sign_bit;  // 0 for unsigned types
  uint8_t mag_mask;  // exponent and mantissa bits
  uint8_t max_mag;   // largest finite magnitude code
  uint8_t inf_code;  // what +inf and positive overflow give
  uint8_t nan_code;  // what a positive NaN gives
  float decode[256];

  explicit Codec(const Format& fmt) : f(fmt) {
    const int m = f.man_bits, em = f.exp_bits + m;
    const unsigned exp_ones = (1u << f.exp_bits) - 1, man_ones = (1u << m) - 1;
    sign_bit = static_cast<uint8_t>(f.has_sign ? 1u << em : 0u);
    mag_mask = static_cast<uint8_t>((1u << em) - 1);
    switch (f.nan) {
      case NanKind::kIeee:
        max_mag = static_cast<uint8_t>(((exp_ones - 1) << m) | man_ones);
        inf_code = static_cast<uint8_t>(exp_ones << m);
        nan_code = static_cast<uint8_t>(inf_code | (1u << (m - 1)));
        break;
      case NanKind::kFn:
        max_mag = static_cast<uint8_t>(mag_mask - 1);
        inf_code = nan_code = mag_mask;
        break;
      case NanKind::kFnuz:
        max_mag = mag_mask;
        inf_code = nan_code = sign_bit;
        break;
      case NanKind::kNone:
        max_mag = inf_code = mag_mask;
        nan_code = sign_bit;  // ml_dtypes' quiet_NaN() is the -0 code
        break;
    }
    for (int c = 0; c < 256; ++c) decode[c] = Decode(static_cast<uint8_t>(c));
  }

  bool IsNan(uint8_t c) const {
    const uint8_t mag = c & mag_mask;
    switch (f.nan) {
      case NanKind::kIeee: return mag > inf_code;
      case NanKind::kFn: return mag == mag_mask;
      case NanKind::kFnuz: return c == sign_bit;
      case NanKind::kNone: return false;
    }
    return false;
  }

  float Decode(uint8_t c) const {
    c &= sign_bit | mag_mask;
    const float sign = (c & sign_bit) ? -1.0f : 1.0f;
    if (IsNan(c)) return std::copysign(std::numeric_limits<float>::quiet_NaN(), sign);
    const int mag = c & mag_mask, m = f.man_bits;
    if (f.nan == NanKind::kIeee && mag == inf_code) {
      return sign * std::numeric_limits<float>::infinity();
    }
    const int exp = mag >> m, man = mag & ((1 << m) - 1);
    // Exponent field 0 is subnormal, except without a zero (e8m0: 2^-127).
    const double v = exp == 0 && f.has_zero ? std::ldexp(man, 1 - f.bias - m)
                                            : std::ldexp((1 << m) + man, exp - f.bias - m);
    return sign * static_cast<float>(v);
  }

  // ml_dtypes' unary minus on the type: FNUZ has no -0 and one NaN.
  uint8_t Negate(uint8_t c) const {
    if (f.nan == NanKind::kFnuz && (c & mag_mask) == 0) return c;
    return c ^ sign_bit;
  }

  // Rounds v once (ConvertImpl<double, T>).
  uint8_t Encode(double v) const {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    const bool neg = bits >> 63;
    const uint64_t abs = bits & ~(uint64_t{1} << 63), kInf = uint64_t{0x7FF} << 52;
    auto with_sign = [&](uint8_t c) { return neg ? Negate(c) : c; };
    if (abs > kInf) return with_sign(nan_code);
    if (abs == kInf) return with_sign(inf_code);
    if (abs == 0) return f.has_zero ? with_sign(0) : nan_code;
    if (neg && !f.has_sign) return nan_code;

    // |v| = mant * 2^(exp - 52) with the leading 1 of mant at bit 52.
    int exp = static_cast<int>(abs >> 52) - 1023;
    uint64_t mant = abs & ((uint64_t{1} << 52) - 1);
    if (exp == -1023) {  // f64 subnormal: normalise
      exp = -1022;
      while (!(mant >> 52)) { mant <<= 1; --exp; }
    } else {
      mant |= uint64_t{1} << 52;
    }
    // base = biased exponent - 1: the leading 1, kept in mant, adds the 1
    // back when mant is added onto the exponent field below; a rounding carry
    // likewise moves into the exponent. base < 0: subnormal in the type.
    const int m = f.man_bits, base = exp + f.bias - 1;
    const int shift = std::min(52 - m + std::max(0, -base), 54);  // 54: rounds to 0
    // Ties to even on bit `shift` (the implicit bit when m == 0).
    mant += ((mant >> shift) & 1) + (uint64_t{1} << (shift - 1)) - 1;
    const uint64_t mag = (mant >> shift) + (static_cast<uint64_t>(std::max(0, base)) << m);
    return with_sign(mag > max_mag ? inf_code : static_cast<uint8_t>(mag));
  }
};

template <size_t... I>
std::array<Codec, kNumFormats> MakeCodecs(std::index_sequence<I...>) {
  return {Codec(kFormats[I])...};
}

const Codec& CodecFor(DType t) {
  // Built once; function-local statics are initialised thread-safely.
  static const std::array<Codec, kNumFormats> codecs =
      MakeCodecs(std::make_index_sequence<kNumFormats>());
  if (!IsNarrowFloat(t)) std::abort();  // caller bug: not a small float
  return codecs[static_cast<int>(t) - static_cast<int>(DType::kF8E3M4)];
}

// numpy float64 -> ml_dtypes casts go through float32 (see the file comment).
double ThroughFloat(double v) {
  // From 2^128 - 2^103 (halfway from FLT_MAX to 2^128) up, rounding to float
  // gives inf; spelled out since casting such a double to float is UB.
  constexpr double kFloatOverflow = 0x1.ffffffp127;
  if (std::fabs(v) >= kFloatOverflow) return std::copysign(HUGE_VAL, v);
  return static_cast<float>(v);  // NaN keeps its sign
}

}  // namespace

float DecodeNarrowFloat(DType t, uint8_t bits) { return CodecFor(t).decode[bits]; }

uint8_t EncodeNarrowFloat(DType t, double v) { return CodecFor(t).Encode(ThroughFloat(v)); }

uint8_t EncodeNarrowFloatOnce(DType t, double v) { return CodecFor(t).Encode(v); }

void DecodeNarrowFloats(DType t, const uint8_t* in, float* out, int64_t n) {
  const float* table = CodecFor(t).decode;
  for (int64_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

void EncodeNarrowFloats(DType t, const float* in, uint8_t* out, int64_t n) {
  const Codec& c = CodecFor(t);
  for (int64_t i = 0; i < n; ++i) out[i] = c.Encode(in[i]);
}

void EncodeNarrowFloats(DType t, const double* in, uint8_t* out, int64_t n) {
  const Codec& c = CodecFor(t);
  for (int64_t i = 0; i < n; ++i) out[i] = c.Encode(ThroughFloat(in[i]));
}

}  // namespace xjit
