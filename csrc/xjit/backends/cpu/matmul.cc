#include "xjit/backends/cpu/matmul.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "dnnl.hpp"
#include "xjit/backends/cpu/blas_gemm.h"
#include "xjit/backends/cpu/half_convert.h"
#include "xjit/backends/cpu/onednn.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/scalar_ops.h"
#include "xjit/backends/cpu/small_matmul.h"
#include "xjit/backends/cpu/strided_copy.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::cpu {
namespace {

// One operand seen as a rank-3 array [B, rows, cols] with element strides.
struct View3 {
  int64_t dims[3];
  int64_t strides[3];
};

// Collapses dims `group` (in order) of a row-major array into one (size,
// stride); false when they are not evenly spaced in memory.
bool CollapseGroup(const std::vector<int64_t>& group, const std::vector<int64_t>& dims,
                   const std::vector<int64_t>& strides, int64_t* size, int64_t* stride) {
  *size = 1;
  *stride = 1;
  bool first = true;
  for (auto it = group.rbegin(); it != group.rend(); ++it) {
    int64_t d = *it;
    if (dims[d] == 1) continue;
    if (first) {
      *stride = strides[d];
      first = false;
    } else if (strides[d] != *stride * *size) {
      return false;
    }
    *size *= dims[d];
  }
  return true;
}

// Groups of one operand: batch, then `first` (free for lhs, contracting for
// rhs), then `second`.
struct OperandPlan {
  std::vector<int64_t> order;  // batch ++ first ++ second
  View3 view;
  bool needs_copy = false;     // transpose into scratch first
  StridedCopy copy;
  SlotId scratch = -1;
};

OperandPlan PlanOperand(const Shape& s, const std::vector<int64_t>& batch,
                        const std::vector<int64_t>& first, const std::vector<int64_t>& second,
                        bool force_copy = false) {
  OperandPlan p;
  std::vector<int64_t> strides = RowMajorStrides(s.dims);
  const std::vector<int64_t>* groups[3] = {&batch, &first, &second};
  bool ok = true;
  for (int g = 0; g < 3; ++g) {
    ok = ok && CollapseGroup(*groups[g], s.dims, strides, &p.view.dims[g], &p.view.strides[g]);
    p.order.insert(p.order.end(), groups[g]->begin(), groups[g]->end());
  }
  if (ok && !force_copy) return p;
  // Transpose into [batch..., first..., second...] row-major scratch.
  p.needs_copy = true;
  p.copy.elem_bytes = ByteWidth(s.dtype);
  for (int64_t d : p.order) {
    p.copy.sizes.push_back(s.dims[d]);
    p.copy.src_strides.push_back(strides[d]);
  }
  p.copy.dst_strides = RowMajorStrides(p.copy.sizes);
  p.copy = SimplifyStridedCopy(p.copy);
  for (int g = 0; g < 3; ++g) {
    p.view.dims[g] = 1;
    for (int64_t d : *groups[g]) p.view.dims[g] *= s.dims[d];
  }
  p.view.strides[2] = 1;
  p.view.strides[1] = p.view.dims[2];
  p.view.strides[0] = p.view.dims[1] * p.view.dims[2];
  return p;
}

// out[b, m, n] = sum_k lhs[b, m, k] * rhs[b, k, n] with the dtype's own add and
// multiply (wrapping ints, or/and for pred, float accumulation for f16/bf16).
template <typename T>
void LoopMatmul(const View3& l, const View3& r, const T* lhs, const T* rhs, T* out) {
  using C = Compute<T>;
  const int64_t B = l.dims[0], M = l.dims[1], K = l.dims[2], N = r.dims[2];
  if (N <= 0) return;
  ParallelFor(B * M, 1, B * M * N * std::max<int64_t>(K, 1) / 8, [&](int64_t begin, int64_t end) {
    // Not std::vector: vector<bool> has no bool& elements.
    std::unique_ptr<C[]> acc(new C[N]);
    for (int64_t row = begin; row < end; ++row) {
      int64_t b = row / M, m = row % M;
      std::fill(acc.get(), acc.get() + N, C(0));
      const T* lrow = lhs + b * l.strides[0] + m * l.strides[1];
      const T* rb = rhs + b * r.strides[0];
      for (int64_t k = 0; k < K; ++k) {
        C a = C(lrow[k * l.strides[2]]);
        const T* rrow = rb + k * r.strides[1];
        const int64_t sn = r.strides[2];
        for (int64_t n = 0; n < N; ++n) {
          acc[n] = Add::Apply(acc[n], Multiply::Apply(a, C(rrow[n * sn])));
        }
      }
      T* orow = out + row * N;
      for (int64_t n = 0; n < N; ++n) orow[n] = T(acc[n]);
    }
  });
}

using LoopKernel = void (*)(const View3&, const View3&, const void*, const void*, void*);

template <typename T>
void LoopMatmulErased(const View3& l, const View3& r, const void* lhs, const void* rhs, void* out) {
  LoopMatmul<T>(l, r, static_cast<const T*>(lhs), static_cast<const T*>(rhs), static_cast<T*>(out));
}

// AMX is advertised by CPUID on machines where executing it still faults (seen
// under a sandboxing hypervisor: SIGILL inside oneDNN's AMX brgemm), and an
// illegal instruction kills the whole interpreter. So oneDNN stops at
// AVX-512 (with fp16/bf16) unless the user opts in with XJIT_ONEDNN_AMX=1 or
// picks the ISA with oneDNN's own DNNL_MAX_CPU_ISA / ONEDNN_MAX_CPU_ISA.
void LimitOneDnnIsa() {
  if (std::getenv("XJIT_ONEDNN_AMX") != nullptr || std::getenv("DNNL_MAX_CPU_ISA") != nullptr ||
      std::getenv("ONEDNN_MAX_CPU_ISA") != nullptr) {
    return;
  }
  try {
    dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx512_core_fp16);
  } catch (const dnnl::error&) {
    // Too late (oneDNN already dispatched elsewhere in the process): keep its choice.
  }
}

