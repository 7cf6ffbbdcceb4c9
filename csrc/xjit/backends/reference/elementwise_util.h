// Shared loops and errors of the element-wise reference kernels.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xjit/backends/reference/scalar_semantics.h"
#include "xjit/ir/literal.h"
#include "xjit/ir/opcode.h"

namespace xjit::reference {

inline absl::Status UnsupportedType(absl::string_view op, DType t) {
  return absl::InvalidArgumentError(
      absl::StrCat("reference backend: ", op, " does not accept element type ", StableHloName(t)));
}
inline absl::Status UnsupportedType(Opcode op, DType t) { return UnsupportedType(OpcodeName(op), t); }

inline absl::Status CheckSameShape(absl::string_view op, const Literal& a, const Literal& b) {
  if (a.shape() == b.shape()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("reference backend: ", op, " operands differ: ",
                                                 a.shape().ToString(), " vs ",
                                                 b.shape().ToString()));
}

// out[i] = fn(x[i]) computed in ComputeType<In> (float for f16/bf16).
template <typename Out, typename In, typename Fn>
Literal MapUnary(const Literal& x, DType out_dtype, Fn&& fn) {
  Literal out(Shape(out_dtype, x.shape().dims));
  const In* in = x.data_as<In>();
  Out* o = out.mutable_data_as<Out>();
  const int64_t n = x.shape().num_elements();
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<Out>(fn(static_cast<ComputeType<In>>(in[i])));
  return out;
}

// out[i] = fn(a[i], b[i]); a and b have the same shape.
template <typename Out, typename In, typename Fn>
Literal MapBinary(const Literal& a, const Literal& b, DType out_dtype, Fn&& fn) {
  Literal out(Shape(out_dtype, a.shape().dims));
  const In* x = a.data_as<In>();
  const In* y = b.data_as<In>();
  Out* o = out.mutable_data_as<Out>();
  const int64_t n = a.shape().num_elements();
  for (int64_t i = 0; i < n; ++i) {
    o[i] = static_cast<Out>(fn(static_cast<ComputeType<In>>(x[i]), static_cast<ComputeType<In>>(y[i])));
  }
  return out;
}

}  // namespace xjit::reference
