#include "xjit/backends/cpu/convolution.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dnnl.hpp"
#include "xjit/backends/cpu/half_convert.h"
#include "xjit/backends/cpu/isa_clones.h"
#include "xjit/backends/cpu/onednn.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/scalar_ops.h"
#include "xjit/backends/cpu/strided_copy.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/ir/window_attrs.h"

namespace xjit::cpu {
namespace {

std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

// Everything the direct kernel needs, in element strides.
struct ConvGeometry {
  ConvDimensionNumbers d;
  std::vector<WindowDimension> window;
  std::vector<int64_t> lhs_dims, rhs_dims, out_dims, ls, rs, os;
  std::vector<int64_t> in_spatial, kernel_spatial;  // sizes, per spatial dimension
  int64_t kernel_in = 0, out_per_fgroup = 1, out_per_bgroup = 1, batch_per_group = 1;
  int64_t out_count = 0, kernel_count = 1;
};

ConvGeometry MakeGeometry(const Instruction& instr) {
  const ConvolutionAttrs& a = instr.attrs<ConvolutionAttrs>();
  ConvGeometry g;
  g.d = a.dimension_numbers;
  const Shape& l = instr.operand(0)->shape();
  const Shape& r = instr.operand(1)->shape();
  g.window = ConvolutionWindow(a, r);
  g.lhs_dims = l.dims;
  g.rhs_dims = r.dims;
  g.out_dims = instr.shape().dims;
  g.ls = Strides(l.dims);
  g.rs = Strides(r.dims);
  g.os = Strides(g.out_dims);
  for (size_t i = 0; i < g.window.size(); ++i) {
    g.in_spatial.push_back(l.dims[g.d.input_spatial_dimensions[i]]);
    g.kernel_spatial.push_back(r.dims[g.d.kernel_spatial_dimensions[i]]);
    g.kernel_count *= g.kernel_spatial.back();
  }
  g.kernel_in = r.dims[g.d.kernel_input_feature_dimension];
  const int64_t kernel_out = r.dims[g.d.kernel_output_feature_dimension];
  g.out_per_fgroup = std::max<int64_t>(kernel_out / a.feature_group_count, 1);
  g.out_per_bgroup = std::max<int64_t>(kernel_out / a.batch_group_count, 1);
  g.batch_per_group = l.dims[g.d.input_batch_dimension] / a.batch_group_count;
  g.out_count = instr.shape().num_elements();
  return g;
}

// One output element at a time, parallel over them: the spec's definition
// with strides precomputed (reference/convolution.cc is the plain version).
template <typename T>
void DirectConvolution(const ConvGeometry& g, const T* lhs, const T* rhs, T* out) {
  using C = Compute<T>;
  const ConvDimensionNumbers& d = g.d;
  const size_t ns = g.window.size();
  const int64_t cost = g.out_count * std::max<int64_t>(g.kernel_count * g.kernel_in, 1);
  ParallelFor(g.out_count, 64, cost, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> oi(g.out_dims.size()), k(ns);
    for (int64_t o = begin; o < end; ++o) {
      for (int64_t i = static_cast<int64_t>(g.out_dims.size()) - 1, rest = o; i >= 0; --i) {
        oi[i] = rest % g.out_dims[i];
        rest /= g.out_dims[i];
      }
      const int64_t of = oi[d.output_feature_dimension];
      const int64_t fgroup = of / g.out_per_fgroup, bgroup = of / g.out_per_bgroup;
      const int64_t lhs_base =
          (bgroup * g.batch_per_group + oi[d.output_batch_dimension]) * g.ls[d.input_batch_dimension] +
          fgroup * g.kernel_in * g.ls[d.input_feature_dimension];
      const int64_t rhs_base = of * g.rs[d.kernel_output_feature_dimension];
      const int64_t lf = g.ls[d.input_feature_dimension];
      const int64_t rf = g.rs[d.kernel_input_feature_dimension];
      C acc = C(0);
      std::fill(k.begin(), k.end(), 0);
      for (int64_t n = 0; n < g.kernel_count; ++n) {
        int64_t lo = lhs_base, ro = rhs_base;
        bool inside = true;
        for (size_t i = 0; i < ns && inside; ++i) {
          const WindowDimension& w = g.window[i];
          const int64_t pos = w.reversal ? w.size - 1 - k[i] : k[i];
          const int64_t x = w.BaseIndex(g.in_spatial[i], oi[d.output_spatial_dimensions[i]], pos);
          inside = x >= 0;
          lo += x * g.ls[d.input_spatial_dimensions[i]];
          ro += k[i] * g.rs[d.kernel_spatial_dimensions[i]];
        }
        if (inside) {
          for (int64_t ci = 0; ci < g.kernel_in; ++ci) {
            acc = Add::Apply(acc, Multiply::Apply(C(lhs[lo + ci * lf]), C(rhs[ro + ci * rf])));
          }
        }
        for (int64_t i = static_cast<int64_t>(ns) - 1; i >= 0; --i) {
          if (++k[i] < g.kernel_spatial[i]) break;
          k[i] = 0;
        }
      }
      out[o] = T(acc);
    }
  });
}

using DirectKernel = void (*)(const ConvGeometry&, const void*, const void*, void*);

// The oneDNN primitive and the memory objects it runs on (handles set per run).
// One argument of the primitive: the user's memory (our buffer) and, when
// oneDNN prefers another layout, its own copy in scratch with the reorder
// between them (created at compile time).
struct OneDnnArg {
  mutable dnnl::memory user, internal;
  std::optional<dnnl::reorder> reorder;
  // Instead of `reorder` when both layouts are plain strided ones (NCHW and
  // NHWC activations): our copy, several times faster than oneDNN's
  // transposing reorder here.
  std::optional<StridedCopy> copy;
  int64_t bytes = 0;
  SlotId slot = -1;
  bool Reordered() const { return reorder.has_value() || copy.has_value(); }
};

// A plain strided layout (no inner blocks): its strides, else nullopt.
std::optional<dnnl::memory::dims> PlainStrides(const dnnl::memory::desc& md) {
  if (md.get_format_kind() != dnnl::memory::format_kind::blocked || md.get_inner_nblks() != 0) {
    return std::nullopt;
  }
  return md.get_strides();
}

// The copy from layout `from` to layout `to` of the same dims, when both are plain.
std::optional<StridedCopy> PlainCopy(const dnnl::memory::desc& from, const dnnl::memory::desc& to,
                                     int64_t elem_bytes) {
  std::optional<dnnl::memory::dims> fs = PlainStrides(from), ts = PlainStrides(to);
  if (!fs || !ts || from.get_dims() != to.get_dims()) return std::nullopt;
  StridedCopy c;
  c.elem_bytes = elem_bytes;
  c.sizes = from.get_dims();
  c.src_strides = *fs;
  c.dst_strides = *ts;
  return SimplifyStridedCopy(std::move(c));
}

// The weights in oneDNN's layout, kept between runs with the user's weights
// they were made from: a run with the same weights (inference; any weights
// held fixed) checks them with one memcmp instead of flipping and reordering
// them, as a oneDNN program reorders its weights once.
struct WeightsCache {
  explicit WeightsCache(int64_t user_bytes, int64_t internal_bytes)
      : user(static_cast<size_t>(user_bytes)),
        internal(std::aligned_alloc(64, (internal_bytes + 63) / 64 * 64), &std::free) {}
  std::mutex mu;  // held from the check until the primitive has read `internal`
  std::vector<unsigned char> user;
  std::unique_ptr<void, decltype(&std::free)> internal;
  bool valid = false;
};

struct OneDnnConv {
  dnnl::primitive primitive;
  dnnl::stream stream;
  OneDnnArg src, weights, dst;
  mutable dnnl::memory scratchpad, bias;  // bias: the epilogue's, when it has one
  SlotId bias_slot = -1;
  int64_t scratchpad_bytes = 0;      // oneDNN's scratchpad, in our arena (scratchpad_mode::user)
  SlotId scratchpad_slot = -1;
  std::unique_ptr<WeightsCache> weights_cache;  // when the weights are reordered
  bool flip = false;                 // weights flipped along the spatial dims into scratch first
  std::vector<bool> flip_dims;       // per rhs dimension
  SlotId flipped = -1;
  bool fast = false;  // not oneDNN's gemm or reference implementation
  // bf16/f16 computed in float32 (convolutions whose own type oneDNN runs
  // only on a slow kernel here, or not at all).
  std::optional<Widening> widening;
};

// Flips `rhs` along the dims marked in `flip` into `dst` (same row-major layout).
void FlipCopy(const std::vector<int64_t>& dims, const std::vector<bool>& flip, int64_t width,
              const unsigned char* src, unsigned char* dst) {
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  if (total == 0) return;
  const std::vector<int64_t> st = Strides(dims);
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    int64_t from = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
      from += (flip[i] ? dims[i] - 1 - idx[i] : idx[i]) * st[i];
    }
    std::memcpy(dst + n * width, src + from * width, width);
    for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
      if (++idx[i] < dims[i]) break;
      idx[i] = 0;
    }
  }
}

