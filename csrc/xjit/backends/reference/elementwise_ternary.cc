// select and clamp. A rank-0 pred (select) or rank-0 bounds (clamp) apply
// to every element.
#include "xjit/backends/reference/elementwise_util.h"
#include "xjit/backends/reference/ops.h"

namespace xjit::reference {
namespace {

// Element i of `l`, or its only element when `l` is a scalar broadcast.
int64_t At(const Literal& l, int64_t i) { return l.shape().rank() == 0 ? 0 : i; }

absl::Status CheckScalarOrSame(absl::string_view op, const Literal& l, const Literal& x) {
  if (l.shape().rank() == 0 || l.shape().dims == x.shape().dims) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("reference backend: ", op, " operand ",
                                                 l.shape().ToString(), " is neither 0-d nor ",
                                                 x.shape().ToString()));
}

}  // namespace

absl::StatusOr<Literal> EvalSelect(const Literal& pred, const Literal& on_true,
                                   const Literal& on_false) {
  if (pred.shape().dtype != DType::kPred) return UnsupportedType("select predicate", pred.shape().dtype);
  absl::Status s = CheckSameShape("select", on_true, on_false);
  if (s.ok()) s = CheckScalarOrSame("select", pred, on_true);
  if (!s.ok()) return s;
  Literal out(on_true.shape());
  const int64_t w = ByteWidth(out.shape().dtype);
  const bool* p = pred.data_as<bool>();
  for (int64_t i = 0, n = out.shape().num_elements(); i < n; ++i) {
    const Literal& src = p[At(pred, i)] ? on_true : on_false;
    std::memcpy(out.mutable_data() + i * w, src.data() + i * w, w);
  }
  return out;
}

// clamp(min, x, max) = minimum(maximum(x, min), max), with maximum/minimum's
// NaN propagation.
absl::StatusOr<Literal> EvalClamp(const Literal& min, const Literal& x, const Literal& max) {
  absl::Status s = CheckScalarOrSame("clamp", min, x);
  if (s.ok()) s = CheckScalarOrSame("clamp", max, x);
  if (s.ok() && (min.shape().dtype != x.shape().dtype || max.shape().dtype != x.shape().dtype)) {
    s = absl::InvalidArgumentError("reference backend: clamp operands differ in element type");
  }
  if (!s.ok()) return s;
  Literal out(x.shape());
  DispatchDType(x.shape().dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = ComputeType<T>;
    const T* lo = min.data_as<T>();
    const T* v = x.data_as<T>();
    const T* hi = max.data_as<T>();
    T* o = out.mutable_data_as<T>();
    for (int64_t i = 0, n = x.shape().num_elements(); i < n; ++i) {
      C raised = Maximum<C>(static_cast<C>(v[i]), static_cast<C>(lo[At(min, i)]));
      o[i] = static_cast<T>(Minimum<C>(raised, static_cast<C>(hi[At(max, i)])));
    }
  });
  return out;
}

}  // namespace xjit::reference
