// Per-element semantics of every element-wise op, as small functors that the
// CPU kernels instantiate once per (op, type). Each functor says which compute
// types it supports (`supports<T>`), which storage type its result has
// (`Out<T>`, default: the input's), and how one element is computed. f16/bf16
// are computed in float and rounded when stored (see Compute<T>). The edge
// cases follow docs/semantics.md so that "cpu" matches "reference" bit for bit
// on integers.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "xjit/ir/attributes.h"
#include "xjit/backends/cpu/fast_math.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::cpu {

template <typename T> using Compute = std::conditional_t<is_half_v<T>, float, T>;

template <typename T> inline constexpr bool kIsBool = std::is_same_v<T, bool>;
template <typename T> inline constexpr bool kIsInt = std::is_integral_v<T> && !kIsBool<T>;
template <typename T> inline constexpr bool kIsSigned = kIsInt<T> && std::is_signed_v<T>;
template <typename T> inline constexpr bool kIsFloat = std::is_floating_point_v<T>;
template <typename T> inline constexpr bool kIsComplex = is_complex_v<T>;
template <typename T> inline constexpr bool kIsNumeric = kIsInt<T> || kIsFloat<T> || kIsComplex<T>;

// Bitwise AND/OR of two floats' representations (for signed zeros).
template <typename T>
inline T BitsAnd(T a, T b) {
  using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  return __builtin_bit_cast(T, static_cast<U>(__builtin_bit_cast(U, a) & __builtin_bit_cast(U, b)));
}
template <typename T>
inline T BitsOr(T a, T b) {
  using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  return __builtin_bit_cast(T, static_cast<U>(__builtin_bit_cast(U, a) | __builtin_bit_cast(U, b)));
}

// Unsigned twin used for wrapping arithmetic (signed overflow is UB in C++).
// Narrow types promote to int in C++, so they wrap through uint32_t instead.
template <typename T> struct WrapOf { using type = std::make_unsigned_t<T>; };
template <typename T> using Wrap =
    std::conditional_t<(sizeof(T) < 4), uint32_t, typename WrapOf<T>::type>;

template <typename T> struct ComponentOf { using type = T; };
template <typename F> struct ComponentOf<std::complex<F>> { using type = F; };

// ---------------------------------------------------------------- unary ops

struct DefaultOut { template <typename T> using Out = T; };

#define XJIT_FLOAT_OR_COMPLEX_UNARY(Name, expr)                                   \
  struct Name : DefaultOut {                                                      \
    template <typename T> static constexpr bool supports = kIsFloat<T> || kIsComplex<T>; \
    template <typename T> static T Apply(T x) { using std::expr; return expr(x); } \
  };
XJIT_FLOAT_OR_COMPLEX_UNARY(Cosine, cos)
XJIT_FLOAT_OR_COMPLEX_UNARY(Sine, sin)
XJIT_FLOAT_OR_COMPLEX_UNARY(Tan, tan)
XJIT_FLOAT_OR_COMPLEX_UNARY(Sqrt, sqrt)
#undef XJIT_FLOAT_OR_COMPLEX_UNARY

// tanh, exp and log: float32 takes the vectorizable versions in fast_math.h.
#define XJIT_FAST_FLOAT32_UNARY(Name, expr, fast)                                 \
  struct Name : DefaultOut {                                                      \
    template <typename T> static constexpr bool supports = kIsFloat<T> || kIsComplex<T>; \
    template <typename T> static T Apply(T x) {                                   \
      if constexpr (std::is_same_v<T, float>) {                                   \
        return fast(x);                                                           \
      } else {                                                                    \
        using std::expr;                                                          \
        return expr(x);                                                           \
      }                                                                           \
    }                                                                             \
  };
XJIT_FAST_FLOAT32_UNARY(Tanh, tanh, FastTanh)
XJIT_FAST_FLOAT32_UNARY(Exponential, exp, FastExp)
XJIT_FAST_FLOAT32_UNARY(Log, log, FastLog)
#undef XJIT_FAST_FLOAT32_UNARY

#define XJIT_FLOAT_UNARY(Name, expr)                                              \
  struct Name : DefaultOut {                                                      \
    template <typename T> static constexpr bool supports = kIsFloat<T>;           \
    template <typename T> static T Apply(T x) { return expr(x); }                 \
  };