dnnl::engine& CpuEngine() {
  static dnnl::engine* engine = [] {
    LimitOneDnnIsa();
    return new dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return *engine;
}

// Without a batch (B == 1) the descriptor is 2-d: a rank-3 one carries the
// empty batch group's stride of 1, which oneDNN reads as a batch-innermost
// layout and answers with its generic gemm:jit kernel instead of brgemm.
dnnl::memory::desc Desc3(const View3& v, dnnl::memory::data_type t) {
  if (v.dims[0] == 1) return dnnl::memory::desc({v.dims[1], v.dims[2]}, t, {v.strides[1], v.strides[2]});
  return dnnl::memory::desc({v.dims[0], v.dims[1], v.dims[2]}, t,
                            {v.strides[0], v.strides[1], v.strides[2]});
}

// The oneDNN part, present only when oneDNN takes this dtype and layout.
struct OneDnnMatmul {
  dnnl::matmul primitive;
  dnnl::stream stream;
  bool generic_gemm = false;  // oneDNN's gemm:jit kernel (no brgemm matmul for this ISA)
  // Reused across runs: only the data handles change.
  mutable dnnl::memory src, weights, dst;
  // With packed weights: the reorder of the row-major weights into oneDNN's
  // blocked layout, run each call into `packed` (packed_bytes of scratch).
  std::optional<dnnl::reorder> pack;
  mutable dnnl::memory packed;
  int64_t packed_bytes = 0;
};

// Whether a float32 product reorders its weights into oneDNN's blocked layout
// on every call. The reorder reads and writes K x N once; brgemm on blocked
// weights saves more than that from M = 1024 on, for K x N of 1M elements and
// up (AVX-512, 2 threads, per call with the reorder: 2048^3 35.1 against 37.7
// ms, 1024 x 4096 x 1024 18.3 against 19.6, 1024^3 4.2 against 4.3), and
// loses below it (256 x 2048 x 2048: 4.9 against 4.6 ms).
bool PacksWeights(DType t, const View3& l, const View3& r) {
  return t == DType::kF32 && l.dims[0] == 1 && l.dims[1] >= 1024 &&
         r.dims[1] * r.dims[2] >= (int64_t{1} << 20);
}

std::unique_ptr<OneDnnMatmul> TryOneDnn(DType t, const View3& l, const View3& r, int64_t M_out,
                                        int64_t N_out) {
  dnnl::memory::data_type dt;
  switch (t) {
    case DType::kF32: dt = dnnl::memory::data_type::f32; break;
    case DType::kBF16: dt = dnnl::memory::data_type::bf16; break;
    case DType::kF16: dt = dnnl::memory::data_type::f16; break;
    default: return nullptr;
  }
  try {
    View3 o{{l.dims[0], M_out, N_out}, {M_out * N_out, N_out, 1}};
    auto src_md = Desc3(l, dt), wei_md = Desc3(r, dt), dst_md = Desc3(o, dt);
    auto m = std::make_unique<OneDnnMatmul>();
    dnnl::matmul::primitive_desc pd;
    if (PacksWeights(t, l, r)) {
      const dnnl::memory::desc any(wei_md.get_dims(), dt, dnnl::memory::format_tag::any);
      pd = dnnl::matmul::primitive_desc(CpuEngine(), src_md, any, dst_md);
      if (pd.weights_desc() != wei_md) {
        m->pack = dnnl::reorder(
            dnnl::reorder::primitive_desc(CpuEngine(), wei_md, CpuEngine(), pd.weights_desc()));
        m->packed = dnnl::memory(pd.weights_desc(), CpuEngine(), DNNL_MEMORY_NONE);
        m->packed_bytes = static_cast<int64_t>(pd.weights_desc().get_size());
      }
    } else {
      pd = dnnl::matmul::primitive_desc(CpuEngine(), src_md, wei_md, dst_md);
    }
    m->primitive = dnnl::matmul(pd);
    m->generic_gemm = std::string(pd.impl_info_str()).rfind("gemm:jit", 0) == 0;
    m->stream = dnnl::stream(CpuEngine());
    m->src = dnnl::memory(src_md, CpuEngine(), DNNL_MEMORY_NONE);
    m->weights = dnnl::memory(wei_md, CpuEngine(), DNNL_MEMORY_NONE);
    m->dst = dnnl::memory(dst_md, CpuEngine(), DNNL_MEMORY_NONE);
    return m;
  } catch (const dnnl::error&) {
    return nullptr;  // not supported here: the loop kernel takes over
  }
}

// bf16 and f16 products where oneDNN has no kernel for them (CPUs without
// AVX-512 bf16/fp16; the loop kernel took 4-6x JAX's time) run in float32
// (half_convert.h's Widening: widened operands, the float32 product on
// oneDNN or sgemm, the result rounded back), as XLA's CPU backend computes
// them: the same float32 accumulation and one rounding as the loop kernel.

class DotGeneralThunk : public Thunk {
 public:
  DotGeneralThunk(SlotId lhs, SlotId rhs, SlotId out, OperandPlan l, OperandPlan r,
                  std::unique_ptr<OneDnnMatmul> onednn, std::optional<BlasGemm> blas,
                  LoopKernel loop, int64_t out_bytes, std::optional<Widening> widening,
                  SlotId packed)
      : lhs_(lhs), rhs_(rhs), out_(out), l_(std::move(l)), r_(std::move(r)),
        onednn_(std::move(onednn)), blas_(std::move(blas)), loop_(loop), out_bytes_(out_bytes),
        widening_(widening), packed_(packed) {}

  void Execute(void* const* buffers) const override {
    const void* lhs = buffers[lhs_];
    const void* rhs = buffers[rhs_];
    void* out = buffers[out_];
    if (l_.needs_copy) {
      RunStridedCopy(l_.copy, buffers[l_.scratch], lhs);
      lhs = buffers[l_.scratch];
    }
    if (r_.needs_copy) {
      RunStridedCopy(r_.copy, buffers[r_.scratch], rhs);
      rhs = buffers[r_.scratch];
    }
    if (l_.view.dims[2] == 0) {  // empty contraction: all zeros
      std::memset(out, 0, out_bytes_);
      return;
    }
    void* packed = packed_ >= 0 ? buffers[packed_] : nullptr;
    if (widening_) {
      widening_->Execute(buffers, lhs, rhs, out, [&](const float* l, const float* r, float* o) {
        Multiply(l, r, o, packed);
      });
      return;
    }
    Multiply(lhs, rhs, out, packed);
  }

 private:
  void Multiply(const void* lhs, const void* rhs, void* out, void* packed) const {
    if (onednn_) {
      onednn_->src.set_data_handle(const_cast<void*>(lhs));
      onednn_->weights.set_data_handle(const_cast<void*>(rhs));
      onednn_->dst.set_data_handle(out);
      dnnl::memory* weights = &onednn_->weights;
      if (onednn_->pack) {
        onednn_->packed.set_data_handle(packed);
        onednn_->pack->execute(onednn_->stream, onednn_->weights, onednn_->packed);
        weights = &onednn_->packed;
      }
      onednn_->primitive.execute(onednn_->stream, {{DNNL_ARG_SRC, onednn_->src},
                                                  {DNNL_ARG_WEIGHTS, *weights},
                                                  {DNNL_ARG_DST, onednn_->dst}});
      onednn_->stream.wait();
      return;
    }
    if (blas_) {
      RunBlasGemm(*blas_, lhs, rhs, out);
      return;
    }
    loop_(l_.view, r_.view, lhs, rhs, out);
  }

  SlotId lhs_, rhs_, out_;
  OperandPlan l_, r_;
  std::unique_ptr<OneDnnMatmul> onednn_;
  std::optional<BlasGemm> blas_;  // float64 and complex (oneDNN has no such matmul)
  LoopKernel loop_;
  int64_t out_bytes_;
  std::optional<Widening> widening_;
  SlotId packed_;  // scratch for the packed weights (OneDnnMatmul::pack), or -1
};

}  // namespace

