#include "xjit/passes/integer_splat_folding.h"

#include <cstring>
#include <type_traits>
#include <vector>

#include "xjit/ir/dtype_dispatch.h"

namespace xjit::passes {
namespace {

// Integer and bool types of whole bytes: the narrow ones (int2, int4, uint2,
// uint4) are stored in a byte but wrap at their own width.
bool FoldsType(DType t) {
  switch (t) {
    case DType::kPred:
    case DType::kS8: case DType::kS16: case DType::kS32: case DType::kS64:
    case DType::kU8: case DType::kU16: case DType::kU32: case DType::kU64:
      return true;
    default:
      return false;
  }
}

// The literal of `v` when every element of it is one value: a constant of
// one repeated element, or a broadcast of one; null otherwise.
const Literal* SplatOf(const Instruction* v) {
  while (v->opcode() == Opcode::kBroadcastInDim) v = v->operand(0);
  if (v->opcode() != Opcode::kConstant) return nullptr;
  const Literal& lit = v->attrs<ConstantAttrs>().value;
  if (lit.shape().is_tuple || lit.shape().num_elements() == 0) return nullptr;
  const int64_t width = ByteWidth(lit.shape().dtype);
  for (int64_t i = 1; i < lit.shape().num_elements(); ++i) {
    if (std::memcmp(lit.data() + i * width, lit.data(), width) != 0) return nullptr;
  }
  return &lit;
}

template <typename T>
T Element(const Literal& lit) {
  T v;
  std::memcpy(&v, lit.data(), sizeof(T));
  return v;
}

template <typename T>
bool Compares(ComparisonDirection d, T a, T b) {
  switch (d) {
    case ComparisonDirection::kEq: return a == b;
    case ComparisonDirection::kNe: return a != b;
    case ComparisonDirection::kLt: return a < b;
    case ComparisonDirection::kLe: return a <= b;
    case ComparisonDirection::kGt: return a > b;
    case ComparisonDirection::kGe: return a >= b;
  }
  return false;
}

// op(a, b) (b unused by unary ops) of bools: StableHLO's i1 arithmetic is
// logical (add is or, multiply is and).
std::optional<bool> BoolOp(Opcode op, bool a, bool b) {
  switch (op) {
    case Opcode::kAnd: case Opcode::kMultiply: case Opcode::kMinimum: return a && b;
    case Opcode::kOr: case Opcode::kAdd: case Opcode::kMaximum: return a || b;
    case Opcode::kXor: return a != b;
    case Opcode::kNot: return !a;
    default: return std::nullopt;
  }
}

// op(a, b) of integers of type T, wrapping as two's complement.
template <typename T>
std::optional<T> IntOp(Opcode op, T a, T b) {
  using U = std::make_unsigned_t<T>;
  const U ua = static_cast<U>(a), ub = static_cast<U>(b);
  switch (op) {
    case Opcode::kAdd: return static_cast<T>(static_cast<U>(ua + ub));
    case Opcode::kSubtract: return static_cast<T>(static_cast<U>(ua - ub));
    case Opcode::kMultiply: return static_cast<T>(static_cast<U>(ua * ub));
    case Opcode::kNegate: return static_cast<T>(static_cast<U>(U(0) - ua));
    case Opcode::kAbs: return a < T(0) ? static_cast<T>(static_cast<U>(U(0) - ua)) : a;
    case Opcode::kSign: return static_cast<T>((a > T(0)) - (a < T(0)));
    case Opcode::kMaximum: return a > b ? a : b;
    case Opcode::kMinimum: return a < b ? a : b;
    case Opcode::kAnd: return static_cast<T>(ua & ub);
    case Opcode::kOr: return static_cast<T>(ua | ub);
    case Opcode::kXor: return static_cast<T>(ua ^ ub);
    case Opcode::kNot: return static_cast<T>(static_cast<U>(~ua));
    default: return std::nullopt;
  }
}

// The value of a convert of `v` (an integer or bool) to `to`; nullopt for
// float or complex targets.
template <typename T>
std::optional<Literal> Converted(T v, DType to) {
  return DispatchDType(to, [&](auto tag) -> std::optional<Literal> {
    using R = typename decltype(tag)::type;
    if constexpr (std::is_same_v<R, bool>) {
      return Literal::Scalar<bool>(to, v != T(0));
    } else if constexpr (std::is_integral_v<R>) {
      return Literal::Scalar<R>(to, static_cast<R>(v));
    } else {
      return std::nullopt;
    }
  });
}

}  // namespace

std::optional<Literal> FoldIntegerSplats(const Instruction& instr,
                                         absl::Span<Instruction* const> operands) {
  const Opcode op = instr.opcode();
  if (!IsElementwise(op) || instr.shape().is_tuple || operands.empty()) return std::nullopt;
  std::vector<const Literal*> values;
  for (const Instruction* o : operands) {
    const Literal* lit = o->shape().is_tuple ? nullptr : SplatOf(o);
    if (lit == nullptr) return std::nullopt;
    values.push_back(lit);
  }
  const DType out = instr.shape().dtype;
  if (op == Opcode::kSelect) {  // picks a value: no arithmetic, any element type
    if (values[0]->shape().dtype != DType::kPred) return std::nullopt;
    return Literal(Shape(out, {}), values[Element<bool>(*values[0]) ? 1 : 2]->data());
  }
  const DType in = operands[0]->shape().dtype;
  if (!FoldsType(in) || !FoldsType(out)) return std::nullopt;
  return DispatchDType(in, [&](auto tag) -> std::optional<Literal> {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_integral_v<T>) {
      return std::nullopt;
    } else {
      const T a = Element<T>(*values[0]);
      const T b = values.size() > 1 ? Element<T>(*values[1]) : T(0);
      if (op == Opcode::kConvert) return Converted(a, out);
      if (op == Opcode::kCompare) {
        return Literal::Scalar<bool>(
            DType::kPred, Compares(instr.attrs<CompareAttrs>().comparison_direction, a, b));
      }
      if (values.size() > 2 || out != in) return std::nullopt;
      if constexpr (std::is_same_v<T, bool>) {
        std::optional<bool> r = BoolOp(op, a, b);
        if (!r) return std::nullopt;
        return Literal::Scalar<bool>(out, *r);
      } else {
        std::optional<T> r = IntOp(op, a, b);
        if (!r) return std::nullopt;
        return Literal::Scalar<T>(out, *r);
      }
    }
  });
}

}  // namespace xjit::passes
