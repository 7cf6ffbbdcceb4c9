// Per-element semantics of xjit's runtime, written once as small templates so
// every reference kernel (and any backend that wants the same answer) agrees.
// The choices the StableHLO spec leaves open are fixed here and documented in
// docs/semantics.md ("Runtime semantics decisions").
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "xjit/ir/dtype_dispatch.h"

namespace xjit::reference {

// f16/bf16 are computed in float and rounded when stored.
template <typename T>
using ComputeType = std::conditional_t<is_half_v<T>, float, T>;

template <typename T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <typename T>
inline constexpr bool is_real_float_v = std::is_floating_point_v<ComputeType<T>>;

// Unsigned type at least as wide as int, so that wrapping arithmetic never
// goes through (overflowing) signed int promotion.
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                    std::make_unsigned_t<T>>;

// Integer add, subtract, multiply and negate wrap around (two's complement).
template <typename T> T Add(T a, T b) { return static_cast<T>(WrapType<T>(a) + WrapType<T>(b)); }
template <typename T> T Subtract(T a, T b) { return static_cast<T>(WrapType<T>(a) - WrapType<T>(b)); }
template <typename T> T Multiply(T a, T b) { return static_cast<T>(WrapType<T>(a) * WrapType<T>(b)); }
template <typename T> T Negate(T a) { return static_cast<T>(WrapType<T>(0) - WrapType<T>(a)); }

// x/0 = -1 (signed) or all ones (unsigned); INT_MIN/-1 = INT_MIN: no trap.
template <typename T>
T Divide(T a, T b) {
  if (b == 0) return std::is_signed_v<T> ? static_cast<T>(-1) : std::numeric_limits<T>::max();
  if constexpr (std::is_signed_v<T>) {
    if (a == std::numeric_limits<T>::min() && b == -1) return a;
  }
  return static_cast<T>(a / b);
}

// x%0 = x; INT_MIN%-1 = 0. Sign follows the dividend (C semantics).
template <typename T>
T Remainder(T a, T b) {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

// Integer power by squaring with wrap-around. Negative exponents have no
// integer result except for bases 1 and -1; everything else gives 0.
template <typename T>
T Power(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? static_cast<T>(-1) : static_cast<T>(1);
      return 0;
    }
  }
  T result = 1;
  using U = std::make_unsigned_t<T>;
  U e = static_cast<U>(exp);
  while (e != 0) {
    if (e & 1) result = Multiply(result, base);
    base = Multiply(base, base);
    e >>= 1;
  }
  return result;
}

// Shift amounts outside [0, bit width) shift every bit out.
template <typename T>
bool ShiftInRange(T amount) {
  if constexpr (std::is_signed_v<T>) {
    if (amount < 0) return false;
  }
  return static_cast<std::make_unsigned_t<T>>(amount) < sizeof(T) * 8;
}
template <typename T>
T ShiftLeft(T a, T amount) {
  if (!ShiftInRange(amount)) return 0;
  return static_cast<T>(WrapType<T>(a) << static_cast<int>(amount));
}
template <typename T>
T ShiftRightLogical(T a, T amount) {
  if (!ShiftInRange(amount)) return 0;
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) >> static_cast<int>(amount));
}
// Sign-propagating on the bit pattern, also for unsigned types (as the
// StableHLO interpreter's APInt::ashr does).
template <typename T>
T ShiftRightArithmetic(T a, T amount) {
  using S = std::make_signed_t<T>;
  S s = static_cast<S>(a);
  if (!ShiftInRange(amount)) return static_cast<T>(s < 0 ? S(-1) : S(0));
  return static_cast<T>(static_cast<S>(s >> static_cast<int>(amount)));
}

// abs(INT_MIN) = INT_MIN (two's complement wrap).
template <typename T>
T Abs(T a) {
  if constexpr (std::is_signed_v<T>) return a < 0 ? Negate(a) : a;
  return a;
}

template <typename T>
int CountLeadingZeros(T a) {
  using U = std::make_unsigned_t<T>;
  U u = static_cast<U>(a);
  constexpr int kBits = sizeof(T) * 8;
  int n = 0;
  for (int bit = kBits - 1; bit >= 0 && !((u >> bit) & 1); --bit) ++n;
  return n;
}

template <typename T>
int Popcnt(T a) {
  using U = std::make_unsigned_t<T>;
  return __builtin_popcountll(static_cast<unsigned long long>(static_cast<U>(a)));
}

// IEEE roundToIntegralTiesToEven without depending on the FP environment.
template <typename F>
F RoundNearestEven(F x) {
  if (!std::isfinite(x)) return x;
  F f = std::floor(x);
  F diff = x - f;
  F r;
  if (diff > F(0.5)) r = f + 1;
  else if (diff < F(0.5)) r = f;
  else r = std::fmod(f, F(2)) == 0 ? f : f + 1;
  return r == 0 ? std::copysign(F(0), x) : r;
}