// A ReLU step, max(x, +0) as the graph's maximum computes it (NaN stays NaN,
// -0 and negatives become +0), in place. Not a oneDNN post-op: its relu, clip
// and binary-max post-ops compute max with vmaxps, which turns NaN into 0; its
// elu(0) + linear(1, 0) post-ops keep NaN exactly but cost more than this pass
// (the exp; measured against oneDNN alone, docs/performance.md).
XJIT_ISA_CLONES void ReluRun(float* x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) x[i] = Maximum::Apply(x[i], 0.f);
}

void ReluInPlace(float* x, int64_t n) {
  ParallelFor(n, 1 << 14, n, [&](int64_t begin, int64_t end) { ReluRun(x + begin, end - begin); });
}

// oneDNN's convolution of `instr` computing in `compute` (the operands' type,
// or float32 for widened 16-bit floats).
std::unique_ptr<OneDnnConv> TryOneDnn(const Instruction& instr, const Epilogue* epilogue,
                                      DType compute) {
  const ConvolutionAttrs& a = instr.attrs<ConvolutionAttrs>();
  const ConvDimensionNumbers& d = a.dimension_numbers;
  const Shape& l = instr.operand(0)->shape();
  const Shape& r = instr.operand(1)->shape();
  const Shape& o = instr.shape();
  dnnl::memory::data_type dt;
  switch (compute) {
    case DType::kF32: dt = dnnl::memory::data_type::f32; break;
    case DType::kBF16: dt = dnnl::memory::data_type::bf16; break;
    case DType::kF16: dt = dnnl::memory::data_type::f16; break;
    default: return nullptr;
  }
  const size_t ns = d.input_spatial_dimensions.size();
  if (ns < 1 || ns > 3 || a.batch_group_count != 1) return nullptr;
  if (l.num_elements() == 0 || r.num_elements() == 0 || o.num_elements() == 0) return nullptr;
  std::vector<WindowDimension> w = ConvolutionWindow(a, r);
  bool lhs_dilated = false, strided = false;
  for (const WindowDimension& x : w) {
    lhs_dilated = lhs_dilated || x.base_dilation > 1;
    strided = strided || x.stride > 1;
  }
  if (lhs_dilated && strided) return nullptr;
  // oneDNN's dims: src {N, C, S...}, weights {[G,] O, I, K...}, dst {N, O, S...}.
  const std::vector<int64_t> ls = Strides(l.dims), rs = Strides(r.dims), os = Strides(o.dims);
  dnnl::memory::dims src_dims{l.dims[d.input_batch_dimension], l.dims[d.input_feature_dimension]};
  dnnl::memory::dims src_strides{ls[d.input_batch_dimension], ls[d.input_feature_dimension]};
  dnnl::memory::dims dst_dims{o.dims[d.output_batch_dimension], o.dims[d.output_feature_dimension]};
  dnnl::memory::dims dst_strides{os[d.output_batch_dimension], os[d.output_feature_dimension]};
  const int64_t groups = a.feature_group_count;
  const int64_t kout = r.dims[d.kernel_output_feature_dimension];
  dnnl::memory::dims wei_dims, wei_strides;
  if (groups > 1) {
    wei_dims = {groups, kout / groups};
    wei_strides = {rs[d.kernel_output_feature_dimension] * (kout / groups),
                   rs[d.kernel_output_feature_dimension]};
  } else {
    wei_dims = {kout};
    wei_strides = {rs[d.kernel_output_feature_dimension]};
  }
  wei_dims.push_back(r.dims[d.kernel_input_feature_dimension]);
  wei_strides.push_back(rs[d.kernel_input_feature_dimension]);
  dnnl::memory::dims strides, dilates, pad_l, pad_r;
  auto conv = std::make_unique<OneDnnConv>();
  conv->flip_dims.assign(r.rank(), false);
  for (size_t i = 0; i < ns; ++i) {
    src_dims.push_back(l.dims[d.input_spatial_dimensions[i]]);
    src_strides.push_back(ls[d.input_spatial_dimensions[i]]);
    dst_dims.push_back(o.dims[d.output_spatial_dimensions[i]]);
    dst_strides.push_back(os[d.output_spatial_dimensions[i]]);
    wei_dims.push_back(r.dims[d.kernel_spatial_dimensions[i]]);
    wei_strides.push_back(rs[d.kernel_spatial_dimensions[i]]);
    dilates.push_back(w[i].window_dilation - 1);
    const int64_t ker_ext = WindowDimension::Dilated(w[i].size, w[i].window_dilation);
    bool flip = w[i].reversal;
    if (lhs_dilated) {  // a deconvolution with stride = lhs_dilation and the kernel flipped
      strides.push_back(w[i].base_dilation);
      pad_l.push_back(ker_ext - 1 - w[i].padding_low);
      pad_r.push_back(ker_ext - 1 - w[i].padding_high);
      flip = !flip;
    } else {
      strides.push_back(w[i].stride);
      pad_l.push_back(w[i].padding_low);
      pad_r.push_back(w[i].padding_high);
    }
    if (pad_l.back() < 0 || pad_r.back() < 0) return nullptr;
    conv->flip_dims[d.kernel_spatial_dimensions[i]] = flip;
    conv->flip = conv->flip || flip;
  }
  try {
    dnnl::engine& eng = OneDnnEngine();
    dnnl::memory::desc src_md(src_dims, dt, src_strides), wei_md(wei_dims, dt, wei_strides),
        dst_md(dst_dims, dt, dst_strides);
    // The scratchpad (im2col buffers...) lives in the program's arena: oneDNN's
    // own (library mode) is not safe across the threads our work queues run on.
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    // A bias step (first, by MatchEpilogue) is the primitive's bias argument:
    // added to the f32 accumulator once, as the graph's add does.
    const bool has_bias = epilogue != nullptr && !epilogue->steps.empty() &&
                          epilogue->steps[0].kind == EpilogueStep::Kind::kBias;
    const dnnl::memory::desc bias_md =
        has_bias ? dnnl::memory::desc({kout}, dt, dnnl::memory::format_tag::a)
                 : dnnl::memory::desc();
    struct Made {
      dnnl::primitive primitive;
      dnnl::memory::desc src, weights, dst, scratch;
      std::string impl;
    };
    auto make = [&](const dnnl::memory::desc& s, const dnnl::memory::desc& w,
                    const dnnl::memory::desc& d) -> std::optional<Made> {
      try {
        Made m;
        if (lhs_dilated) {
          dnnl::deconvolution_forward::primitive_desc pd(
              eng, dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, s,
              w, bias_md, d, strides, dilates, pad_l, pad_r, attr);
          m = {dnnl::deconvolution_forward(pd), pd.src_desc(), pd.weights_desc(), pd.dst_desc(),
               pd.scratchpad_desc(), pd.impl_info_str()};
        } else {
          dnnl::convolution_forward::primitive_desc pd(
              eng, dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, s, w,
              bias_md, d, strides, dilates, pad_l, pad_r, attr);
          m = {dnnl::convolution_forward(pd), pd.src_desc(), pd.weights_desc(), pd.dst_desc(),
               pd.scratchpad_desc(), pd.impl_info_str()};
        }
        return m;
      } catch (const dnnl::error&) {
        return std::nullopt;
      }
    };
    auto any = [&](const dnnl::memory::dims& dims) {
      return dnnl::memory::desc(dims, dt, dnnl::memory::format_tag::any);
    };
    auto fast = [](const std::optional<Made>& m) {
      return m && m->impl.find("gemm") == std::string::npos &&
             m->impl.find("ref") == std::string::npos;
    };
    // The user's layouts with weights in oneDNN's own (a small reorder per
    // run) when a fast kernel takes them; else every layout oneDNN's, with
    // reorders of the activations; else the user's layouts as they are.
    std::optional<Made> made = make(src_md, any(wei_dims), dst_md);
    if (!fast(made)) {
      std::optional<Made> all_any = make(any(src_dims), any(wei_dims), any(dst_dims));
      if (fast(all_any) || !made) made = std::move(all_any);
    }
    if (!made) made = make(src_md, wei_md, dst_md);
    if (!made) return nullptr;
    conv->fast = fast(made);
    conv->primitive = made->primitive;
    conv->scratchpad_bytes = static_cast<int64_t>(made->scratch.get_size());
    conv->scratchpad = dnnl::memory(made->scratch, eng, DNNL_MEMORY_NONE);
    conv->stream = dnnl::stream(eng);
    if (has_bias) conv->bias = dnnl::memory(bias_md, eng, DNNL_MEMORY_NONE);
    const int64_t elem_bytes = static_cast<int64_t>(dnnl::memory::data_type_size(dt));
    auto arg = [&](OneDnnArg& a, const dnnl::memory::desc& user, const dnnl::memory::desc& want,
                   bool to_user) {
      a.user = dnnl::memory(user, eng, DNNL_MEMORY_NONE);
      if (user == want) return;
      a.internal = dnnl::memory(want, eng, DNNL_MEMORY_NONE);
      a.copy = to_user ? PlainCopy(want, user, elem_bytes) : PlainCopy(user, want, elem_bytes);
      if (!a.copy) {
        a.reorder = to_user ? dnnl::reorder(a.internal, a.user) : dnnl::reorder(a.user, a.internal);
      }
      a.bytes = static_cast<int64_t>(want.get_size());
    };
    arg(conv->src, src_md, made->src, false);
    arg(conv->weights, wei_md, made->weights, false);
    arg(conv->dst, dst_md, made->dst, true);
    return conv;
  } catch (const dnnl::error&) {
    return nullptr;  // not expressible here: the direct kernel takes over
  }
}

