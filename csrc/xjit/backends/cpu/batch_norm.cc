#include "xjit/backends/cpu/batch_norm.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "dnnl.hpp"
#include "xjit/backends/cpu/onednn.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::cpu {
namespace {

// The operand as [outer, features, inner] around feature_index.
struct BnGeometry {
  int64_t outer = 1, features = 1, inner = 1;
  float epsilon = 0;
  int64_t elements() const { return outer * features * inner; }
  int64_t per_feature() const { return outer * inner; }
};

BnGeometry MakeGeometry(const Instruction& instr) {
  const BatchNormAttrs& a = instr.attrs<BatchNormAttrs>();
  const Shape& s = instr.operand(0)->shape();
  BnGeometry g;
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (i < a.feature_index) g.outer *= s.dims[i];
    if (i > a.feature_index) g.inner *= s.dims[i];
  }
  g.features = s.dims[a.feature_index];
  g.epsilon = a.epsilon;
  return g;
}

// Work is split into chunks of whole outer slices, or of inner ranges when
// there are few outer slices (feature_index 0); each chunk walks its rows
// (o, c) as contiguous runs of `inner` elements.
struct Chunks {
  int64_t count = 1;
  bool by_outer = true;
  explicit Chunks(const BnGeometry& g) {
    constexpr int64_t kMax = 64;
    if (g.outer >= 16 || g.inner < 2048) {
      by_outer = true;
      count = std::clamp<int64_t>(g.outer, 1, kMax);
    } else {
      by_outer = false;
      count = std::clamp<int64_t>(g.inner / 1024, 1, kMax);
    }
  }
  // fn(base element index, feature, run length) for each run of chunk k.
  template <typename Fn>
  void ForEachRun(const BnGeometry& g, int64_t k, const Fn& fn) const {
    int64_t o0 = 0, o1 = g.outer, i0 = 0, i1 = g.inner;
    if (by_outer) {
      o0 = g.outer * k / count;
      o1 = g.outer * (k + 1) / count;
    } else {
      i0 = g.inner * k / count;
      i1 = g.inner * (k + 1) / count;
    }
    for (int64_t o = o0; o < o1; ++o) {
      for (int64_t c = 0; c < g.features; ++c) fn((o * g.features + c) * g.inner + i0, c, i1 - i0);
    }
  }
};

template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

// sums[s * features + c] = the sum over feature c's elements i of
// term(i, c)[s] (a std::array<Acc<T>, NS>). Partial sums are kept in Acc<T>
// over short stretches, in independent lanes so the loops vectorise (one
// running sum is a dependency chain the compiler may not reorder), and
// added up in double.
template <typename T, int NS, typename Term>
void FeatureSums(const BnGeometry& g, const Term& term, double* sums) {
  using C = Acc<T>;
  constexpr int kLanes = 16;
  constexpr int64_t kRowsPerFlush = 256;
  const int64_t nf = g.features;
  const Chunks chunks(g);
  std::vector<double> partial(chunks.count * NS * nf, 0.0);
  ParallelFor(chunks.count, 1, g.elements(), [&](int64_t begin, int64_t end) {
    std::vector<C> acc(g.inner == 1 ? NS * nf : 0);
    for (int64_t k = begin; k < end; ++k) {
      double* p = partial.data() + k * NS * nf;
      if (g.inner == 1) {  // feature last: vectorised across the features of a row
        const int64_t o0 = g.outer * k / chunks.count, o1 = g.outer * (k + 1) / chunks.count;
        for (int64_t o = o0; o < o1; o += kRowsPerFlush) {
          std::fill(acc.begin(), acc.end(), C(0));
          for (int64_t r = o; r < std::min(o1, o + kRowsPerFlush); ++r) {
            for (int64_t c = 0; c < nf; ++c) {
              const std::array<C, NS> v = term(r * nf + c, c);
              for (int s = 0; s < NS; ++s) acc[s * nf + c] += v[s];
            }
          }
          for (int64_t j = 0; j < NS * nf; ++j) p[j] += acc[j];
        }
        continue;
      }
      chunks.ForEachRun(g, k, [&](int64_t base, int64_t c, int64_t n) {
        C lanes[NS][kLanes] = {};
        double total[NS] = {};
        int64_t i = 0;
        for (; i + kLanes <= n; i += kLanes) {
          for (int j = 0; j < kLanes; ++j) {
            const std::array<C, NS> v = term(base + i + j, c);
            for (int s = 0; s < NS; ++s) lanes[s][j] += v[s];
          }
        }
        for (; i < n; ++i) {
          const std::array<C, NS> v = term(base + i, c);
          for (int s = 0; s < NS; ++s) total[s] += v[s];
        }
        for (int s = 0; s < NS; ++s) {
          for (int j = 0; j < kLanes; ++j) total[s] += lanes[s][j];
          p[s * nf + c] += total[s];
        }
      });
    }
  });
  std::fill(sums, sums + NS * nf, 0.0);
  for (int64_t k = 0; k < chunks.count; ++k) {
    for (int64_t j = 0; j < NS * nf; ++j) sums[j] += partial[k * NS * nf + j];
  }
}