XJIT_FLOAT_UNARY(Ceil, std::ceil)
XJIT_FLOAT_UNARY(Floor, std::floor)
XJIT_FLOAT_UNARY(RoundNearestAfz, std::round)       // ties away from zero
XJIT_FLOAT_UNARY(RoundNearestEven, std::nearbyint)  // default mode: ties to even
#undef XJIT_FLOAT_UNARY

// float32 by XLA's rational form (JAX's bits, 40x libm's speed); others by libm.
struct Erf : DefaultOut {
  template <typename T> static constexpr bool supports = kIsFloat<T>;
  template <typename T> static T Apply(T x) {
    if constexpr (std::is_same_v<T, float>) return FastErf(x);
    else return std::erf(x);
  }
};
struct Cbrt : DefaultOut {
  template <typename T> static constexpr bool supports = kIsFloat<T> || kIsComplex<T>;
  template <typename T> static T Apply(T x) {
    if constexpr (kIsComplex<T>) return std::pow(x, T(1.0 / 3.0));
    else return std::cbrt(x);
  }
};
struct ExponentialMinusOne : DefaultOut {
  template <typename T> static constexpr bool supports = kIsFloat<T> || kIsComplex<T>;
  template <typename T> static T Apply(T x) {
    if constexpr (kIsComplex<T>) return std::exp(x) - T(1);
    else if constexpr (std::is_same_v<T, float>) return FastExpm1(x);
    else return std::expm1(x);
  }
};
struct LogPlusOne : DefaultOut {
  template <typename T> static constexpr bool supports = kIsFloat<T> || kIsComplex<T>;
  template <typename T> static T Apply(T x) {
    if constexpr (kIsComplex<T>) return std::log(T(1) + x);
    else if constexpr (std::is_same_v<T, float>) return FastLog1p(x);
    else return std::log1p(x);
  }
};
struct Rsqrt : DefaultOut {
  template <typename T> static constexpr bool supports = kIsFloat<T> || kIsComplex<T>;
  template <typename T> static T Apply(T x) { using std::sqrt; return T(1) / sqrt(x); }
};
struct Logistic : DefaultOut {
  template <typename T> static constexpr bool supports = kIsFloat<T> || kIsComplex<T>;
  template <typename T> static T Apply(T x) {
    if constexpr (std::is_same_v<T, float>) {
      return FastLogistic(x);
    } else {
      using std::exp;
      return T(1) / (T(1) + exp(-x));
    }
  }
};

struct Abs {
  template <typename T> using Out = typename ComponentOf<T>::type;
  template <typename T> static constexpr bool supports = kIsSigned<T> || kIsFloat<T> || kIsComplex<T>;
  template <typename T> static Out<T> Apply(T x) {
    // abs(INT_MIN) wraps back to INT_MIN (docs/semantics.md).
    if constexpr (kIsInt<T>) return x < 0 ? T(Wrap<T>(0) - Wrap<T>(x)) : x;
    else return std::abs(x);
  }
};
struct Real {
  template <typename T> using Out = typename ComponentOf<T>::type;
  template <typename T> static constexpr bool supports = kIsFloat<T> || kIsComplex<T>;
  template <typename T> static Out<T> Apply(T x) {
    if constexpr (kIsComplex<T>) return x.real(); else return x;
  }
};
struct Imag {
  template <typename T> using Out = typename ComponentOf<T>::type;
  template <typename T> static constexpr bool supports = kIsFloat<T> || kIsComplex<T>;
  template <typename T> static Out<T> Apply(T x) {
    if constexpr (kIsComplex<T>) return x.imag(); else return T(0);
  }
};
struct IsFinite {
  template <typename T> using Out = bool;
  template <typename T> static constexpr bool supports = kIsFloat<T>;
  template <typename T> static bool Apply(T x) { return std::isfinite(x); }
};
struct Negate : DefaultOut {
  template <typename T> static constexpr bool supports = kIsNumeric<T>;
  template <typename T> static T Apply(T x) {
    if constexpr (kIsInt<T>) return T(Wrap<T>(0) - Wrap<T>(x));  // unsigned wraps
    else return -x;
  }
};
struct Not : DefaultOut {
  template <typename T> static constexpr bool supports = kIsBool<T> || kIsInt<T>;
  template <typename T> static T Apply(T x) {
    if constexpr (kIsBool<T>) return !x; else return T(~x);
  }
};
struct CountLeadingZeros : DefaultOut {
  template <typename T> static constexpr bool supports = kIsInt<T>;
  template <typename T> static T Apply(T x) {
    uint64_t u = static_cast<std::make_unsigned_t<T>>(x);
    constexpr int bits = sizeof(T) * 8;
    return T(u == 0 ? bits : __builtin_clzll(u) - (64 - bits));
  }
};
struct Popcnt : DefaultOut {
  template <typename T> static constexpr bool supports = kIsInt<T>;
  template <typename T> static T Apply(T x) {
    return T(__builtin_popcountll(static_cast<std::make_unsigned_t<T>>(x)));
  }
};
struct Sign : DefaultOut {
  template <typename T> static constexpr bool supports = kIsSigned<T> || kIsFloat<T> || kIsComplex<T>;
  template <typename T> static T Apply(T x) {
    if constexpr (kIsInt<T>) {
      return T((x > 0) - (x < 0));
    } else if constexpr (kIsFloat<T>) {
      if (std::isnan(x) || x == 0) return x;  // NaN -> NaN, keeps the sign of zero
      return std::copysign(T(1), x);
    } else {
      using F = typename T::value_type;
      if (std::isnan(x.real()) || std::isnan(x.imag())) {
        F nan = std::numeric_limits<F>::quiet_NaN();
        return T(nan, nan);
      }
      if (x == T(0)) return x;
      return x / std::abs(x);
    }
  }
};

