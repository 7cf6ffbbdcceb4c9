// batch_norm_inference/training/grad as the spec decomposes them (reduce over
// every dimension but feature_index, broadcast, element-wise arithmetic),
// written as plain loops over (outer, feature, inner) positions. Every
// intermediate is a double: the reference is the ground truth the cpu
// backend's f32/bf16/f16 kernels are compared with (docs/semantics.md).
#include <cmath>
#include <vector>

#include "xjit/backends/reference/ops.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::reference {
namespace {

// The operand seen as [outer, features, inner] around feature_index.
struct FeatureView {
  int64_t outer = 1, features = 1, inner = 1;
  FeatureView(const Shape& s, int64_t feature_index) {
    for (int64_t i = 0; i < s.rank(); ++i) {
      if (i < feature_index) outer *= s.dims[i];
      if (i > feature_index) inner *= s.dims[i];
    }
    features = s.dims[feature_index];
  }
  int64_t per_feature() const { return outer * inner; }
  // fn(linear index, feature) over every element.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = 0; c < features; ++c) {
        for (int64_t i = 0; i < inner; ++i) fn((o * features + c) * inner + i, c);
      }
    }
  }
};

std::vector<double> ToDoubles(const Literal& l) {
  std::vector<double> out(l.shape().num_elements());
  DispatchDType(l.shape().dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
      const T* p = l.data_as<T>();
      for (size_t i = 0; i < out.size(); ++i) {
        if constexpr (is_half_v<T>) {
          out[i] = static_cast<float>(p[i]);
        } else {
          out[i] = static_cast<double>(p[i]);
        }
      }
    }
  });
  return out;
}

Literal FromDoubles(DType dtype, std::vector<int64_t> dims, const std::vector<double>& v) {
  Literal out(Shape(dtype, std::move(dims)));
  DispatchDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
      T* p = out.mutable_data_as<T>();
      for (size_t i = 0; i < v.size(); ++i) {
        if constexpr (is_half_v<T>) {
          p[i] = static_cast<T>(static_cast<float>(v[i]));
        } else {
          p[i] = static_cast<T>(v[i]);
        }
      }
    }
  });
  return out;
}

// Sum over every dimension but the feature one: compute_sum of the spec.
std::vector<double> FeatureSums(const FeatureView& g, const std::vector<double>& x) {
  std::vector<double> sums(g.features, 0.0);
  g.ForEach([&](int64_t i, int64_t c) { sums[c] += x[i]; });
  return sums;
}

std::vector<double> FeatureMeans(const FeatureView& g, const std::vector<double>& x) {
  std::vector<double> m = FeatureSums(g, x);
  for (double& v : m) v /= static_cast<double>(g.per_feature());
  return m;
}

std::vector<double> Normalize(const FeatureView& g, const std::vector<double>& x,
                              const std::vector<double>& scale, const std::vector<double>& offset,
                              const std::vector<double>& mean, const std::vector<double>& variance,
                              float epsilon) {
  std::vector<double> y(x.size());
  g.ForEach([&](int64_t i, int64_t c) {
    const double stddev = std::sqrt(variance[c] + static_cast<double>(epsilon));
    y[i] = scale[c] * ((x[i] - mean[c]) / stddev) + offset[c];
  });
  return y;
}

}  // namespace

absl::StatusOr<Literal> EvalBatchNormInference(absl::Span<const Literal* const> in,
                                               const BatchNormAttrs& attrs) {
  const Shape& s = in[0]->shape();
  const FeatureView g(s, attrs.feature_index);
  return FromDoubles(s.dtype, s.dims,
                     Normalize(g, ToDoubles(*in[0]), ToDoubles(*in[1]), ToDoubles(*in[2]),
                               ToDoubles(*in[3]), ToDoubles(*in[4]), attrs.epsilon));
}

absl::StatusOr<std::vector<Literal>> EvalBatchNormTraining(absl::Span<const Literal* const> in,
                                                           const BatchNormAttrs& attrs) {
  const Shape& s = in[0]->shape();
  const FeatureView g(s, attrs.feature_index);
  const std::vector<double> x = ToDoubles(*in[0]);
  const std::vector<double> mean = FeatureMeans(g, x);
  std::vector<double> squares(x.size());
  g.ForEach([&](int64_t i, int64_t c) { squares[i] = (x[i] - mean[c]) * (x[i] - mean[c]); });
  const std::vector<double> variance = FeatureMeans(g, squares);
  std::vector<Literal> out;
  out.push_back(FromDoubles(
      s.dtype, s.dims,
      Normalize(g, x, ToDoubles(*in[1]), ToDoubles(*in[2]), mean, variance, attrs.epsilon)));
  out.push_back(FromDoubles(s.dtype, {g.features}, mean));
  out.push_back(FromDoubles(s.dtype, {g.features}, variance));
  return out;
}

// XLA's batchnorm_expander formulas, as the spec writes them.
absl::StatusOr<std::vector<Literal>> EvalBatchNormGrad(absl::Span<const Literal* const> in,
                                                       const BatchNormAttrs& attrs) {
  const Shape& s = in[0]->shape();
  const FeatureView g(s, attrs.feature_index);
  const std::vector<double> x = ToDoubles(*in[0]), scale = ToDoubles(*in[1]),
                            mean = ToDoubles(*in[2]), variance = ToDoubles(*in[3]),
                            dy = ToDoubles(*in[4]);
  const double n = static_cast<double>(g.per_feature());
  const double eps = attrs.epsilon;
  std::vector<double> dy_centered(x.size()), dy_normalized(x.size());
  g.ForEach([&](int64_t i, int64_t c) {
    dy_centered[i] = dy[i] * (x[i] - mean[c]);
    dy_normalized[i] = dy[i] * ((x[i] - mean[c]) / std::sqrt(variance[c] + eps));
  });
  const std::vector<double> sum_dy = FeatureSums(g, dy);
  const std::vector<double> sum_dy_centered = FeatureSums(g, dy_centered);
  std::vector<double> grad_operand(x.size());
  g.ForEach([&](int64_t i, int64_t c) {
    const double var_eps = variance[c] + eps;
    const double i6 = dy[i] * n - sum_dy[c] - sum_dy_centered[c] * (x[i] - mean[c]) / var_eps;
    grad_operand[i] = scale[c] / std::sqrt(var_eps) / n * i6;
  });
  std::vector<Literal> out;
  out.push_back(FromDoubles(s.dtype, s.dims, grad_operand));
  out.push_back(FromDoubles(s.dtype, {g.features}, FeatureSums(g, dy_normalized)));
  out.push_back(FromDoubles(s.dtype, {g.features}, sum_dy));
  return out;
}

}  // namespace xjit::reference