// fn(i, c) for every element i (of feature c), in parallel.
template <typename Fn>
void ForEachElementParallel(const BnGeometry& g, const Fn& fn) {
  const Chunks chunks(g);
  ParallelFor(chunks.count, 1, g.elements(), [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      chunks.ForEachRun(g, k, [&](int64_t base, int64_t c, int64_t n) {
        for (int64_t i = base; i < base + n; ++i) fn(i, c);
      });
    }
  });
}

// A per-feature vector operand as doubles.
template <typename T>
std::vector<double> Vector(const BnGeometry& g, void* const* buffers, SlotId slot) {
  const T* p = static_cast<const T*>(buffers[slot]);
  std::vector<double> v(g.features);
  for (int64_t i = 0; i < g.features; ++i) v[i] = static_cast<double>(static_cast<Acc<T>>(p[i]));
  return v;
}

// out = (x - mean) * a + offset with per-feature a = scale / sqrt(variance + epsilon).
template <typename T>
void Normalize(const BnGeometry& g, const T* x, const std::vector<double>& scale,
               const std::vector<double>& offset, const std::vector<double>& mean,
               const std::vector<double>& variance, T* out) {
  using C = Acc<T>;
  std::vector<C> a(g.features), b(offset.begin(), offset.end()), m(mean.begin(), mean.end());
  for (int64_t c = 0; c < g.features; ++c) {
    a[c] = static_cast<C>(scale[c] / std::sqrt(variance[c] + static_cast<double>(g.epsilon)));
  }
  ForEachElementParallel(g, [x, out, a = a.data(), b = b.data(), m = m.data()](int64_t i,
                                                                              int64_t c) {
    out[i] = static_cast<T>((static_cast<C>(x[i]) - m[c]) * a[c] + b[c]);
  });
}

template <typename T>
void Inference(const BnGeometry& g, void* const* buffers, const std::vector<SlotId>& in,
               const std::vector<SlotId>& out) {
  Normalize(g, static_cast<const T*>(buffers[in[0]]), Vector<T>(g, buffers, in[1]),
            Vector<T>(g, buffers, in[2]), Vector<T>(g, buffers, in[3]),
            Vector<T>(g, buffers, in[4]), static_cast<T*>(buffers[out[0]]));
}

template <typename T>
void Training(const BnGeometry& g, void* const* buffers, const std::vector<SlotId>& in,
              const std::vector<SlotId>& out) {
  using C = Acc<T>;
  const T* x = static_cast<const T*>(buffers[in[0]]);
  const double n = static_cast<double>(g.per_feature());
  std::vector<double> mean(g.features), variance(g.features);
  FeatureSums<T, 1>(g, [x](int64_t i, int64_t) {
    return std::array<C, 1>{static_cast<C>(x[i])};
  }, mean.data());
  for (double& m : mean) m /= n;
  // Two passes, as the spec: the mean of the squared centred values.
  const std::vector<C> mean_c(mean.begin(), mean.end());
  FeatureSums<T, 1>(g, [x, m = mean_c.data()](int64_t i, int64_t c) {
    const C d = static_cast<C>(x[i]) - m[c];
    return std::array<C, 1>{d * d};
  }, variance.data());
  for (double& v : variance) v /= n;
  T* mean_out = static_cast<T*>(buffers[out[1]]);
  T* var_out = static_cast<T*>(buffers[out[2]]);
  for (int64_t c = 0; c < g.features; ++c) {
    mean_out[c] = static_cast<T>(static_cast<C>(mean[c]));
    var_out[c] = static_cast<T>(static_cast<C>(variance[c]));
  }
  Normalize(g, x, Vector<T>(g, buffers, in[1]), Vector<T>(g, buffers, in[2]), mean, variance,
            static_cast<T*>(buffers[out[0]]));
}

