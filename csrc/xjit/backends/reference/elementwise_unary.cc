// Element-wise unary ops (everything except convert, see convert.cc).
#include <cmath>
#include <complex>

#include "xjit/backends/reference/elementwise_util.h"
#include "xjit/backends/reference/ops.h"

namespace xjit::reference {
namespace {

template <typename C>
std::complex<C> ComplexCbrt(std::complex<C> z) {
  if (z == std::complex<C>(0)) return z;
  return std::exp(std::log(z) / C(3));  // principal cube root
}

template <typename C>
std::complex<C> ComplexSign(std::complex<C> z) {
  if (HasNaN(z)) {
    C nan = std::numeric_limits<C>::quiet_NaN();
    return {nan, nan};
  }
  if (z == std::complex<C>(0)) return z;
  return z / std::abs(z);
}

// Ops shared by real floats (computed in C = float/double) and complex.
template <typename T, typename C>
bool FloatOrComplexMath(Opcode op, const Literal& x, DType t, Literal* out) {
  auto map = [&](auto fn) { *out = MapUnary<T, T>(x, t, fn); return true; };
  switch (op) {
    case Opcode::kCosine: return map([](C v) { return std::cos(v); });
    case Opcode::kSine: return map([](C v) { return std::sin(v); });
    case Opcode::kTan: return map([](C v) { return std::tan(v); });
    case Opcode::kTanh: return map([](C v) { return std::tanh(v); });
    case Opcode::kExponential: return map([](C v) { return std::exp(v); });
    case Opcode::kLog: return map([](C v) { return std::log(v); });
    case Opcode::kSqrt: return map([](C v) { return std::sqrt(v); });
    case Opcode::kRsqrt: return map([](C v) { return C(1) / std::sqrt(v); });
    case Opcode::kLogistic: return map([](C v) { return C(1) / (C(1) + std::exp(-v)); });
    case Opcode::kNegate: return map([](C v) { return -v; });
    case Opcode::kAbs: case Opcode::kCbrt: case Opcode::kCeil: case Opcode::kCountLeadingZeros:
    case Opcode::kErf: case Opcode::kExponentialMinusOne: case Opcode::kFloor:
    case Opcode::kImag: case Opcode::kIsFinite: case Opcode::kLogPlusOne: case Opcode::kNot:
    case Opcode::kPopcnt: case Opcode::kReal: case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven: case Opcode::kSign: case Opcode::kConvert:
    case Opcode::kReducePrecision:
    XJIT_ELEMENTWISE_BINARY_OPS(XJIT_OPCODE_CASE)
    XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
    XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
      break;
  }
  return false;
}

template <typename T>
absl::StatusOr<Literal> UnaryTyped(Opcode op, const Literal& x) {
  using C = ComputeType<T>;
  const DType t = x.shape().dtype;
  Literal out;
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    const DType rt = ComplexComponent(t);
    if (FloatOrComplexMath<T, C>(op, x, t, &out)) return out;
    switch (op) {
      case Opcode::kAbs: return MapUnary<R, T>(x, rt, [](C v) { return std::abs(v); });
      case Opcode::kReal: return MapUnary<R, T>(x, rt, [](C v) { return v.real(); });
      case Opcode::kImag: return MapUnary<R, T>(x, rt, [](C v) { return v.imag(); });
      case Opcode::kCbrt: return MapUnary<T, T>(x, t, [](C v) { return ComplexCbrt(v); });
      case Opcode::kExponentialMinusOne:
        return MapUnary<T, T>(x, t, [](C v) { return std::exp(v) - C(1); });
      case Opcode::kLogPlusOne:
        return MapUnary<T, T>(x, t, [](C v) { return std::log(C(1) + v); });
      case Opcode::kSign: return MapUnary<T, T>(x, t, [](C v) { return ComplexSign(v); });
      case Opcode::kCeil: case Opcode::kCosine: case Opcode::kCountLeadingZeros:
      case Opcode::kErf: case Opcode::kExponential: case Opcode::kFloor: case Opcode::kIsFinite:
      case Opcode::kLog: case Opcode::kLogistic: case Opcode::kNegate: case Opcode::kNot:
      case Opcode::kPopcnt: case Opcode::kRoundNearestAfz: case Opcode::kRoundNearestEven:
      case Opcode::kRsqrt: case Opcode::kSine: case Opcode::kSqrt: case Opcode::kTan:
      case Opcode::kTanh: case Opcode::kConvert: case Opcode::kReducePrecision:
      XJIT_ELEMENTWISE_BINARY_OPS(XJIT_OPCODE_CASE)
      XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
      XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
        break;
    }
  } else if constexpr (is_real_float_v<T>) {
    if (FloatOrComplexMath<T, C>(op, x, t, &out)) return out;
    auto map = [&](auto fn) { return MapUnary<T, T>(x, t, fn); };
    switch (op) {
      case Opcode::kAbs: return map([](C v) { return std::fabs(v); });
      case Opcode::kCbrt: return map([](C v) { return std::cbrt(v); });
      case Opcode::kCeil: return map([](C v) { return std::ceil(v); });
      case Opcode::kFloor: return map([](C v) { return std::floor(v); });
      case Opcode::kErf: return map([](C v) { return std::erf(v); });
      case Opcode::kExponentialMinusOne: return map([](C v) { return std::expm1(v); });
      case Opcode::kLogPlusOne: return map([](C v) { return std::log1p(v); });
      case Opcode::kRoundNearestAfz: return map([](C v) { return std::round(v); });
      case Opcode::kRoundNearestEven: return map([](C v) { return RoundNearestEven(v); });
      case Opcode::kSign: return map([](C v) { return Sign(v); });
      case Opcode::kReal: return map([](C v) { return v; });
      case Opcode::kImag: return map([](C v) { return C(0); });
      case Opcode::kIsFinite:
        return MapUnary<bool, T>(x, DType::kPred, [](C v) { return std::isfinite(v); });
      case Opcode::kCosine: case Opcode::kCountLeadingZeros: case Opcode::kExponential:
      case Opcode::kLog: case Opcode::kLogistic: case Opcode::kNegate: case Opcode::kNot:
      case Opcode::kPopcnt: case Opcode::kRsqrt: case Opcode::kSine: case Opcode::kSqrt:
      case Opcode::kTan: case Opcode::kTanh: case Opcode::kConvert: case Opcode::kReducePrecision:
      XJIT_ELEMENTWISE_BINARY_OPS(XJIT_OPCODE_CASE)
      XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
      XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
        break;
    }
  } else if constexpr (is_int_v<T>) {
    auto map = [&](auto fn) { return MapUnary<T, T>(x, t, fn); };
    switch (op) {
      case Opcode::kAbs: return map([](T v) { return Abs(v); });
      case Opcode::kNegate: return map([](T v) { return Negate(v); });
      case Opcode::kNot: return map([](T v) { return static_cast<T>(~v); });
      case Opcode::kSign:
        return map([](T v) { return static_cast<T>((v > 0) - (v < 0)); });
      case Opcode::kCountLeadingZeros:
        return map([](T v) { return static_cast<T>(CountLeadingZeros(v)); });
      case Opcode::kPopcnt: return map([](T v) { return static_cast<T>(Popcnt(v)); });
      case Opcode::kCbrt: case Opcode::kCeil: case Opcode::kCosine: case Opcode::kErf:
      case Opcode::kExponential: case Opcode::kExponentialMinusOne: case Opcode::kFloor:
      case Opcode::kImag: case Opcode::kIsFinite: case Opcode::kLog: case Opcode::kLogPlusOne:
      case Opcode::kLogistic: case Opcode::kReal: case Opcode::kRoundNearestAfz:
      case Opcode::kRoundNearestEven: case Opcode::kRsqrt: case Opcode::kSine:
      case Opcode::kSqrt: case Opcode::kTan: case Opcode::kTanh: case Opcode::kConvert:
      case Opcode::kReducePrecision:
      XJIT_ELEMENTWISE_BINARY_OPS(XJIT_OPCODE_CASE)
      XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
      XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
        break;
    }
  } else {  // pred
    if (op == Opcode::kNot) return MapUnary<bool, bool>(x, t, [](bool v) { return !v; });
  }
  return UnsupportedType(op, t);
}

}  // namespace

absl::StatusOr<Literal> EvalUnary(Opcode op, const Literal& x) {
  if (!IsElementwiseUnary(op) || op == Opcode::kConvert) {
    return absl::InternalError(absl::StrCat("EvalUnary called for ", OpcodeName(op)));
  }
  return DispatchDType(x.shape().dtype, [&](auto tag) -> absl::StatusOr<Literal> {
    return UnaryTyped<typename decltype(tag)::type>(op, x);
  });
}

}  // namespace xjit::reference