// The memory oneDNN reads (after reordering the user's into scratch if needed).
const dnnl::memory& In(const OneDnnArg& a, const void* data, void* const* buffers,
                       const dnnl::stream& stream) {
  a.user.set_data_handle(const_cast<void*>(data));
  if (!a.Reordered()) return a.user;
  a.internal.set_data_handle(buffers[a.slot]);
  if (a.copy) {
    RunStridedCopy(*a.copy, buffers[a.slot], data);
  } else {
    a.reorder->execute(const_cast<dnnl::stream&>(stream), a.user, a.internal);
  }
  return a.internal;
}

class ConvolutionThunk : public Thunk {
 public:
  ConvolutionThunk(SlotId lhs, SlotId rhs, SlotId out, ConvGeometry g, DirectKernel direct,
                   std::unique_ptr<OneDnnConv> onednn, int64_t width, int64_t out_bytes)
      : lhs_(lhs), rhs_(rhs), out_(out), g_(std::move(g)), direct_(direct),
        onednn_(std::move(onednn)), width_(width), out_bytes_(out_bytes) {}

  void Execute(void* const* buffers) const override {
    const void* lhs = buffers[lhs_];
    const void* rhs = buffers[rhs_];
    void* out = buffers[out_];
    if (g_.out_count == 0) return;
    if (onednn_ && onednn_->widening) {
      onednn_->widening->Execute(buffers, lhs, rhs, out,
                                 [&](const float* l, const float* r, float* o) {
                                   RunOneDnn(buffers, l, r, o);
                                 });
      return;
    }
    if (onednn_) {
      RunOneDnn(buffers, lhs, rhs, out);
      return;
    }
    direct_(g_, lhs, rhs, out);
    ApplySteps(buffers, static_cast<float*>(out), false);
  }

