// Element-wise ops: the result has the operands' dims; each op accepts only
// the element types StableHLO defines it for. No implicit broadcasting: the
// tracer inserts broadcast_in_dim explicitly.
#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit {
namespace shape_inference {
namespace {

// Element-type classes an op may accept, combined as a bit set.
enum TypeClass : unsigned {
  kPredT = 1,
  kSignedT = 2,
  kUnsignedT = 4,
  kFloatT = 8,
  kComplexT = 16,
  kIntT = kSignedT | kUnsignedT,
  kAnyT = kPredT | kIntT | kFloatT | kComplexT,
};

bool Accepts(unsigned classes, DType t) {
  if (IsPred(t)) return classes & kPredT;
  if (IsSignedInt(t)) return classes & kSignedT;
  if (IsUnsignedInt(t)) return classes & kUnsignedT;
  if (IsFloat(t)) return classes & kFloatT;
  return classes & kComplexT;
}

std::string Describe(unsigned classes) {
  std::vector<std::string> parts;
  if (classes & kPredT) parts.push_back("pred");
  if ((classes & kIntT) == kIntT) {
    parts.push_back("integer");
  } else if (classes & kSignedT) {
    parts.push_back("signed integer");
  } else if (classes & kUnsignedT) {
    parts.push_back("unsigned integer");
  }
  if (classes & kFloatT) parts.push_back("floating-point");
  if (classes & kComplexT) parts.push_back("complex");
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += (i + 1 == parts.size()) ? " or " : ", ";
    out += parts[i];
  }
  return out;
}

unsigned UnaryClasses(Opcode op) {
  switch (op) {
    case Opcode::kAbs:
    case Opcode::kSign:
      return kSignedT | kFloatT | kComplexT;
    case Opcode::kCeil:
    case Opcode::kFloor:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kErf:
    case Opcode::kIsFinite:
    case Opcode::kReducePrecision:
      return kFloatT;
    case Opcode::kNegate:
      return kIntT | kFloatT | kComplexT;
    case Opcode::kNot:
      return kPredT | kIntT;
    case Opcode::kPopcnt:
    case Opcode::kCountLeadingZeros:
      return kIntT;
    case Opcode::kConvert:
      return kAnyT;
    case Opcode::kCbrt:
    case Opcode::kCosine:
    case Opcode::kExponential:
    case Opcode::kExponentialMinusOne:
    case Opcode::kImag:
    case Opcode::kLog:
    case Opcode::kLogPlusOne:
    case Opcode::kLogistic:
    case Opcode::kReal:
    case Opcode::kRsqrt:
    case Opcode::kSine:
    case Opcode::kSqrt:
    case Opcode::kTan:
    case Opcode::kTanh:
      return kFloatT | kComplexT;
    XJIT_ELEMENTWISE_BINARY_OPS(XJIT_OPCODE_CASE)
    XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
    XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
      break;  // not unary
  }
  return kAnyT;
}

unsigned BinaryClasses(Opcode op) {
  switch (op) {
    case Opcode::kAdd:
    case Opcode::kMultiply:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kCompare:
      return kAnyT;
    case Opcode::kSubtract:
    case Opcode::kDivide:
    case Opcode::kRemainder:
    case Opcode::kPower:
      return kIntT | kFloatT | kComplexT;
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
      return kPredT | kIntT;
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
      return kIntT;
    case Opcode::kAtan2:
      return kFloatT | kComplexT;
    case Opcode::kComplex:
      return kFloatT;  // narrowed to f32/f64 below
    XJIT_ELEMENTWISE_UNARY_OPS(XJIT_OPCODE_CASE)
    XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
    XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
      break;  // not binary
  }
  return kAnyT;
}

absl::Status CheckElementType(Opcode op, unsigned classes, const Shape& s) {
  if (Accepts(classes, s.dtype)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), ": expected ", Describe(classes),
                                                 " element type, got ", s.ToString()));
}

// Which compare_type values are meaningful for an element type.
bool CompareTypeFits(ComparisonType ct, DType t) {
  switch (ct) {
    case ComparisonType::kNotype:
      return true;
    case ComparisonType::kSigned:
      return IsSignedInt(t);
    case ComparisonType::kUnsigned:
      return IsUnsignedInt(t) || IsPred(t);
    case ComparisonType::kFloat:
      return IsFloat(t) || IsComplex(t);
    case ComparisonType::kTotalOrder:
      return IsFloat(t);
  }
  return false;
}

}  // namespace

