#include "xjit/backends/cpu/small_matmul.h"

#include <cstdint>
#include <cstring>

#include "xjit/backends/cpu/isa_clones.h"

namespace xjit::cpu {
namespace {

// out[m, n] = sum_k lhs[m * lsm + k * lsk] * rhs[k * N + n], the sum taken in
// k order (as the general loop kernel does), vectorized over n.
struct SmallMatmulShape {
  int64_t M, K, N;
  int64_t lhs_m_stride, lhs_k_stride;
};

// 8 floats as one value: one AVX2 register (or the low half of an AVX-512
// one), two SSE registers. Eight of them hold a 64-column block of the output
// across the whole k loop (a plain array there stays in memory, and every k
// would store and reload it). Not 16: GCC keeps a 64-byte vector in registers
// only where the CPU has 64-byte registers, and elsewhere moves it through the
// stack in 16-byte pieces on every use (the AVX2 clone ran 30x slower).
using F8 = float __attribute__((vector_size(32)));
// The same, at any float's address (loads and stores of rows; through a
// memcpy GCC kept the accumulators on the stack, zeroed them with `rep stos`
// and stored them in 16-byte pieces).
using UnalignedF8 = float __attribute__((vector_size(32), aligned(4), may_alias));
constexpr int64_t kLanes = 8;
constexpr int64_t kAccumulators = 8;
constexpr int64_t kColumnBlock = kLanes * kAccumulators;

XJIT_ISA_CLONES void SmallMatmulF32(const SmallMatmulShape& s, const float* __restrict lhs,
                                    const float* __restrict rhs, float* __restrict out) {
  for (int64_t m = 0; m < s.M; ++m) {
    float* __restrict o = out + m * s.N;
    const float* l = lhs + m * s.lhs_m_stride;
    int64_t n0 = 0;
    for (; n0 + kColumnBlock <= s.N; n0 += kColumnBlock) {
      F8 acc[kAccumulators];
      for (int64_t j = 0; j < kAccumulators; ++j) acc[j] = F8{};
      for (int64_t k = 0; k < s.K; ++k) {
        const F8 a = F8{} + l[k * s.lhs_k_stride];  // broadcast (0 + -0 is +0: the
                                                    // sums start at +0 either way)
        const float* row = rhs + k * s.N + n0;
        for (int64_t j = 0; j < kAccumulators; ++j) {
          acc[j] += a * *reinterpret_cast<const UnalignedF8*>(row + j * kLanes);
        }
      }
      for (int64_t j = 0; j < kAccumulators; ++j) {
        *reinterpret_cast<UnalignedF8*>(o + n0 + j * kLanes) = acc[j];
      }
    }
    if (n0 == s.N) continue;
    for (int64_t n = n0; n < s.N; ++n) o[n] = 0.0f;
    for (int64_t k = 0; k < s.K; ++k) {
      const float a = l[k * s.lhs_k_stride];
      const float* __restrict r = rhs + k * s.N;
      for (int64_t n = n0; n < s.N; ++n) o[n] += a * r[n];
    }
  }
}

class SmallMatmulThunk : public Thunk {
 public:
  SmallMatmulThunk(SmallMatmulShape shape, SlotId lhs, SlotId rhs, SlotId out)
      : shape_(shape), lhs_(lhs), rhs_(rhs), out_(out) {}
  void Execute(void* const* buffers) const override {
    SmallMatmulF32(shape_, static_cast<const float*>(buffers[lhs_]),
                   static_cast<const float*>(buffers[rhs_]), static_cast<float*>(buffers[out_]));
  }
  void RunStep(const void* const* in, void* out) const {
    SmallMatmulF32(shape_, static_cast<const float*>(in[0]), static_cast<const float*>(in[1]),
                   static_cast<float*>(out));
  }
  bool AppendSteps(void* const* buffers, std::vector<KernelStep>* steps) const override {
    steps->push_back(ThunkStep(this, buffers[lhs_], buffers[rhs_], nullptr, buffers[out_]));
    return true;
  }

 private:
  SmallMatmulShape shape_;
  SlotId lhs_, rhs_, out_;
};

int64_t ProductExcept(const Shape& s, int64_t skip) {
  int64_t p = 1;
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (d != skip) p *= s.dims[d];
  }
  return p;
}

}  // namespace

std::unique_ptr<Thunk> MakeSmallMatmulThunk(const Instruction& dot, SlotId lhs, SlotId rhs,
                                            SlotId output) {
  const DotDimensionNumbers& dn = dot.attrs<DotGeneralAttrs>().dot_dimension_numbers;
  const Shape& ls = dot.operand(0)->shape();
  const Shape& rs = dot.operand(1)->shape();
  if (ls.dtype != DType::kF32 || rs.dtype != DType::kF32 || dot.shape().dtype != DType::kF32 ||
      !dn.lhs_batching_dimensions.empty() || !dn.rhs_batching_dimensions.empty() ||
      dn.lhs_contracting_dimensions.size() != 1 || dn.rhs_contracting_dimensions.size() != 1) {
    return nullptr;
  }
  const int64_t lc = dn.lhs_contracting_dimensions[0], rc = dn.rhs_contracting_dimensions[0];
  // rhs must be [K, N...] (contracting first) so that n runs contiguously.
  if (rc != 0 || (lc != 0 && lc != ls.rank() - 1)) return nullptr;
  SmallMatmulShape s;
  s.K = ls.dims[lc];
  s.M = ProductExcept(ls, lc);
  s.N = ProductExcept(rs, rc);
  if (s.K != rs.dims[rc] || s.M * s.N * s.K > kSmallMatmulWork || s.M * s.N * s.K == 0) {
    return nullptr;
  }
  // lhs [M..., K] (k contiguous) or [K, M...] (m contiguous).
  const bool k_last = lc == ls.rank() - 1;
  s.lhs_m_stride = k_last ? s.K : 1;
  s.lhs_k_stride = k_last ? 1 : s.M;
  return std::make_unique<SmallMatmulThunk>(s, lhs, rhs, output);
}

}  // namespace xjit::cpu
