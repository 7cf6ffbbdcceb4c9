// convert: any element type to any other, per ConvertElement's rules.
#include "xjit/backends/reference/elementwise_util.h"
#include "xjit/backends/reference/ops.h"
#include "xjit/ir/narrow_convert.h"

namespace xjit::reference {

absl::StatusOr<Literal> EvalConvert(const Literal& x, DType to) {
  Literal out(Shape(to, x.shape().dims));
  const int64_t n = x.shape().num_elements();
  if (IsDirectNarrowConvert(x.shape().dtype, to)) {
    ConvertNarrowElements(x.shape().dtype, to, x.data(), out.mutable_data(), n);
    return out;
  }
  if (IsNarrow(x.shape().dtype) || IsNarrow(to)) {
    return absl::InternalError(absl::StrCat("convert from ", StableHloName(x.shape().dtype), " to ",
                                            StableHloName(to), " reached the reference backend"));
  }
  DispatchDType(x.shape().dtype, [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    DispatchDType(to, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      const From* in = x.data_as<From>();
      To* o = out.mutable_data_as<To>();
      for (int64_t i = 0; i < n; ++i) o[i] = ConvertElement<To, From>(in[i]);
    });
  });
  return out;
}

}  // namespace xjit::reference