// --------------------------------------------------------------- binary ops

struct Add : DefaultOut {
  template <typename T> static constexpr bool supports = kIsBool<T> || kIsNumeric<T>;
  template <typename T> static T Apply(T a, T b) {
    if constexpr (kIsBool<T>) return a || b;
    else if constexpr (kIsInt<T>) return T(Wrap<T>(a) + Wrap<T>(b));
    else return a + b;
  }
};
struct Subtract : DefaultOut {
  template <typename T> static constexpr bool supports = kIsNumeric<T>;
  template <typename T> static T Apply(T a, T b) {
    if constexpr (kIsInt<T>) return T(Wrap<T>(a) - Wrap<T>(b));
    else return a - b;
  }
};
struct Multiply : DefaultOut {
  template <typename T> static constexpr bool supports = kIsBool<T> || kIsNumeric<T>;
  template <typename T> static T Apply(T a, T b) {
    if constexpr (kIsBool<T>) return a && b;
    else if constexpr (kIsInt<T>) return T(Wrap<T>(a) * Wrap<T>(b));
    else return a * b;
  }
};
// The quotient of integers of up to 32 bits, rounded toward zero, through
// double division: exact (the rounding error of a/b, under 2^-21/|b|, never
// reaches the next integer, 1/|b| away), branch-free, and so vectorized, where
// idiv costs ~10 cycles an element. `b` must not be 0. INT_MIN / -1 comes out
// as 2^31, which wraps to INT_MIN through int64 (as XLA defines it).
template <typename T>
inline T QuotientOfNarrowInts(T a, T b) {
  static_assert(kIsInt<T> && sizeof(T) <= 4);
  return T(static_cast<int64_t>(static_cast<double>(a) / static_cast<double>(b)));
}