  void RunOneDnn(void* const* buffers, const void* lhs, const void* rhs, void* out) const {
    {
      const dnnl::stream& st = onednn_->stream;
      std::unique_lock<std::mutex> weights_held;
      std::unordered_map<int, dnnl::memory> args = {
          {DNNL_ARG_SRC, In(onednn_->src, lhs, buffers, st)},
          {DNNL_ARG_WEIGHTS, Weights(rhs, buffers, weights_held)}};
      const OneDnnArg& dst = onednn_->dst;
      dst.user.set_data_handle(out);
      if (dst.Reordered()) dst.internal.set_data_handle(buffers[dst.slot]);
      args[DNNL_ARG_DST] = dst.Reordered() ? dst.internal : dst.user;
      if (onednn_->bias_slot >= 0) {
        onednn_->bias.set_data_handle(buffers[onednn_->bias_slot]);
        args[DNNL_ARG_BIAS] = onednn_->bias;
      }
      if (onednn_->scratchpad_bytes > 0) {
        onednn_->scratchpad.set_data_handle(buffers[onednn_->scratchpad_slot]);
        args[DNNL_ARG_SCRATCHPAD] = onednn_->scratchpad;
      }
      onednn_->primitive.execute(onednn_->stream, args);
      if (dst.reorder) dst.reorder->execute(onednn_->stream, dst.internal, dst.user);
      onednn_->stream.wait();
      if (dst.copy) RunStridedCopy(*dst.copy, out, buffers[dst.slot]);
      ApplySteps(buffers, static_cast<float*>(out), onednn_->bias_slot >= 0);
    }
  }