// The spec's (XLA's) formulas with xhat = (x - mean) * inv, inv = 1/sqrt(var + eps):
// grad_offset = sum(dy), grad_scale = sum(dy * xhat),
// grad_operand = scale * inv * (dy - grad_offset / N - xhat * grad_scale / N).
template <typename T>
void Grad(const BnGeometry& g, void* const* buffers, const std::vector<SlotId>& in,
          const std::vector<SlotId>& out) {
  using C = Acc<T>;
  const T* x = static_cast<const T*>(buffers[in[0]]);
  const T* dy = static_cast<const T*>(buffers[in[4]]);
  const std::vector<double> scale = Vector<T>(g, buffers, in[1]),
                            mean = Vector<T>(g, buffers, in[2]),
                            variance = Vector<T>(g, buffers, in[3]);
  const double n = static_cast<double>(g.per_feature());
  std::vector<double> sums(2 * g.features);  // sum(dy), sum(dy * (x - mean))
  const std::vector<C> mean_c(mean.begin(), mean.end());
  FeatureSums<T, 2>(g, [x, dy, m = mean_c.data()](int64_t i, int64_t c) {
    const C d = static_cast<C>(dy[i]);
    return std::array<C, 2>{d, d * (static_cast<C>(x[i]) - m[c])};
  }, sums.data());
  T* dscale = static_cast<T*>(buffers[out[1]]);
  T* doffset = static_cast<T*>(buffers[out[2]]);
  // grad_operand = k_dy[c] * dy + k_x[c] * (x - mean[c]) + k_1[c].
  std::vector<double> k_dy(g.features), k_x(g.features), k_1(g.features);
  for (int64_t c = 0; c < g.features; ++c) {
    const double inv = 1.0 / std::sqrt(variance[c] + static_cast<double>(g.epsilon));
    const double sum_dy = sums[c], sum_dy_xc = sums[g.features + c];
    doffset[c] = static_cast<T>(static_cast<C>(sum_dy));
    dscale[c] = static_cast<T>(static_cast<C>(sum_dy_xc * inv));
    k_dy[c] = scale[c] * inv;
    k_x[c] = -scale[c] * inv * inv * inv * sum_dy_xc / n;
    k_1[c] = -k_dy[c] * sum_dy / n;
  }
  T* dx = static_cast<T*>(buffers[out[0]]);
  const std::vector<C> a(k_dy.begin(), k_dy.end()), b(k_x.begin(), k_x.end()),
      d(k_1.begin(), k_1.end());
  ForEachElementParallel(g, [x, dy, dx, a = a.data(), b = b.data(), d = d.data(),
                             m = mean_c.data()](int64_t i, int64_t c) {
    dx[i] = static_cast<T>(a[c] * static_cast<C>(dy[i]) + b[c] * (static_cast<C>(x[i]) - m[c]) +
                           d[c]);
  });
}

using Kernel = void (*)(const BnGeometry&, void* const*, const std::vector<SlotId>&,
                        const std::vector<SlotId>&);

template <typename T>
Kernel KernelFor(Opcode op) {
  switch (op) {
    case Opcode::kBatchNormInference: return Inference<T>;
    case Opcode::kBatchNormTraining: return Training<T>;
    default: return Grad<T>;
  }
}