struct Divide : DefaultOut {
  template <typename T> static constexpr bool supports = kIsNumeric<T>;
  template <typename T> static T Apply(T a, T b) {
    if constexpr (kIsInt<T> && sizeof(T) <= 4) {
      const T q = QuotientOfNarrowInts(a, b == 0 ? T(1) : b);
      return b == 0 ? (kIsSigned<T> ? T(-1) : std::numeric_limits<T>::max()) : q;
    } else if constexpr (kIsInt<T>) {
      if (b == 0) return kIsSigned<T> ? T(-1) : std::numeric_limits<T>::max();
      if constexpr (kIsSigned<T>) {
        if (a == std::numeric_limits<T>::min() && b == T(-1)) return a;
      }
      return T(a / b);
    } else {
      return a / b;
    }
  }
};
struct Remainder : DefaultOut {
  template <typename T> static constexpr bool supports = kIsNumeric<T>;
  template <typename T> static T Apply(T a, T b) {
    if constexpr (kIsInt<T> && sizeof(T) <= 4) {
      // a - q*b wrapping: INT_MIN % -1 is 0 with q = INT_MIN; a % 0 is a.
      const T d = b == 0 ? T(1) : b;
      const T r = T(Wrap<T>(a) - Wrap<T>(QuotientOfNarrowInts(a, d)) * Wrap<T>(d));
      return b == 0 ? a : r;
    } else if constexpr (kIsInt<T>) {
      if (b == 0) return a;
      if constexpr (kIsSigned<T>) {
        if (a == std::numeric_limits<T>::min() && b == T(-1)) return T(0);
      }
      return T(a % b);
    } else if constexpr (kIsComplex<T>) {
      // lhs - d * rhs with each part of the quotient truncated (as the reference).
      T q = a / b;
      return a - T(std::trunc(q.real()), std::trunc(q.imag())) * b;
    } else {
      return std::fmod(a, b);
    }
  }
};
struct Power : DefaultOut {
  template <typename T> static constexpr bool supports = kIsNumeric<T>;
  template <typename T> static T Apply(T a, T b) {
    if constexpr (kIsInt<T>) {
      if constexpr (kIsSigned<T>) {
        if (b < 0) {
          if (a == 1) return T(1);
          if (a == -1) return (b & 1) ? T(-1) : T(1);
          return T(0);
        }
      }
      Wrap<T> result = 1, base = Wrap<T>(a);
      for (auto e = std::make_unsigned_t<T>(b); e != 0; e >>= 1) {
        if (e & 1) result = Wrap<T>(result * base);
        base = Wrap<T>(base * base);
      }
      return T(result);
    } else {
      return std::pow(a, b);
    }
  }
};

// IEEE maximum/minimum: NaN wins, and +0 > -0.
struct Maximum : DefaultOut {
  template <typename T> static constexpr bool supports = kIsBool<T> || kIsNumeric<T>;
  template <typename T> static T Apply(T a, T b) {
    if constexpr (kIsBool<T>) return a || b;
    else if constexpr (kIsInt<T>) return a > b ? a : b;
    else if constexpr (kIsFloat<T>) {
      // Selects only, so loops vectorise: NaN wins (a NaN a fails both
      // compares and stays); of equal values the AND of their bits, which
      // makes +0 beat -0.
      T r = b > a ? b : a;
      r = a == b ? BitsAnd(a, b) : r;
      return b != b ? b : r;
    } else {
      bool a_wins = a.real() > b.real() || (a.real() == b.real() && a.imag() > b.imag());
      return a_wins ? a : b;
    }
  }
};
struct Minimum : DefaultOut {
  template <typename T> static constexpr bool supports = kIsBool<T> || kIsNumeric<T>;
  template <typename T> static T Apply(T a, T b) {
    if constexpr (kIsBool<T>) return a && b;
    else if constexpr (kIsInt<T>) return a < b ? a : b;
    else if constexpr (kIsFloat<T>) {
      // As Maximum: the OR of equal values' bits makes -0 beat +0.
      T r = b < a ? b : a;
      r = a == b ? BitsOr(a, b) : r;
      return b != b ? b : r;
    } else {
      bool a_wins = a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
      return a_wins ? a : b;
    }
  }
};

#define XJIT_BITWISE_BINARY(Name, op)                                             \
  struct Name : DefaultOut {                                                      \
    template <typename T> static constexpr bool supports = kIsBool<T> || kIsInt<T>; \
    template <typename T> static T Apply(T a, T b) { return T(a op b); }          \
  };
XJIT_BITWISE_BINARY(And, &)
XJIT_BITWISE_BINARY(Or, |)
XJIT_BITWISE_BINARY(Xor, ^)
#undef XJIT_BITWISE_BINARY

