// compare: IEEE quiet comparisons (FLOAT), IEEE totalOrder (TOTALORDER),
// two's-complement or unsigned integer order, lexicographic complex order.
#include "xjit/backends/reference/elementwise_util.h"
#include "xjit/backends/reference/ops.h"

namespace xjit::reference {
namespace {

// Applies `direction` given strict less-than and equality.
template <typename Less, typename Equal>
bool Decide(ComparisonDirection d, Less less, Equal equal) {
  switch (d) {
    case ComparisonDirection::kEq: return equal();
    case ComparisonDirection::kNe: return !equal();
    case ComparisonDirection::kLt: return less(false);
    case ComparisonDirection::kGt: return less(true);
    case ComparisonDirection::kLe: return less(false) || equal();
    case ComparisonDirection::kGe: return less(true) || equal();
  }
  return false;
}

template <typename T, typename Key>
Literal CompareByKey(const Literal& a, const Literal& b, ComparisonDirection d, Key key) {
  Literal out(Shape(DType::kPred, a.shape().dims));
  const T* x = a.data_as<T>();
  const T* y = b.data_as<T>();
  bool* o = out.mutable_data_as<bool>();
  for (int64_t i = 0, n = a.shape().num_elements(); i < n; ++i) {
    auto kx = key(x[i]);
    auto ky = key(y[i]);
    o[i] = Decide(d, [&](bool swap) { return swap ? ky < kx : kx < ky; },
                  [&] { return kx == ky; });
  }
  return out;
}

template <typename T>
absl::StatusOr<Literal> CompareTyped(const Literal& a, const Literal& b, ComparisonDirection d,
                                     ComparisonType type) {
  const DType t = a.shape().dtype;
  if constexpr (is_complex_v<T>) {
    if (type != ComparisonType::kNotype && type != ComparisonType::kFloat) {
      return UnsupportedType(absl::StrCat("compare ", ComparisonTypeName(type)), t);
    }
    Literal out(Shape(DType::kPred, a.shape().dims));
    const T* x = a.data_as<T>();
    const T* y = b.data_as<T>();
    bool* o = out.mutable_data_as<bool>();
    for (int64_t i = 0, n = a.shape().num_elements(); i < n; ++i) {
      const T& p = x[i];
      const T& q = y[i];
      o[i] = Decide(d, [&](bool swap) { return swap ? ComplexLess(q, p) : ComplexLess(p, q); },
                    [&] { return p == q; });
    }
    return out;
  } else if constexpr (is_real_float_v<T>) {
    if (type == ComparisonType::kTotalOrder) {
      return CompareByKey<T>(a, b, d, [](T v) { return TotalOrderKey(v); });
    }
    if (type != ComparisonType::kNotype && type != ComparisonType::kFloat) {
      return UnsupportedType(absl::StrCat("compare ", ComparisonTypeName(type)), t);
    }
    // IEEE quiet predicates: every ordered relation with NaN is false, NE true.
    return CompareByKey<T>(a, b, d, [](T v) { return static_cast<ComputeType<T>>(v); });
  } else {
    // The compare type picks the order of the bit pattern; SIGNED on an
    // unsigned type (or UNSIGNED on a signed one) reinterprets it.
    if (type == ComparisonType::kFloat || type == ComparisonType::kTotalOrder) {
      return UnsupportedType(absl::StrCat("compare ", ComparisonTypeName(type)), t);
    }
    if constexpr (std::is_same_v<T, bool>) {
      return CompareByKey<T>(a, b, d, [](bool v) { return static_cast<int>(v); });
    } else {
      if (type == ComparisonType::kSigned) {
        return CompareByKey<T>(a, b, d, [](T v) { return static_cast<std::make_signed_t<T>>(v); });
      }
      if (type == ComparisonType::kUnsigned) {
        return CompareByKey<T>(a, b, d,
                               [](T v) { return static_cast<std::make_unsigned_t<T>>(v); });
      }
      return CompareByKey<T>(a, b, d, [](T v) { return v; });
    }
  }
}

}  // namespace

absl::StatusOr<Literal> EvalCompare(const Literal& lhs, const Literal& rhs,
                                    ComparisonDirection direction, ComparisonType type) {
  absl::Status same = CheckSameShape("compare", lhs, rhs);
  if (!same.ok()) return same;
  return DispatchDType(lhs.shape().dtype, [&](auto tag) -> absl::StatusOr<Literal> {
    return CompareTyped<typename decltype(tag)::type>(lhs, rhs, direction, type);
  });
}

}  // namespace xjit::reference