// A oneDNN batch_normalization primitive and the memories it runs on (data
// handles set per run). Operand slots in oneDNN's argument order.
struct OneDnnBatchNorm {
  dnnl::primitive primitive;
  dnnl::stream stream;
  std::vector<std::pair<int, SlotId>> args;  // DNNL_ARG_* -> our slot
  mutable std::unordered_map<int, dnnl::memory> memories;
  int64_t scratchpad_bytes = 0;
  SlotId scratchpad_slot = -1;
  // Training/grad: oneDNN takes scale and shift apart; grad's shift is unused
  // but its diff_shift is our grad_offset.
};

std::unique_ptr<OneDnnBatchNorm> TryOneDnn(const Instruction& instr, const std::vector<SlotId>& in,
                                           const std::vector<SlotId>& out) {
  const Shape& s = instr.operand(0)->shape();
  const BnGeometry g = MakeGeometry(instr);
  if (s.dtype != DType::kF32 || g.elements() == 0) return nullptr;
  // [outer, C, inner] as nchw {outer, C, inner, 1}, or nhwc {outer, C, 1, 1}
  // when the feature dimension is the innermost one (same bytes either way).
  const dnnl::memory::dims dims = {g.outer, g.features, g.inner, 1};
  const auto tag = g.inner == 1 ? dnnl::memory::format_tag::nhwc : dnnl::memory::format_tag::nchw;
  const dnnl::memory::desc data(dims, dnnl::memory::data_type::f32, tag);
  const dnnl::memory::desc vec({g.features}, dnnl::memory::data_type::f32,
                               dnnl::memory::format_tag::a);
  using F = dnnl::normalization_flags;
  try {
    dnnl::engine& eng = OneDnnEngine();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    auto bn = std::make_unique<OneDnnBatchNorm>();
    dnnl::memory::desc scratch;
    std::string impl;
    const F scale_shift = F::use_scale | F::use_shift;
    switch (instr.opcode()) {
      case Opcode::kBatchNormInference: {
        dnnl::batch_normalization_forward::primitive_desc pd(
            eng, dnnl::prop_kind::forward_inference, data, data, g.epsilon,
            scale_shift | F::use_global_stats, attr);
        bn->primitive = dnnl::batch_normalization_forward(pd);
        scratch = pd.scratchpad_desc();
        impl = pd.impl_info_str();
        bn->args = {{DNNL_ARG_SRC, in[0]},   {DNNL_ARG_SCALE, in[1]}, {DNNL_ARG_SHIFT, in[2]},
                    {DNNL_ARG_MEAN, in[3]},  {DNNL_ARG_VARIANCE, in[4]}, {DNNL_ARG_DST, out[0]}};
        break;
      }
      case Opcode::kBatchNormTraining: {
        dnnl::batch_normalization_forward::primitive_desc pd(
            eng, dnnl::prop_kind::forward_training, data, data, g.epsilon, scale_shift, attr);
        bn->primitive = dnnl::batch_normalization_forward(pd);
        scratch = pd.scratchpad_desc();
        impl = pd.impl_info_str();
        bn->args = {{DNNL_ARG_SRC, in[0]},  {DNNL_ARG_SCALE, in[1]},    {DNNL_ARG_SHIFT, in[2]},
                    {DNNL_ARG_DST, out[0]}, {DNNL_ARG_MEAN, out[1]},    {DNNL_ARG_VARIANCE, out[2]}};
        break;
      }
      default: {  // kBatchNormGrad
        dnnl::batch_normalization_forward::primitive_desc hint(
            eng, dnnl::prop_kind::forward_training, data, data, g.epsilon, scale_shift);
        dnnl::batch_normalization_backward::primitive_desc pd(
            eng, dnnl::prop_kind::backward, data, data, data, g.epsilon, scale_shift, hint, attr);
        bn->primitive = dnnl::batch_normalization_backward(pd);
        scratch = pd.scratchpad_desc();
        impl = pd.impl_info_str();
        bn->args = {{DNNL_ARG_SRC, in[0]},        {DNNL_ARG_SCALE, in[1]},
                    {DNNL_ARG_MEAN, in[2]},       {DNNL_ARG_VARIANCE, in[3]},
                    {DNNL_ARG_DIFF_DST, in[4]},   {DNNL_ARG_DIFF_SRC, out[0]},
                    {DNNL_ARG_DIFF_SCALE, out[1]}, {DNNL_ARG_DIFF_SHIFT, out[2]}};
        break;
      }
    }
    // oneDNN's plain-layout fallbacks (ncsp_bnorm, ref) are slower than our
    // kernel (docs/performance.md): only its jit kernels are worth it.
    if (impl.rfind("ncsp", 0) == 0 || impl.find("ref") != std::string::npos) return nullptr;
    for (const auto& [arg, slot] : bn->args) {
      const bool is_vector = arg == DNNL_ARG_SCALE || arg == DNNL_ARG_SHIFT ||
                             arg == DNNL_ARG_MEAN || arg == DNNL_ARG_VARIANCE ||
                             arg == DNNL_ARG_DIFF_SCALE || arg == DNNL_ARG_DIFF_SHIFT;
      bn->memories[arg] = dnnl::memory(is_vector ? vec : data, eng, DNNL_MEMORY_NONE);
    }
    bn->scratchpad_bytes = static_cast<int64_t>(scratch.get_size());
    if (bn->scratchpad_bytes > 0) {
      bn->memories[DNNL_ARG_SCRATCHPAD] = dnnl::memory(scratch, eng, DNNL_MEMORY_NONE);
    }
    bn->stream = dnnl::stream(eng);
    return bn;
  } catch (const dnnl::error&) {
    return nullptr;  // our own kernel takes over
  }
}