absl::StatusOr<Shape> InferElementwiseUnary(Opcode op, const Shape& x, const Shape* declared) {
  if (absl::Status s = CheckElementType(op, UnaryClasses(op), x); !s.ok()) return s;
  switch (op) {
    case Opcode::kAbs:
    case Opcode::kReal:
    case Opcode::kImag:
      return Shape(ComplexComponent(x.dtype), x.dims);
    case Opcode::kIsFinite:
      return Shape(DType::kPred, x.dims);
    case Opcode::kConvert: {
      if (declared == nullptr || declared->is_tuple) {
        return absl::InvalidArgumentError(
            absl::StrCat("convert: missing result element type for operand ", x.ToString()));
      }
      const Shape& want = *declared;
      // Empty dims mean "only the element type was given" (rank-0 is the same either way).
      if (!want.dims.empty() && want.dims != x.dims) {
        return absl::InvalidArgumentError(absl::StrCat("convert: result shape ", want.ToString(),
                                                       " must have the dims of the operand ",
                                                       x.ToString()));
      }
      return Shape(want.dtype, x.dims);
    }
    case Opcode::kCbrt:
    case Opcode::kCeil:
    case Opcode::kCosine:
    case Opcode::kCountLeadingZeros:
    case Opcode::kErf:
    case Opcode::kExponential:
    case Opcode::kExponentialMinusOne:
    case Opcode::kFloor:
    case Opcode::kLog:
    case Opcode::kLogPlusOne:
    case Opcode::kLogistic:
    case Opcode::kNegate:
    case Opcode::kNot:
    case Opcode::kPopcnt:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kRsqrt:
    case Opcode::kSign:
    case Opcode::kSine:
    case Opcode::kSqrt:
    case Opcode::kTan:
    case Opcode::kTanh:
    case Opcode::kReducePrecision:  // InferReducePrecision checks its attributes
    XJIT_ELEMENTWISE_BINARY_OPS(XJIT_OPCODE_CASE)
    XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
    XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
      break;
  }
  return x;
}

absl::StatusOr<Shape> InferElementwiseBinary(Opcode op, const Shape& lhs, const Shape& rhs,
                                             const Attributes& attrs) {
  if (lhs != rhs) {
    return absl::InvalidArgumentError(
        absl::StrCat(OpcodeName(op), ": operands must have the same shape and element type, got ",
                     lhs.ToString(), " and ", rhs.ToString()));
  }
  if (absl::Status s = CheckElementType(op, BinaryClasses(op), lhs); !s.ok()) return s;
  switch (op) {
    case Opcode::kComplex:
      if (lhs.dtype == DType::kF32) return Shape(DType::kC64, lhs.dims);
      if (lhs.dtype == DType::kF64) return Shape(DType::kC128, lhs.dims);
      return absl::InvalidArgumentError(
          absl::StrCat("complex: expected f32 or f64 operands, got ", lhs.ToString()));
    case Opcode::kCompare: {
      ComparisonType type = attrs.get<CompareAttrs>().compare_type;
      if (!CompareTypeFits(type, lhs.dtype)) {
        return absl::InvalidArgumentError(absl::StrCat("compare: compare_type ",
                                                       ComparisonTypeName(type),
                                                       " does not fit element type of ",
                                                       lhs.ToString()));
      }
      return Shape(DType::kPred, lhs.dims);
    }
    case Opcode::kAdd:
    case Opcode::kSubtract:
    case Opcode::kMultiply:
    case Opcode::kDivide:
    case Opcode::kRemainder:
    case Opcode::kPower:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kAtan2:
    XJIT_ELEMENTWISE_UNARY_OPS(XJIT_OPCODE_CASE)
    XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
    XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
      break;
  }
  return lhs;
}

absl::StatusOr<Shape> InferSelect(const Shape& pred, const Shape& on_true, const Shape& on_false) {
  if (on_true != on_false) {
    return absl::InvalidArgumentError(
        absl::StrCat("select: on_true and on_false must have the same shape and element type, got ",
                     on_true.ToString(), " and ", on_false.ToString()));
  }
  if (!IsPred(pred.dtype) || (pred.rank() != 0 && pred.dims != on_true.dims)) {
    return absl::InvalidArgumentError(
        absl::StrCat("select: pred must be a pred scalar or a pred array with the dims of on_true ",
                     on_true.ToString(), ", got ", pred.ToString()));
  }
  return on_true;
}

absl::StatusOr<Shape> InferClamp(const Shape& min, const Shape& operand, const Shape& max) {
  for (const Shape* bound : {&min, &max}) {
    bool ok = bound->dtype == operand.dtype && (bound->rank() == 0 || bound->dims == operand.dims);
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("clamp: min and max must be scalars or have the shape of the operand ",
                       operand.ToString(), " with the same element type, got min ", min.ToString(),
                       " and max ", max.ToString()));
    }
  }
  return operand;
}

}  // namespace shape_inference
}  // namespace xjit