// sign: NaN -> NaN, +-0 -> +-0, otherwise +-1.
template <typename F>
F Sign(F x) {
  if (std::isnan(x) || x == 0) return x;
  return x < 0 ? F(-1) : F(1);
}

// IEEE 754-2019 maximum/minimum: NaN propagates, -0 < +0.
template <typename F>
F FloatMax(F a, F b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <typename F>
F FloatMin(F a, F b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

template <typename C>
bool HasNaN(const std::complex<C>& z) { return std::isnan(z.real()) || std::isnan(z.imag()); }
// Lexicographic on (real, imag).
template <typename C>
bool ComplexLess(const std::complex<C>& a, const std::complex<C>& b) {
  return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
}
// Lexicographic max/min; an operand with a NaN part propagates.
template <typename C>
std::complex<C> ComplexMax(const std::complex<C>& a, const std::complex<C>& b) {
  if (HasNaN(a)) return a;
  if (HasNaN(b)) return b;
  return ComplexLess(a, b) ? b : a;
}
template <typename C>
std::complex<C> ComplexMin(const std::complex<C>& a, const std::complex<C>& b) {
  if (HasNaN(a)) return a;
  if (HasNaN(b)) return b;
  return ComplexLess(b, a) ? b : a;
}

// Maximum/minimum for any element type (pred: or/and).
template <typename T>
T Maximum(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else if constexpr (is_complex_v<T>) return ComplexMax(a, b);
  else if constexpr (is_real_float_v<T>) return T(FloatMax<ComputeType<T>>(a, b));
  else return a > b ? a : b;
}
template <typename T>
T Minimum(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a && b;
  else if constexpr (is_complex_v<T>) return ComplexMin(a, b);
  else if constexpr (is_real_float_v<T>) return T(FloatMin<ComputeType<T>>(a, b));
  else return a < b ? a : b;
}

// IEEE totalOrder as a signed integer key: -NaN < -Inf < ... < -0 < +0 < ... < +NaN.
template <typename T>
int64_t TotalOrderKey(T x) {
  if constexpr (std::is_same_v<T, double>) {
    int64_t b;
    std::memcpy(&b, &x, 8);
    return b < 0 ? (b ^ std::numeric_limits<int64_t>::max()) : b;
  } else if constexpr (std::is_same_v<T, float>) {
    int32_t b;
    std::memcpy(&b, &x, 4);
    return b < 0 ? (b ^ std::numeric_limits<int32_t>::max()) : b;
  } else {  // f16, bf16: raw 16-bit pattern
    int16_t b = static_cast<int16_t>(x.bits);
    return b < 0 ? (b ^ std::numeric_limits<int16_t>::max()) : b;
  }
}

// Float -> integer: NaN -> 0, out of range saturates, otherwise truncates
// toward zero.
template <typename I, typename F>
I FloatToInt(F x) {
  if (std::isnan(x)) return 0;
  using L = std::numeric_limits<I>;
  // 2^(bits of magnitude): the first value above the range, exact in double.
  const double upper = std::ldexp(1.0, L::digits);
  const double d = std::trunc(static_cast<double>(x));
  if (d >= upper) return L::max();
  if (d < static_cast<double>(L::min())) return L::min();
  return static_cast<I>(d);
}

// Element conversion with the convert op's semantics.
template <typename To, typename From>
To ConvertElement(From x) {
  if constexpr (is_complex_v<From>) {
    if constexpr (is_complex_v<To>) {
      using C = typename To::value_type;
      return To(static_cast<C>(x.real()), static_cast<C>(x.imag()));
    } else if constexpr (std::is_same_v<To, bool>) {
      // Like numpy: a complex value is true unless both parts are zero.
      return x.real() != 0 || x.imag() != 0;
    } else {
      return ConvertElement<To>(x.real());  // drops the imaginary part
    }
  } else if constexpr (is_half_v<From>) {
    return ConvertElement<To>(static_cast<float>(x));
  } else if constexpr (is_complex_v<To>) {
    using C = typename To::value_type;
    return To(ConvertElement<C>(x), C(0));
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (is_half_v<To>) {
    return To(static_cast<float>(x));  // through float (f64 rounds twice)
  } else if constexpr (is_int_v<To> && std::is_floating_point_v<From>) {
    return FloatToInt<To>(x);
  } else {
    // int -> int wraps (two's complement), int -> float rounds to nearest,
    // float -> float rounds to nearest, bool -> number gives 0/1.
    return static_cast<To>(x);
  }
}

}  // namespace xjit::reference