class BatchNormThunk : public Thunk {
 public:
  BatchNormThunk(BnGeometry g, std::vector<SlotId> in, std::vector<SlotId> out, Kernel kernel,
                 std::unique_ptr<OneDnnBatchNorm> onednn)
      : g_(g), in_(std::move(in)), out_(std::move(out)), kernel_(kernel),
        onednn_(std::move(onednn)) {}

  void Execute(void* const* buffers) const override {
    if (!onednn_) {
      kernel_(g_, buffers, in_, out_);
      return;
    }
    for (const auto& [arg, slot] : onednn_->args) {
      onednn_->memories[arg].set_data_handle(buffers[slot]);
    }
    if (onednn_->scratchpad_bytes > 0) {
      onednn_->memories[DNNL_ARG_SCRATCHPAD].set_data_handle(buffers[onednn_->scratchpad_slot]);
    }
    onednn_->primitive.execute(const_cast<dnnl::stream&>(onednn_->stream), onednn_->memories);
    onednn_->stream.wait();
  }

 private:
  BnGeometry g_;
  std::vector<SlotId> in_, out_;
  Kernel kernel_;
  std::unique_ptr<OneDnnBatchNorm> onednn_;
};

}  // namespace

bool BatchNormUsesOneDnn(const Instruction& instr) {
  const size_t n_in = instr.operands().size(), n_out = instr.shape().is_tuple ? 3 : 1;
  return TryOneDnn(instr, std::vector<SlotId>(n_in, 0), std::vector<SlotId>(n_out, 0)) != nullptr;
}

absl::StatusOr<std::unique_ptr<Thunk>> MakeBatchNormThunk(const Instruction& instr,
                                                          const std::vector<SlotId>& in,
                                                          const std::vector<SlotId>& out,
                                                          LoweringContext& ctx) {
  const DType dtype = instr.operand(0)->shape().dtype;
  if (!IsFloat(dtype)) {
    return absl::UnimplementedError(
        absl::StrCat(OpcodeName(instr.opcode()), ": the cpu backend needs a float operand"));
  }
  std::unique_ptr<OneDnnBatchNorm> onednn = TryOneDnn(instr, in, out);
  if (onednn && onednn->scratchpad_bytes > 0) {
    onednn->scratchpad_slot = ctx.NewScratch(onednn->scratchpad_bytes);
  }
  Kernel kernel = DispatchDType(dtype, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
      return KernelFor<T>(instr.opcode());
    } else {
      return nullptr;
    }
  });
  return std::unique_ptr<Thunk>(
      new BatchNormThunk(MakeGeometry(instr), in, out, kernel, std::move(onednn)));
}

}  // namespace xjit::cpu