template <typename T> bool ShiftOutOfRange(T amount) {
  if constexpr (kIsSigned<T>) {
    if (amount < 0) return true;
  }
  return static_cast<uint64_t>(amount) >= sizeof(T) * 8;
}
struct ShiftLeft : DefaultOut {
  template <typename T> static constexpr bool supports = kIsInt<T>;
  template <typename T> static T Apply(T a, T b) {
    if (ShiftOutOfRange(b)) return T(0);
    return T(Wrap<T>(std::make_unsigned_t<T>(a)) << b);
  }
};
struct ShiftRightLogical : DefaultOut {
  template <typename T> static constexpr bool supports = kIsInt<T>;
  template <typename T> static T Apply(T a, T b) {
    if (ShiftOutOfRange(b)) return T(0);
    return T(std::make_unsigned_t<T>(a) >> b);
  }
};
// Shifts the bit pattern as a signed value, for unsigned types too.
struct ShiftRightArithmetic : DefaultOut {
  template <typename T> static constexpr bool supports = kIsInt<T>;
  template <typename T> static T Apply(T a, T b) {
    auto s = static_cast<std::make_signed_t<T>>(a);
    if (ShiftOutOfRange(b)) return s < 0 ? T(-1) : T(0);
    return T(s >> b);
  }
};
struct Atan2 : DefaultOut {
  template <typename T> static constexpr bool supports = kIsFloat<T> || kIsComplex<T>;
  template <typename T> static T Apply(T y, T x) {
    if constexpr (kIsComplex<T>) {  // -i * log((x + i*y) / sqrt(x^2 + y^2)), as the reference
      const T i(0, 1);
      return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
    } else {
      return std::atan2(y, x);
    }
  }
};
struct Complex {
  template <typename T> using Out = std::complex<T>;
  template <typename T> static constexpr bool supports =
      std::is_same_v<T, float> || std::is_same_v<T, double>;
  template <typename T> static std::complex<T> Apply(T a, T b) { return {a, b}; }
};

// IEEE totalOrder as a signed integer key: -NaN < -Inf < ... < -0 < +0 < ... < +NaN.
template <typename F> auto TotalOrderKey(F x) {
  using I = std::conditional_t<sizeof(F) == 4, int32_t, int64_t>;
  I bits;
  std::memcpy(&bits, &x, sizeof(F));
  return bits < 0 ? I(bits ^ std::numeric_limits<I>::max()) : bits;
}

// `a dir b` with C++'s operators (IEEE for floats).
template <typename A>
inline bool CompareBy(ComparisonDirection dir, A a, A b) {
  switch (dir) {
    case ComparisonDirection::kEq: return a == b;
    case ComparisonDirection::kNe: return a != b;
    case ComparisonDirection::kGe: return a >= b;
    case ComparisonDirection::kGt: return a > b;
    case ComparisonDirection::kLe: return a <= b;
    case ComparisonDirection::kLt: return a < b;
  }
  return false;
}

template <ComparisonDirection kDir, bool kTotalOrder>
struct Compare {
  template <typename T> using Out = bool;
  template <typename T> static constexpr bool supports = true;
  template <typename A> static bool Ordered(A a, A b) { return CompareBy(kDir, a, b); }
  template <typename T> static bool Apply(T a, T b) {
    if constexpr (kIsComplex<T>) {
      // Lexicographic on (real, imag); EQ/NE compare both parts.
      if (kDir == ComparisonDirection::kEq) return a == b;
      if (kDir == ComparisonDirection::kNe) return a != b;
      if (a.real() != b.real()) return Ordered(a.real(), b.real());
      return Ordered(a.imag(), b.imag());
    } else if constexpr (kIsFloat<T> && kTotalOrder) {
      return Ordered(TotalOrderKey(a), TotalOrderKey(b));
    } else {
      return Ordered(a, b);
    }
  }
};

// ------------------------------------------------------------------ convert

// One element of `convert` from storage type From to storage type To.
template <typename To, typename From>
To ConvertElement(From from) {
  using CF = Compute<From>;
  using CT = Compute<To>;
  CF x = static_cast<CF>(from);
  if constexpr (kIsBool<To>) {
    return x != CF(0);
  } else if constexpr (kIsComplex<CF>) {
    if constexpr (kIsComplex<CT>) {
      return CT(static_cast<typename CT::value_type>(x.real()),
                static_cast<typename CT::value_type>(x.imag()));
    } else {
      return ConvertElement<To>(x.real());  // complex -> real drops imag
    }
  } else if constexpr (kIsComplex<CT>) {
    return CT(static_cast<typename CT::value_type>(x), 0);
  } else if constexpr (kIsFloat<CF> && kIsInt<CT>) {
    // NaN -> 0; out of range saturates; otherwise truncate toward zero.
    if (std::isnan(x)) return To(0);
    if (x <= static_cast<CF>(std::numeric_limits<CT>::min())) return std::numeric_limits<CT>::min();
    if (x >= static_cast<CF>(std::numeric_limits<CT>::max())) return std::numeric_limits<CT>::max();
    return static_cast<CT>(x);
  } else {
    return To(static_cast<CT>(x));
  }
}

}  // namespace xjit::cpu