  // The weights oneDNN reads: flipped (deconvolutions) and reordered into
  // oneDNN's layout, from the cache when `rhs` holds the same bytes as last
  // time (`held` then keeps the cache locked until the primitive has run).
  const dnnl::memory& Weights(const void* rhs, void* const* buffers,
                              std::unique_lock<std::mutex>& held) const {
    const OneDnnArg& w = onednn_->weights;
    WeightsCache* cache = onednn_->weights_cache.get();
    if (cache != nullptr) {
      held = std::unique_lock<std::mutex>(cache->mu);
      w.internal.set_data_handle(cache->internal.get());
      if (cache->valid && std::memcmp(cache->user.data(), rhs, cache->user.size()) == 0) {
        return w.internal;
      }
      cache->valid = false;
    }
    const void* from = rhs;
    if (onednn_->flip) {
      FlipCopy(g_.rhs_dims, onednn_->flip_dims, width_, static_cast<const unsigned char*>(rhs),
               static_cast<unsigned char*>(buffers[onednn_->flipped]));
      from = buffers[onednn_->flipped];
    }
    if (cache == nullptr) return In(w, from, buffers, onednn_->stream);
    w.user.set_data_handle(const_cast<void*>(from));
    if (w.copy) {
      RunStridedCopy(*w.copy, cache->internal.get(), from);
    } else {
      w.reorder->execute(const_cast<dnnl::stream&>(onednn_->stream), w.user, w.internal);
      onednn_->stream.wait();
    }
    std::memcpy(cache->user.data(), rhs, cache->user.size());
    cache->valid = true;
    return w.internal;
  }