dnnl::engine& OneDnnEngine() { return CpuEngine(); }

absl::StatusOr<std::unique_ptr<Thunk>> MakeDotGeneralThunk(const Instruction& instr,
                                                           SlotId lhs, SlotId rhs, SlotId output,
                                                           LoweringContext& ctx) {
  if (std::unique_ptr<Thunk> small = MakeSmallMatmulThunk(instr, lhs, rhs, output)) return small;
  const DotDimensionNumbers& dn = instr.attrs<DotGeneralAttrs>().dot_dimension_numbers;
  const Shape& ls = instr.operand(0)->shape();
  const Shape& rs = instr.operand(1)->shape();
  if (ls.dtype != rs.dtype || instr.shape().dtype != ls.dtype) {
    return absl::UnimplementedError(absl::StrCat(
        "dot_general: the cpu backend needs equal element types, got ", ls.ToString(), ", ",
        rs.ToString(), " -> ", instr.shape().ToString()));
  }
  std::vector<int64_t> lhs_free = dn.LhsFreeDimensions(ls.rank());
  std::vector<int64_t> rhs_free = dn.RhsFreeDimensions(rs.rank());
  auto plan_lhs = [&](bool force) {
    return PlanOperand(ls, dn.lhs_batching_dimensions, lhs_free, dn.lhs_contracting_dimensions,
                       force);
  };
  auto plan_rhs = [&](bool force) {
    return PlanOperand(rs, dn.rhs_batching_dimensions, dn.rhs_contracting_dimensions, rhs_free,
                       force);
  };
  OperandPlan l = plan_lhs(false), r = plan_rhs(false);
  const int64_t M = l.view.dims[1], N = r.view.dims[2];

  const bool nonempty = l.view.dims[0] * M * N > 0 && l.view.dims[2] > 0;
  std::unique_ptr<OneDnnMatmul> onednn;
  std::optional<BlasGemm> blas;
  // oneDNN, else BLAS where it has the type, computing in type t.
  auto choose = [&](DType t) {
    if (!nonempty) return;
    onednn = TryOneDnn(t, l.view, r.view, M, N);
    if (!onednn && !(l.needs_copy && r.needs_copy)) {
      // oneDNN may reject an unusual stride pattern yet take packed copies.
      OperandPlan lp = plan_lhs(true), rp = plan_rhs(true);
      onednn = TryOneDnn(t, lp.view, rp.view, M, N);
      if (onednn) {
        l = std::move(lp);
        r = std::move(rp);
      }
    }
    if (onednn && onednn->generic_gemm && !l.needs_copy && !r.needs_copy) {
      blas = PlanBlasGemm(t, l.view.dims, l.view.strides, r.view.dims, r.view.strides);
      if (blas && PreferBlasForF32(*blas)) {
        onednn = nullptr;
      } else {
        blas = std::nullopt;
      }
    }
    if (!onednn && !blas && t != DType::kF32) {
      auto plan_blas = [&](const OperandPlan& lp, const OperandPlan& rp) {
        return PlanBlasGemm(t, lp.view.dims, lp.view.strides, rp.view.dims, rp.view.strides);
      };
      blas = plan_blas(l, r);
      if (!blas && !(l.needs_copy && r.needs_copy)) {
        OperandPlan lp = plan_lhs(true), rp = plan_rhs(true);
        blas = plan_blas(lp, rp);
        if (blas) {
          l = std::move(lp);
          r = std::move(rp);
        }
      }
    }
  };
  choose(ls.dtype);
  std::optional<Widening> widening;
  if (nonempty && !onednn && !blas && (ls.dtype == DType::kBF16 || ls.dtype == DType::kF16)) {
    choose(DType::kF32);
    if (onednn || blas) widening = Widening::For(instr, ctx);
  }
  if (l.needs_copy) l.scratch = ctx.NewScratch(ls.byte_size());
  if (r.needs_copy) r.scratch = ctx.NewScratch(rs.byte_size());
  const SlotId packed = onednn && onednn->pack ? ctx.NewScratch(onednn->packed_bytes) : -1;
  LoopKernel loop = DispatchDType(ls.dtype, [](auto tag) -> LoopKernel {
    using T = typename decltype(tag)::type;
    return &LoopMatmulErased<T>;
  });
  return std::unique_ptr<Thunk>(new DotGeneralThunk(lhs, rhs, output, std::move(l), std::move(r),
                                                    std::move(onednn), std::move(blas), loop,
                                                    instr.shape().byte_size(), widening, packed));
}

}  // namespace xjit::cpu
