// Element-wise binary arithmetic, logic, shifts, atan2 and complex.
// StableHLO has no implicit broadcasting: operands have equal shapes.
#include <cmath>
#include <complex>

#include "xjit/backends/reference/elementwise_util.h"
#include "xjit/backends/reference/ops.h"

namespace xjit::reference {
namespace {

// atan2 extended to complex: -i * log((x + i*y) / sqrt(x^2 + y^2)).
template <typename C>
std::complex<C> ComplexAtan2(std::complex<C> y, std::complex<C> x) {
  const std::complex<C> i(0, 1);
  return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
}

// The spec's remainder formula lhs - d * rhs with d = lhs / rhs rounded
// toward zero, rounding each part of the complex quotient (spec #997 leaves
// complex remainder open).
template <typename C>
std::complex<C> ComplexRemainder(std::complex<C> x, std::complex<C> y) {
  std::complex<C> q = x / y;
  std::complex<C> d(std::trunc(q.real()), std::trunc(q.imag()));
  return x - d * y;
}

template <typename T>
absl::StatusOr<Literal> BinaryTyped(Opcode op, const Literal& a, const Literal& b) {
  using C = ComputeType<T>;
  const DType t = a.shape().dtype;
  auto map = [&](auto fn) { return MapBinary<T, T>(a, b, t, fn); };
  switch (op) {
    case Opcode::kMaximum: return map([](C x, C y) { return Maximum<C>(x, y); });
    case Opcode::kMinimum: return map([](C x, C y) { return Minimum<C>(x, y); });
    XJIT_ELEMENTWISE_UNARY_OPS(XJIT_OPCODE_CASE)
    case Opcode::kAdd: case Opcode::kSubtract: case Opcode::kMultiply: case Opcode::kDivide:
    case Opcode::kRemainder: case Opcode::kPower: case Opcode::kAnd: case Opcode::kOr:
    case Opcode::kXor: case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical: case Opcode::kAtan2: case Opcode::kComplex:
    case Opcode::kCompare:
    XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
    XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
      break;
  }
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case Opcode::kAdd:
      case Opcode::kOr: return map([](bool x, bool y) { return x || y; });
      case Opcode::kMultiply:
      case Opcode::kAnd: return map([](bool x, bool y) { return x && y; });
      case Opcode::kXor: return map([](bool x, bool y) { return x != y; });
      XJIT_ELEMENTWISE_UNARY_OPS(XJIT_OPCODE_CASE)
      case Opcode::kSubtract: case Opcode::kDivide: case Opcode::kRemainder: case Opcode::kPower:
      case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kShiftLeft:
      case Opcode::kShiftRightArithmetic: case Opcode::kShiftRightLogical: case Opcode::kAtan2:
      case Opcode::kComplex: case Opcode::kCompare:
      XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
      XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
        break;
    }
  } else if constexpr (is_int_v<T>) {
    switch (op) {
      case Opcode::kAdd: return map([](T x, T y) { return Add(x, y); });
      case Opcode::kSubtract: return map([](T x, T y) { return Subtract(x, y); });
      case Opcode::kMultiply: return map([](T x, T y) { return Multiply(x, y); });
      case Opcode::kDivide: return map([](T x, T y) { return Divide(x, y); });
      case Opcode::kRemainder: return map([](T x, T y) { return Remainder(x, y); });
      case Opcode::kPower: return map([](T x, T y) { return Power(x, y); });
      case Opcode::kAnd: return map([](T x, T y) { return static_cast<T>(x & y); });
      case Opcode::kOr: return map([](T x, T y) { return static_cast<T>(x | y); });
      case Opcode::kXor: return map([](T x, T y) { return static_cast<T>(x ^ y); });
      case Opcode::kShiftLeft: return map([](T x, T y) { return ShiftLeft(x, y); });
      case Opcode::kShiftRightLogical:
        return map([](T x, T y) { return ShiftRightLogical(x, y); });
      case Opcode::kShiftRightArithmetic:
        return map([](T x, T y) { return ShiftRightArithmetic(x, y); });
      XJIT_ELEMENTWISE_UNARY_OPS(XJIT_OPCODE_CASE)
      case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kAtan2: case Opcode::kComplex:
      case Opcode::kCompare:
      XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
      XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
        break;
    }
  } else {  // real float (computed in C) or complex
    switch (op) {
      case Opcode::kAdd: return map([](C x, C y) { return x + y; });
      case Opcode::kSubtract: return map([](C x, C y) { return x - y; });
      case Opcode::kMultiply: return map([](C x, C y) { return x * y; });
      case Opcode::kDivide: return map([](C x, C y) { return x / y; });
      case Opcode::kPower: return map([](C x, C y) { return std::pow(x, y); });
      XJIT_ELEMENTWISE_UNARY_OPS(XJIT_OPCODE_CASE)
      case Opcode::kRemainder: case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kAnd:
      case Opcode::kOr: case Opcode::kXor: case Opcode::kShiftLeft:
      case Opcode::kShiftRightArithmetic: case Opcode::kShiftRightLogical: case Opcode::kAtan2:
      case Opcode::kComplex: case Opcode::kCompare:
      XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
      XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
        break;
    }
    if constexpr (is_complex_v<T>) {
      if (op == Opcode::kAtan2) return map([](C y, C x) { return ComplexAtan2(y, x); });
      if (op == Opcode::kRemainder) return map([](C x, C y) { return ComplexRemainder(x, y); });
    } else {
      switch (op) {
        case Opcode::kRemainder: return map([](C x, C y) { return std::fmod(x, y); });
        case Opcode::kAtan2: return map([](C y, C x) { return std::atan2(y, x); });
        case Opcode::kComplex: {
          using Z = std::complex<C>;
          if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
            const DType zt = std::is_same_v<T, float> ? DType::kC64 : DType::kC128;
            return MapBinary<Z, T>(a, b, zt, [](C re, C im) { return Z(re, im); });
          }
          break;
        }
        XJIT_ELEMENTWISE_UNARY_OPS(XJIT_OPCODE_CASE)
        case Opcode::kAdd: case Opcode::kSubtract: case Opcode::kMultiply: case Opcode::kDivide:
        case Opcode::kPower: case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kAnd:
        case Opcode::kOr: case Opcode::kXor: case Opcode::kShiftLeft:
        case Opcode::kShiftRightArithmetic: case Opcode::kShiftRightLogical:
        case Opcode::kCompare:
        XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
        XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
          break;
      }
    }
  }
  return UnsupportedType(op, t);
}

}  // namespace

absl::StatusOr<Literal> EvalBinary(Opcode op, const Literal& lhs, const Literal& rhs) {
  if (!IsElementwiseBinary(op) || op == Opcode::kCompare) {
    return absl::InternalError(absl::StrCat("EvalBinary called for ", OpcodeName(op)));
  }
  absl::Status same = CheckSameShape(OpcodeName(op), lhs, rhs);
  if (!same.ok()) return same;
  return DispatchDType(lhs.shape().dtype, [&](auto tag) -> absl::StatusOr<Literal> {
    return BinaryTyped<typename decltype(tag)::type>(op, lhs, rhs);
  });
}

}  // namespace xjit::reference