  // The epilogue's steps (float32: MatchEpilogue's only type) that the kernel
  // leaves to ApplySteps.
  void UseEpilogue(std::vector<EpilogueStep::Kind> steps, std::vector<SlotId> inputs) {
    steps_ = std::move(steps);
    step_inputs_ = std::move(inputs);
  }

 private:
  SlotId lhs_, rhs_, out_;
  ConvGeometry g_;
  DirectKernel direct_;
  std::unique_ptr<OneDnnConv> onednn_;
  int64_t width_, out_bytes_;
  std::vector<EpilogueStep::Kind> steps_;
  std::vector<SlotId> step_inputs_;

  // `bias_done`: oneDNN added the bias (the first step) already.
  void ApplySteps(void* const* buffers, float* out, bool bias_done) const {
    const int64_t fd = g_.d.output_feature_dimension;
    const int64_t stride = g_.os[fd], features = g_.out_dims[fd];
    for (size_t k = bias_done ? 1 : 0; k < steps_.size(); ++k) {
      if (steps_[k] == EpilogueStep::Kind::kRelu) {
        ReluInPlace(out, g_.out_count);
        continue;
      }
      const float* bias = static_cast<const float*>(buffers[step_inputs_[k]]);
      for (int64_t o = 0; o < g_.out_count; ++o) out[o] += bias[o / stride % features];
    }
  }
};

