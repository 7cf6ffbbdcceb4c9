// The device prelude of every generated CUDA program (ScalarPrelude): the
// per-element rules of docs/semantics.md as CUDA C++, translated from the
// cpu backend's scalar_ops.h and the reference's scalar_semantics.h. Complex
// arithmetic follows C99 Annex G as libgcc and glibc do (what std::complex
// calls on the host), so infinities and NaNs come out as on the cpu.
#include <string>

#include "xjit/backends/cuda/scalar_source.h"

namespace xjit::cuda {
namespace {

constexpr const char kPrelude[] = R"XJIT(
#ifndef XJIT_SCALAR_PRELUDE
#define XJIT_SCALAR_PRELUDE
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define XJIT_DEV __device__ __forceinline__

// ---------------------------------------------------------------- integers
// unsigned_t: the same width unsigned; wrap_t: unsigned of at least 32 bits,
// so arithmetic on narrow types never overflows a promoted signed int.
template <class T> struct xjit_int;
#define XJIT_INT_TRAITS(T, S, U, W, SIGNED)                                   \
  template <> struct xjit_int<T> {                                           \
    typedef S signed_t;                                                      \
    typedef U unsigned_t;                                                    \
    typedef W wrap_t;                                                        \
    static constexpr bool is_signed = SIGNED;                                \
    static constexpr int bits = 8 * sizeof(T);                               \
    static constexpr T kMin = SIGNED ? (T)((U)1 << (8 * sizeof(T) - 1)) : (T)0; \
    static constexpr T kMax = (T)(~(U)kMin);                                 \
  };
XJIT_INT_TRAITS(int8_t, int8_t, uint8_t, uint32_t, true)
XJIT_INT_TRAITS(int16_t, int16_t, uint16_t, uint32_t, true)
XJIT_INT_TRAITS(int32_t, int32_t, uint32_t, uint32_t, true)
XJIT_INT_TRAITS(int64_t, int64_t, uint64_t, uint64_t, true)
XJIT_INT_TRAITS(uint8_t, int8_t, uint8_t, uint32_t, false)
XJIT_INT_TRAITS(uint16_t, int16_t, uint16_t, uint32_t, false)
XJIT_INT_TRAITS(uint32_t, int32_t, uint32_t, uint32_t, false)
XJIT_INT_TRAITS(uint64_t, int64_t, uint64_t, uint64_t, false)
#undef XJIT_INT_TRAITS

// add, subtract, multiply, negate and abs wrap modulo 2^bits.
template <class T> XJIT_DEV T xjit_iadd(T a, T b) {
  typedef typename xjit_int<T>::wrap_t W;
  return (T)(W)((W)a + (W)b);
}
template <class T> XJIT_DEV T xjit_isub(T a, T b) {
  typedef typename xjit_int<T>::wrap_t W;
  return (T)(W)((W)a - (W)b);
}
template <class T> XJIT_DEV T xjit_imul(T a, T b) {
  typedef typename xjit_int<T>::wrap_t W;
  return (T)(W)((W)a * (W)b);
}
template <class T> XJIT_DEV T xjit_ineg(T a) {
  typedef typename xjit_int<T>::wrap_t W;
  return (T)(W)((W)0 - (W)a);
}
template <class T> XJIT_DEV T xjit_iabs(T a) { return a < (T)0 ? xjit_ineg<T>(a) : a; }
template <class T> XJIT_DEV T xjit_isign(T a) { return (T)((a > (T)0) - (a < (T)0)); }
template <class T> XJIT_DEV T xjit_imax(T a, T b) { return a > b ? a : b; }
template <class T> XJIT_DEV T xjit_imin(T a, T b) { return a < b ? a : b; }
// x / 0 is all bits set (-1 signed, the maximum unsigned); INT_MIN / -1 = INT_MIN.
template <class T> XJIT_DEV T xjit_idiv(T a, T b) {
  if (b == (T)0) return (T)-1;
  if (xjit_int<T>::is_signed && a == xjit_int<T>::kMin && b == (T)-1) return a;
  return (T)(a / b);
}
// x % 0 = x; x % -1 = 0 (INT_MIN % -1 included).
template <class T> XJIT_DEV T xjit_irem(T a, T b) {
  if (b == (T)0) return a;
  if (xjit_int<T>::is_signed && b == (T)-1) return (T)0;
  return (T)(a % b);
}
// By squaring with wrap-around; a negative exponent leaves only bases 1, -1.
template <class T> XJIT_DEV T xjit_ipow(T a, T b) {
  typedef typename xjit_int<T>::wrap_t W;
  typedef typename xjit_int<T>::unsigned_t U;
  if (xjit_int<T>::is_signed && b < (T)0) {
    if (a == (T)1) return (T)1;
    if (a == (T)-1) return (b & (T)1) ? (T)-1 : (T)1;
    return (T)0;
  }
  W result = 1, base = (W)a;
  for (U e = (U)b; e != 0; e >>= 1) {
    if (e & 1) result = (W)(result * base);
    base = (W)(base * base);
  }
  return (T)result;
}
// Amounts < 0 (as signed) or >= the bit width shift every bit out.
template <class T> XJIT_DEV bool xjit_shift_out(T n) {
  return (unsigned long long)(long long)n >= (unsigned long long)xjit_int<T>::bits ||
         (xjit_int<T>::is_signed && n < (T)0);
}
template <class T> XJIT_DEV T xjit_shl(T a, T n) {
  typedef typename xjit_int<T>::wrap_t W;
  typedef typename xjit_int<T>::unsigned_t U;
  return xjit_shift_out<T>(n) ? (T)0 : (T)(W)((W)(U)a << (int)n);
}
template <class T> XJIT_DEV T xjit_shr_logical(T a, T n) {
  typedef typename xjit_int<T>::unsigned_t U;
  return xjit_shift_out<T>(n) ? (T)0 : (T)(U)((U)a >> (int)n);
}
// On the bit pattern as a signed value, for unsigned types too.
template <class T> XJIT_DEV T xjit_shr_arithmetic(T a, T n) {
  typedef typename xjit_int<T>::signed_t S;
  S s = (S)a;
  if (xjit_shift_out<T>(n)) return s < (S)0 ? (T)-1 : (T)0;
  return (T)(S)(s >> (int)n);
}
template <class T> XJIT_DEV T xjit_clz(T a) {
  typedef typename xjit_int<T>::unsigned_t U;
  if (xjit_int<T>::bits == 64) return (T)__clzll((long long)(U)a);
  return (T)(__clz((int)(unsigned)(U)a) - (32 - xjit_int<T>::bits));
}
template <class T> XJIT_DEV T xjit_popcnt(T a) {
  typedef typename xjit_int<T>::unsigned_t U;
  if (xjit_int<T>::bits == 64) return (T)__popcll((unsigned long long)(U)a);
  return (T)__popc((unsigned)(U)a);
}

// ---------------------------------------------------------- 16-bit floats
// Bit for bit the cpu's xjit::f16/bf16 (ir/half.h), NaNs included.
XJIT_DEV float xjit_h2f(__half h) {
  unsigned b = __half_as_ushort(h);
  if ((b & 0x7c00u) == 0x7c00u && (b & 0x3ffu) != 0)
    return __uint_as_float(((b & 0x8000u) << 16) | 0x7f800000u | ((b & 0x3ffu) << 13));
  return __half2float(h);
}
XJIT_DEV __half xjit_f2h(float f) {
  unsigned b = __float_as_uint(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return __ushort_as_half((unsigned short)(((b >> 16) & 0x8000u) | 0x7e00u));
  return __float2half_rn(f);
}
XJIT_DEV float xjit_bf2f(__nv_bfloat16 h) {
  return __uint_as_float((unsigned)__bfloat16_as_ushort(h) << 16);
}
XJIT_DEV __nv_bfloat16 xjit_f2bf(float f) {
  unsigned b = __float_as_uint(f);
  if (f != f) return __ushort_as_bfloat16((unsigned short)((b >> 16) | 0x40u));
  b += 0x7fffu + ((b >> 16) & 1u);  // round to nearest even
  return __ushort_as_bfloat16((unsigned short)(b >> 16));
}

// ------------------------------------------------------------ real floats
#define XJIT_MATH1(name)                                         \
  XJIT_DEV float xjit_##name(float x) { return name##f(x); }     \
  XJIT_DEV double xjit_##name(double x) { return name(x); }
#define XJIT_MATH2(name)                                                   \
  XJIT_DEV float xjit_##name(float x, float y) { return name##f(x, y); }   \
  XJIT_DEV double xjit_##name(double x, double y) { return name(x, y); }
XJIT_MATH1(fabs) XJIT_MATH1(trunc) XJIT_MATH1(floor) XJIT_MATH1(ceil) XJIT_MATH1(rint)
XJIT_MATH1(sqrt) XJIT_MATH1(cbrt) XJIT_MATH1(exp) XJIT_MATH1(expm1) XJIT_MATH1(log)
XJIT_MATH1(log1p) XJIT_MATH1(sin) XJIT_MATH1(cos) XJIT_MATH1(tan) XJIT_MATH1(tanh)
XJIT_MATH1(sinh) XJIT_MATH1(cosh) XJIT_MATH1(erf)
XJIT_MATH2(copysign) XJIT_MATH2(atan2) XJIT_MATH2(pow) XJIT_MATH2(fmod) XJIT_MATH2(hypot)
#undef XJIT_MATH1
#undef XJIT_MATH2

XJIT_DEV unsigned xjit_to_bits(float x) { return __float_as_uint(x); }
XJIT_DEV unsigned long long xjit_to_bits(double x) { return (unsigned long long)__double_as_longlong(x); }
XJIT_DEV float xjit_from_bits(unsigned b) { return __uint_as_float(b); }
XJIT_DEV double xjit_from_bits(unsigned long long b) { return __longlong_as_double((long long)b); }
template <class F> XJIT_DEV F xjit_inf() { return (F)__int_as_float(0x7f800000); }
template <class F> XJIT_DEV F xjit_nan() { return (F)__int_as_float(0x7fc00000); }
template <class F> XJIT_DEV bool xjit_isnan(F x) { return x != x; }
template <class F> XJIT_DEV bool xjit_isinf(F x) { return xjit_fabs(x) == xjit_inf<F>(); }
template <class F> XJIT_DEV bool xjit_isfinite(F x) { return xjit_fabs(x) < xjit_inf<F>(); }

// IEEE maximum/minimum as the cpu: a NaN operand wins; of equal values the
// AND (max) or OR (min) of their bits, so +0 beats -0 in max, -0 in min.
template <class F> XJIT_DEV F xjit_fmax(F a, F b) {
  F r = b > a ? b : a;
  r = a == b ? xjit_from_bits(xjit_to_bits(a) & xjit_to_bits(b)) : r;
  return b != b ? b : r;
}
template <class F> XJIT_DEV F xjit_fmin(F a, F b) {
  F r = b < a ? b : a;
  r = a == b ? xjit_from_bits(xjit_to_bits(a) | xjit_to_bits(b)) : r;
  return b != b ? b : r;
}
// NaN -> NaN, +-0 -> +-0, otherwise +-1.
template <class F> XJIT_DEV F xjit_fsign(F x) {
  return (x != x || x == (F)0) ? x : xjit_copysign((F)1, x);
}
// Ties away from zero, keeping the sign of zero (-0.4 -> -0).
template <class F> XJIT_DEV F xjit_round_afz(F x) {
  F t = xjit_trunc(x);
  F r = xjit_fabs(x - t) >= (F)0.5 ? t + xjit_copysign((F)1, x) : t;
  return xjit_copysign(r, x);
}
// rint is ties-to-even on the GPU (no dynamic rounding mode).
template <class F> XJIT_DEV F xjit_round_even(F x) { return xjit_copysign(xjit_rint(x), x); }
template <class F> XJIT_DEV F xjit_rsqrt(F x) { return (F)1 / xjit_sqrt(x); }
template <class F> XJIT_DEV F xjit_logistic(F x) { return (F)1 / ((F)1 + xjit_exp(-x)); }

// IEEE totalOrder as a signed key: -NaN < -Inf < ... < -0 < +0 < ... < +NaN.
// 16-bit floats use their raw bits, as the reference does.
XJIT_DEV int xjit_total_order_key(float x) {
  int b = __float_as_int(x);
  return b < 0 ? b ^ 0x7fffffff : b;
}
XJIT_DEV long long xjit_total_order_key(double x) {
  long long b = __double_as_longlong(x);
  return b < 0 ? b ^ 0x7fffffffffffffffLL : b;
}
XJIT_DEV int xjit_total_order_key16(unsigned short bits) {
  int b = (short)bits;
  return b < 0 ? b ^ 0x7fff : b;
}
XJIT_DEV int xjit_total_order_key(__half x) { return xjit_total_order_key16(__half_as_ushort(x)); }
XJIT_DEV int xjit_total_order_key(__nv_bfloat16 x) { return xjit_total_order_key16(__bfloat16_as_ushort(x)); }

// convert float -> integer: NaN -> 0, out of range saturates, else truncates.
template <class I, class F> XJIT_DEV I xjit_f2i(F x) {
  if (x != x) return (I)0;
  if (x <= (F)xjit_int<I>::kMin) return xjit_int<I>::kMin;
  if (x >= (F)xjit_int<I>::kMax) return xjit_int<I>::kMax;
  return (I)x;
}

// reduce_precision on the bits of a float with kMantissa of kBits mantissa
// bits, as the cpu kernel: round to man_bits (ties to even), then overflow to
// +-inf / flush to +-0 outside an exp_bits exponent range; NaN unchanged.
template <class U, int kBits, int kMantissa>
XJIT_DEV U xjit_reduce_precision(U v, long long exp_bits, long long man_bits) {
  const int kExp = kBits - 1 - kMantissa;
  const U kSignBit = (U)((U)1 << (kBits - 1));
  const U kExpField = (U)((((U)1 << kExp) - 1) << kMantissa);
  if ((v & kExpField) == kExpField && (v & (U) ~(kExpField | kSignBit)) != 0) return v;
  U r = v;
  if (man_bits < kMantissa) {
    const int shift = kMantissa - (int)man_bits;
    const U low_mask = (U)(((U)1 << shift) - 1);
    const U kept_lsb = (U)((r >> shift) & 1);
    r = (U)(r + (low_mask >> 1) + kept_lsb);
    r = (U)(r & (U)~low_mask);
  }
  if (exp_bits < kExp) {
    const long long bias = (1LL << (kExp - 1)) - 1;
    const long long reduced_bias = (1LL << (exp_bits - 1)) - 1;
    const long long e = (long long)((r & kExpField) >> kMantissa) - bias;
    if (e > reduced_bias) {
      r = (U)((r & kSignBit) | kExpField);
    } else if (e <= -reduced_bias) {
      r = (U)(r & kSignBit);
    }
  }
  return r;
}

// ----------------------------------------------------------------- complex
struct __align__(8) xjit_c64 { float re, im; };
struct __align__(16) xjit_c128 { double re, im; };
template <class C> struct xjit_real_of;
template <> struct xjit_real_of<xjit_c64> { typedef float type; };
template <> struct xjit_real_of<xjit_c128> { typedef double type; };
#define XJIT_REAL typename xjit_real_of<C>::type

XJIT_DEV xjit_c64 xjit_to_c64(xjit_c128 z) { return xjit_c64{(float)z.re, (float)z.im}; }
XJIT_DEV xjit_c128 xjit_to_c128(xjit_c64 z) { return xjit_c128{(double)z.re, (double)z.im}; }
template <class C> XJIT_DEV bool xjit_cisnan(C z) { return z.re != z.re || z.im != z.im; }
// convert complex -> pred: true unless both parts are zero (as numpy).
template <class C> XJIT_DEV bool xjit_cnonzero(C z) { return z.re != 0 || z.im != 0; }
template <class C> XJIT_DEV C xjit_cadd(C a, C b) { return C{a.re + b.re, a.im + b.im}; }
template <class C> XJIT_DEV C xjit_csub(C a, C b) { return C{a.re - b.re, a.im - b.im}; }
template <class C> XJIT_DEV C xjit_cneg(C a) { return C{-a.re, -a.im}; }
template <class C> XJIT_DEV XJIT_REAL xjit_cabs(C z) { return xjit_hypot(z.re, z.im); }

// libgcc's __mulsc3: the plain product, infinities recovered from NaN + iNaN.
template <class C> XJIT_DEV C xjit_cmul(C z, C w) {
  typedef XJIT_REAL F;
  F a = z.re, b = z.im, c = w.re, d = w.im;
  F ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  F x = ac - bd, y = ad + bc;
  if (x != x && y != y) {
    bool recalc = false;
    if (xjit_isinf(a) || xjit_isinf(b)) {
      a = xjit_copysign(xjit_isinf(a) ? (F)1 : (F)0, a);
      b = xjit_copysign(xjit_isinf(b) ? (F)1 : (F)0, b);
      if (c != c) c = xjit_copysign((F)0, c);
      if (d != d) d = xjit_copysign((F)0, d);
      recalc = true;
    }
    if (xjit_isinf(c) || xjit_isinf(d)) {
      c = xjit_copysign(xjit_isinf(c) ? (F)1 : (F)0, c);
      d = xjit_copysign(xjit_isinf(d) ? (F)1 : (F)0, d);
      if (a != a) a = xjit_copysign((F)0, a);
      if (b != b) b = xjit_copysign((F)0, b);
      recalc = true;
    }
    if (!recalc && (xjit_isinf(ac) || xjit_isinf(bd) || xjit_isinf(ad) || xjit_isinf(bc))) {
      if (a != a) a = xjit_copysign((F)0, a);
      if (b != b) b = xjit_copysign((F)0, b);
      if (c != c) c = xjit_copysign((F)0, c);
      if (d != d) d = xjit_copysign((F)0, d);
      recalc = true;
    }
    if (recalc) {
      x = xjit_inf<F>() * (a * c - b * d);
      y = xjit_inf<F>() * (a * d + b * c);
    }
  }
  return C{x, y};
}

// libgcc's __divsc3 (Smith's algorithm), with its recovery of infinities and
// zeros that computed as NaN + iNaN.
template <class C> XJIT_DEV C xjit_cdiv(C z, C w) {
  typedef XJIT_REAL F;
  F a = z.re, b = z.im, c = w.re, d = w.im, x, y;
  if (xjit_fabs(c) < xjit_fabs(d)) {
    F ratio = c / d, denom = c * ratio + d;
    x = (a * ratio + b) / denom;
    y = (b * ratio - a) / denom;
  } else {
    F ratio = d / c, denom = d * ratio + c;
    x = (b * ratio + a) / denom;
    y = (b - a * ratio) / denom;
  }
  if (x != x && y != y) {
    if (c == (F)0 && d == (F)0 && (a == a || b == b)) {
      x = xjit_copysign(xjit_inf<F>(), c) * a;
      y = xjit_copysign(xjit_inf<F>(), c) * b;
    } else if ((xjit_isinf(a) || xjit_isinf(b)) && xjit_isfinite(c) && xjit_isfinite(d)) {
      a = xjit_copysign(xjit_isinf(a) ? (F)1 : (F)0, a);
      b = xjit_copysign(xjit_isinf(b) ? (F)1 : (F)0, b);
      x = xjit_inf<F>() * (a * c + b * d);
      y = xjit_inf<F>() * (b * c - a * d);
    } else if ((xjit_isinf(c) || xjit_isinf(d)) && xjit_isfinite(a) && xjit_isfinite(b)) {
      c = xjit_copysign(xjit_isinf(c) ? (F)1 : (F)0, c);
      d = xjit_copysign(xjit_isinf(d) ? (F)1 : (F)0, d);
      x = (F)0 * (a * c + b * d);
      y = (F)0 * (b * c - a * d);
    }
  }
  return C{x, y};
}

// log|z|, accurate near |z| = 1 where log(hypot) cancels: float parts square
// exactly in double; double uses log1p of |z|^2 - 1.
XJIT_DEV float xjit_log_abs(float a, float b) {
  if (xjit_isinf(a) || xjit_isinf(b)) return xjit_inf<float>();
  double a2 = (double)a * a, b2 = (double)b * b, s = a2 + b2;
  return (float)(0.5 * (s > 0.5 && s < 2.0 ? log1p((a2 - 1.0) + b2) : log(s)));
}
XJIT_DEV double xjit_log_abs(double a, double b) {
  double h = hypot(a, b);
  if (!(h > 0.7 && h < 1.5)) return log(h);
  double x = fabs(a), y = fabs(b);
  if (x < y) { double t = x; x = y; y = t; }
  return 0.5 * log1p((x - 1.0) * (x + 1.0) + y * y);
}

// glibc's cexp special cases: a real argument keeps an exact zero imaginary
// part; -inf with a non-finite imaginary part is 0, +inf is (inf, NaN).
template <class C> XJIT_DEV C xjit_cexp(C z) {
  typedef XJIT_REAL F;
  F re = z.re, im = z.im;
  if (im == (F)0) return C{xjit_exp(re), im};
  if (xjit_isinf(re) && !xjit_isfinite(im)) {
    if (re < (F)0) return C{(F)0, (F)0};
    return C{re, im - im};
  }
  F s = xjit_sin(im), c = xjit_cos(im);
  // Near overflow exp(re) alone may be inf while the product is finite.
  if (re > (F)(sizeof(F) == 4 ? 88 : 709)) {
    F h = xjit_exp(re * (F)0.5);
    return C{(h * c) * h, (h * s) * h};
  }
  F e = xjit_exp(re);
  return C{e * c, e * s};
}
template <class C> XJIT_DEV C xjit_clog(C z) {
  return C{xjit_log_abs(z.re, z.im), xjit_atan2(z.im, z.re)};
}
// Principal square root (Annex G's special cases), scaled against overflow.
template <class C> XJIT_DEV C xjit_csqrt(C z) {
  typedef XJIT_REAL F;
  F a = z.re, b = z.im;
  if (xjit_isinf(b)) return C{xjit_inf<F>(), b};
  if (xjit_isinf(a)) {
    if (a > (F)0) return C{a, b != b ? b : xjit_copysign((F)0, b)};
    return C{b != b ? b : (F)0, xjit_copysign(xjit_inf<F>(), b)};
  }
  if (a == (F)0 && b == (F)0) return C{(F)0, b};
  F scale = 1;
  const F big = (F)(sizeof(F) == 4 ? 8.5e37 : 4.4e307);
  if (xjit_fabs(a) > big || xjit_fabs(b) > big) {
    a *= (F)0.25;
    b *= (F)0.25;
    scale = 2;
  }
  F t = xjit_sqrt((xjit_fabs(a) + xjit_hypot(a, b)) * (F)0.5);
  if (a >= (F)0) return C{t * scale, b / (2 * t) * scale};
  return C{xjit_fabs(b) / (2 * t) * scale, xjit_copysign(t, b) * scale};
}
template <class C> XJIT_DEV C xjit_csin(C z) {
  return C{xjit_sin(z.re) * xjit_cosh(z.im), xjit_cos(z.re) * xjit_sinh(z.im)};
}
template <class C> XJIT_DEV C xjit_ccos(C z) {
  return C{xjit_cos(z.re) * xjit_cosh(z.im), -(xjit_sin(z.re) * xjit_sinh(z.im))};
}
// tanh(a + ib) = (sinh a cosh a + i sin b cos b) / (sinh^2 a + cos^2 b); far
// from 0 the real part is +-1 and the imaginary part 4 sin b cos b e^(-2|a|).
template <class C> XJIT_DEV C xjit_ctanh(C z) {
  typedef XJIT_REAL F;
  F a = z.re, b = z.im;
  if (xjit_isinf(a)) return C{xjit_copysign((F)1, a), xjit_copysign((F)0, b)};
  F sb = xjit_sin(b), cb = xjit_cos(b);
  if (xjit_fabs(a) > (F)20) {
    F e = xjit_exp((F)-2 * xjit_fabs(a));
    return C{xjit_copysign((F)1, a), (F)4 * sb * cb * e};
  }
  F sa = xjit_sinh(a), ca = xjit_cosh(a);
  F den = sa * sa + cb * cb;
  return C{sa * ca / den, sb * cb / den};
}
// tan(z) = -i tanh(iz).
template <class C> XJIT_DEV C xjit_ctan(C z) {
  C t = xjit_ctanh(C{-z.im, z.re});
  return C{t.im, -t.re};
}
// glibc's cpow: exp(w * log(z)).
template <class C> XJIT_DEV C xjit_cpow(C z, C w) { return xjit_cexp(xjit_cmul(w, xjit_clog(z))); }
// The principal cube root exp(log(z) / 3); 0 stays 0 (as the reference).
template <class C> XJIT_DEV C xjit_ccbrt(C z) {
  typedef XJIT_REAL F;
  if (z.re == (F)0 && z.im == (F)0) return z;
  C l = xjit_clog(z);
  return xjit_cexp(C{l.re / (F)3, l.im / (F)3});
}
template <class C> XJIT_DEV C xjit_cexpm1(C z) {
  typedef XJIT_REAL F;
  C e = xjit_cexp(z);
  return C{e.re - (F)1, e.im};
}
// log(1 + z) with the complex sum of std::complex: 0 + (-0) is +0.
template <class C> XJIT_DEV C xjit_clog1p(C z) {
  typedef XJIT_REAL F;
  return xjit_clog(C{(F)1 + z.re, (F)0 + z.im});
}
template <class C> XJIT_DEV C xjit_crsqrt(C z) {
  typedef XJIT_REAL F;
  return xjit_cdiv(C{(F)1, (F)0}, xjit_csqrt(z));
}
template <class C> XJIT_DEV C xjit_clogistic(C z) {
  typedef XJIT_REAL F;
  C e = xjit_cexp(xjit_cneg(z));
  return xjit_cdiv(C{(F)1, (F)0}, C{(F)1 + e.re, (F)0 + e.im});
}
// NaN in either part -> (NaN, NaN); 0 -> 0; otherwise z / |z|.
template <class C> XJIT_DEV C xjit_csign(C z) {
  typedef XJIT_REAL F;
  if (xjit_cisnan(z)) return C{xjit_nan<F>(), xjit_nan<F>()};
  if (z.re == (F)0 && z.im == (F)0) return z;
  F h = xjit_cabs(z);
  return C{z.re / h, z.im / h};
}
// atan2(y, x) = -i * log((x + i*y) / sqrt(x*x + y*y)), step by step.
template <class C> XJIT_DEV C xjit_catan2(C y, C x) {
  typedef XJIT_REAL F;
  C iy = xjit_cmul(C{(F)0, (F)1}, y);
  C q = xjit_cdiv(xjit_cadd(x, iy), xjit_csqrt(xjit_cadd(xjit_cmul(x, x), xjit_cmul(y, y))));
  return xjit_cmul(C{-(F)0, (F)-1}, xjit_clog(q));
}
// x - d * y with each part of d = x / y truncated toward zero.
template <class C> XJIT_DEV C xjit_crem(C x, C y) {
  C q = xjit_cdiv(x, y);
  return xjit_csub(x, xjit_cmul(C{xjit_trunc(q.re), xjit_trunc(q.im)}, y));
}
// Lexicographic on (real, imag) with IEEE comparisons of the parts.
template <class C> XJIT_DEV bool xjit_cless(C a, C b) {
  return a.re < b.re || (a.re == b.re && a.im < b.im);
}
template <class C> XJIT_DEV bool xjit_ceq(C a, C b) { return a.re == b.re && a.im == b.im; }
template <class C> XJIT_DEV bool xjit_ccmp_eq(C a, C b) { return xjit_ceq(a, b); }
template <class C> XJIT_DEV bool xjit_ccmp_ne(C a, C b) { return !xjit_ceq(a, b); }
template <class C> XJIT_DEV bool xjit_ccmp_lt(C a, C b) { return xjit_cless(a, b); }
template <class C> XJIT_DEV bool xjit_ccmp_gt(C a, C b) { return xjit_cless(b, a); }
template <class C> XJIT_DEV bool xjit_ccmp_le(C a, C b) { return xjit_cless(a, b) || xjit_ceq(a, b); }
template <class C> XJIT_DEV bool xjit_ccmp_ge(C a, C b) { return xjit_cless(b, a) || xjit_ceq(a, b); }
// Lexicographic maximum/minimum; an operand with a NaN part is returned.
template <class C> XJIT_DEV C xjit_cmax(C a, C b) {
  if (xjit_cisnan(a)) return a;
  if (xjit_cisnan(b)) return b;
  return xjit_cless(a, b) ? b : a;
}
template <class C> XJIT_DEV C xjit_cmin(C a, C b) {
  if (xjit_cisnan(a)) return a;
  if (xjit_cisnan(b)) return b;
  return xjit_cless(b, a) ? b : a;
}
#undef XJIT_REAL
#endif  // XJIT_SCALAR_PRELUDE
)XJIT";

}  // namespace

const std::string& ScalarPrelude() {
  static const std::string* const prelude = new std::string(kPrelude);
  return *prelude;
}

}  // namespace xjit::cuda
