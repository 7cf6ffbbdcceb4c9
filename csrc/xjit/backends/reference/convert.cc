// convert: any element type to any other, per ConvertElement's rules.
#include "xjit/backends/reference/elementwise_util.h"
#include "xjit/backends/reference/ops.h"

namespace xjit::reference {

absl::StatusOr<Literal> EvalConvert(const Literal& x, DType to) {
  Literal out(Shape(to, x.shape().dims));
  const int64_t n = x.shape().num_elements();
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