// oneDNN's convolution for `instr`: in its own type, or for bf16/f16 in
// float32 when oneDNN has no kernel or only a slow one for their own (no
// AVX-512 bf16/fp16): a fast kernel in either type first, then any.
// Widening slots are left to the caller.
std::unique_ptr<OneDnnConv> ChooseOneDnn(const Instruction& instr, const Epilogue* epilogue) {
  const DType t = instr.operand(0)->shape().dtype;
  std::unique_ptr<OneDnnConv> own = TryOneDnn(instr, epilogue, t);
  if (WidenToF32(t) == nullptr || (own && own->fast)) return own;
  std::unique_ptr<OneDnnConv> wide = TryOneDnn(instr, epilogue, DType::kF32);
  if (!wide || (own && !wide->fast)) return own;
  wide->widening.emplace();
  return wide;
}

}  // namespace

bool ConvolutionUsesOneDnn(const Instruction& instr) {
  return ChooseOneDnn(instr, nullptr) != nullptr;
}

absl::StatusOr<std::unique_ptr<Thunk>> MakeConvolutionThunk(
    const Instruction& instr, SlotId lhs, SlotId rhs, SlotId output, LoweringContext& ctx,
    const Epilogue* epilogue, std::vector<SlotId> step_inputs) {
  if (epilogue != nullptr && (instr.shape().dtype != DType::kF32 ||
                              step_inputs.size() != epilogue->steps.size())) {
    return absl::InternalError("convolution: an epilogue the cpu lowering cannot apply");
  }
  const Shape& l = instr.operand(0)->shape();
  if (instr.operand(1)->shape().dtype != l.dtype || instr.shape().dtype != l.dtype) {
    return absl::UnimplementedError(absl::StrCat(
        "convolution: the cpu backend needs equal element types, got ", l.ToString(), ", ",
        instr.operand(1)->shape().ToString(), " -> ", instr.shape().ToString()));
  }
  ConvGeometry g = MakeGeometry(instr);
  std::unique_ptr<OneDnnConv> onednn = ChooseOneDnn(instr, epilogue);
  int64_t width = ByteWidth(l.dtype);  // of the elements oneDNN reads
  if (onednn && onednn->widening) {
    onednn->widening = Widening::For(instr, ctx);
    width = 4;
  }
  const int64_t rhs_bytes = instr.operand(1)->shape().num_elements() * width;
  if (onednn && epilogue != nullptr) {
    for (size_t k = 0; k < epilogue->steps.size(); ++k) {
      if (epilogue->steps[k].kind == EpilogueStep::Kind::kBias) onednn->bias_slot = step_inputs[k];
    }
  }
  if (onednn && onednn->flip) onednn->flipped = ctx.NewScratch(rhs_bytes);
  if (onednn && onednn->scratchpad_bytes > 0) {
    onednn->scratchpad_slot = ctx.NewScratch(onednn->scratchpad_bytes);
  }
  if (onednn) {
    for (OneDnnArg* a : {&onednn->src, &onednn->dst}) {
      if (a->Reordered()) a->slot = ctx.NewScratch(a->bytes);
    }
    if (onednn->weights.Reordered()) {
      onednn->weights_cache = std::make_unique<WeightsCache>(rhs_bytes, onednn->weights.bytes);
    }
  }
  DirectKernel direct = DispatchDType(l.dtype, [](auto tag) -> DirectKernel {
    using T = typename decltype(tag)::type;
    return [](const ConvGeometry& g, const void* a, const void* b, void* o) {
      DirectConvolution<T>(g, static_cast<const T*>(a), static_cast<const T*>(b),
                           static_cast<T*>(o));
    };
  });
  auto thunk = std::make_unique<ConvolutionThunk>(lhs, rhs, output, std::move(g), direct,
                                                  std::move(onednn), width,
                                                  instr.shape().byte_size());
  if (epilogue != nullptr) {
    std::vector<EpilogueStep::Kind> kinds;
    for (const EpilogueStep& s : epilogue->steps) kinds.push_back(s.kind);
    thunk->UseEpilogue(std::move(kinds), std::move(step_inputs));
  }
  return std::unique_ptr<Thunk>(std::move(thunk));
}

}  // namespace xjit::cpu
