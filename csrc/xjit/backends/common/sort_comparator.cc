#include "xjit/backends/common/sort_comparator.h"

#include <cmath>

#include "xjit/ir/dtype_dispatch.h"

namespace xjit::common {
namespace {

// Looks through rank-0 reshapes/broadcasts, which tracing may leave around scalars.
const Instruction* Strip(const Instruction* v) {
  while ((v->opcode() == Opcode::kReshape || v->opcode() == Opcode::kBroadcastInDim) &&
         v->shape().rank() == 0 && v->operand(0)->shape().rank() == 0) {
    v = v->operand(0);
  }
  return v;
}

// The parameter number of `v`, or -1.
int64_t ParameterNumber(const Instruction* v) {
  v = Strip(v);
  return v->opcode() == Opcode::kParameter ? v->attrs<ParameterAttrs>().number : -1;
}

// Whether `v` is a scalar float constant equal to +0.0 (`want_nan` false) or NaN.
bool IsFloatConstant(const Instruction* v, bool want_nan) {
  v = Strip(v);
  if (v->opcode() != Opcode::kConstant || v->shape().rank() != 0 || !IsFloat(v->shape().dtype)) {
    return false;
  }
  bool ok = false;
  DispatchDType(v->shape().dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
      const double x = static_cast<double>(static_cast<float>(
          v->attrs<ConstantAttrs>().value.template data_as<T>()[0]));
      ok = want_nan ? std::isnan(x) : (x == 0 && !std::signbit(x));
    }
  });
  return ok;
}

bool IsCompare(const Instruction* v, ComparisonDirection d) {
  return v->opcode() == Opcode::kCompare && v->attrs<CompareAttrs>().comparison_direction == d;
}

// The parameter x when `v` is JAX's select(x != x, NaN, select(x == 0, 0, x)); else -1.
int64_t CanonicalisedParameter(const Instruction* v) {
  v = Strip(v);
  if (v->opcode() != Opcode::kSelect) return -1;
  const Instruction* is_nan = Strip(v->operand(0));
  if (!IsCompare(is_nan, ComparisonDirection::kNe) || !IsFloatConstant(v->operand(1), true)) {
    return -1;
  }
  const Instruction* inner = Strip(v->operand(2));
  if (inner->opcode() != Opcode::kSelect || !IsFloatConstant(inner->operand(1), false)) return -1;
  const int64_t x = ParameterNumber(inner->operand(2));
  if (x < 0 || ParameterNumber(is_nan->operand(0)) != x ||
      ParameterNumber(is_nan->operand(1)) != x) {
    return -1;
  }
  const Instruction* is_zero = Strip(inner->operand(0));
  if (!IsCompare(is_zero, ComparisonDirection::kEq)) return -1;
  const Instruction* a = is_zero->operand(0);
  const Instruction* b = is_zero->operand(1);
  bool zero_test = (ParameterNumber(a) == x && IsFloatConstant(b, false)) ||
                   (ParameterNumber(b) == x && IsFloatConstant(a, false));
  return zero_test ? x : -1;
}

}  // namespace

std::optional<SimpleSortComparator> RecogniseSortComparator(const Instruction& sort) {
  if (sort.opcode() != Opcode::kSort || sort.called_computations().size() != 1 ||
      sort.operands().empty()) {
    return std::nullopt;
  }
  const DType key = sort.operand(0)->shape().dtype;
  if (IsComplex(key)) return std::nullopt;
  const Computation& cmp = *sort.called_computations()[0];
  if (cmp.results().size() != 1) return std::nullopt;
  const Instruction* root = Strip(cmp.results()[0]);
  if (root->opcode() != Opcode::kCompare) return std::nullopt;
  const CompareAttrs& attrs = root->attrs<CompareAttrs>();
  bool lt = attrs.comparison_direction == ComparisonDirection::kLt;
  bool gt = attrs.comparison_direction == ComparisonDirection::kGt;
  if (!lt && !gt) return std::nullopt;
  SimpleSortComparator out;
  out.compare_type = attrs.compare_type;
  int64_t a = ParameterNumber(root->operand(0)), b = ParameterNumber(root->operand(1));
  if (a >= 0 && b >= 0) {
    out.order = attrs.compare_type == ComparisonType::kTotalOrder ? SortKeyOrder::kTotalOrder
                                                                  : SortKeyOrder::kPlain;
  } else {
    a = CanonicalisedParameter(root->operand(0));
    b = CanonicalisedParameter(root->operand(1));
    if (a < 0 || b < 0 || attrs.compare_type != ComparisonType::kTotalOrder) return std::nullopt;
    out.order = SortKeyOrder::kCanonical;
  }
  // compare(p0, p1, LT) is ascending; swapping the parameters or LT for GT
  // reverses it.
  if (a == 0 && b == 1) {
    out.descending = gt;
  } else if (a == 1 && b == 0) {
    out.descending = lt;
  } else {
    return std::nullopt;
  }
  return out;
}

}  // namespace xjit::common
