// convolution as the spec defines it, one output element at a time: the
// window of the padded, dilated lhs (zero where it falls into padding or a
// dilation hole; read backwards where window_reversal says so) dotted with
// the kernel over its spatial and input-feature dimensions. Feature groups
// pair input-feature group g with output-feature group g; batch groups pair
// lhs batch group g with output-feature group g (split and concatenate, as
// the spec writes it).
#include "xjit/backends/reference/elementwise_util.h"
#include "xjit/backends/reference/index_util.h"
#include "xjit/backends/reference/ops.h"
#include "xjit/ir/window_attrs.h"

namespace xjit::reference {
namespace {

template <typename T>
void MultiplyAdd(ComputeType<T>& acc, ComputeType<T> a, ComputeType<T> b) {
  if constexpr (std::is_same_v<T, bool>) acc = acc || (a && b);
  else if constexpr (is_int_v<T>) acc = Add(acc, Multiply(a, b));
  else acc += a * b;
}

}  // namespace

absl::StatusOr<Literal> EvalConvolution(const Literal& lhs, const Literal& rhs,
                                        const ConvolutionAttrs& attrs, const Shape& result_shape) {
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  if (ls.dtype != rs.dtype || result_shape.dtype != ls.dtype) {
    return absl::InvalidArgumentError("reference backend: convolution: element types differ");
  }
  const ConvDimensionNumbers& d = attrs.dimension_numbers;
  const std::vector<WindowDimension> window = ConvolutionWindow(attrs, rs);
  const size_t ns = window.size();
  const int64_t batch = ls.dims[d.input_batch_dimension];
  const int64_t kernel_in = rs.dims[d.kernel_input_feature_dimension];
  const int64_t kernel_out = rs.dims[d.kernel_output_feature_dimension];
  const int64_t fgc = attrs.feature_group_count, bgc = attrs.batch_group_count;
  const int64_t out_per_fgroup = kernel_out / fgc, out_per_bgroup = kernel_out / bgc;
  const int64_t batch_per_group = batch / bgc;

  std::vector<int64_t> kernel_window(ns);
  for (size_t i = 0; i < ns; ++i) kernel_window[i] = rs.dims[d.kernel_spatial_dimensions[i]];

  Literal out(result_shape);
  DispatchDType(ls.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = ComputeType<T>;
    const T* a = lhs.data_as<T>();
    const T* b = rhs.data_as<T>();
    T* o = out.mutable_data_as<T>();
    std::vector<int64_t> li(ls.rank()), kj(rs.rank());
    ForEachIndex(result_shape.dims, [&](const std::vector<int64_t>& ri) {
      const int64_t of = ri[d.output_feature_dimension];
      const int64_t fgroup = of / out_per_fgroup;
      const int64_t bgroup = of / out_per_bgroup;
      li[d.input_batch_dimension] = bgroup * batch_per_group + ri[d.output_batch_dimension];
      kj[d.kernel_output_feature_dimension] = of;
      C acc = C(0);
      ForEachIndex(kernel_window, [&](const std::vector<int64_t>& k) {
        for (size_t i = 0; i < ns; ++i) {
          const WindowDimension& w = window[i];
          const int64_t pos = w.reversal ? w.size - 1 - k[i] : k[i];
          const int64_t x = w.BaseIndex(ls.dims[d.input_spatial_dimensions[i]],
                                        ri[d.output_spatial_dimensions[i]], pos);
          if (x < 0) return;
          li[d.input_spatial_dimensions[i]] = x;
          kj[d.kernel_spatial_dimensions[i]] = k[i];
        }
        for (int64_t ci = 0; ci < kernel_in; ++ci) {
          li[d.input_feature_dimension] = fgroup * kernel_in + ci;
          kj[d.kernel_input_feature_dimension] = ci;
          MultiplyAdd<T>(acc, static_cast<C>(a[LinearIndex(li, ls.dims)]),
                         static_cast<C>(b[LinearIndex(kj, rs.dims)]));
        }
      });
      o[LinearIndex(ri, result_shape.dims)] = static_cast<T>(acc);
    });
  });
  return out;
}

}  // namespace xjit::reference
