#include "xjit/backends/cpu/half_convert.h"

#include <type_traits>

#include "xjit/backends/cpu/isa_clones.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/ir/half.h"

namespace xjit::cpu {
namespace {

constexpr int64_t kChunk = 16 * 1024;

template <typename H>
XJIT_ISA_CLONES void WidenChunk(const H* __restrict in, float* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = float(in[i]);
}

template <typename H>
XJIT_ISA_CLONES void NarrowChunk(const float* __restrict in, H* __restrict out, int64_t n) {
  if constexpr (std::is_same_v<H, bf16>) {
    // bf16(float) without its branch, so the loop vectorises: round to
    // nearest even; a NaN keeps its top bits and becomes quiet.
    const uint32_t* bits = reinterpret_cast<const uint32_t*>(in);
    uint16_t* o = reinterpret_cast<uint16_t*>(out);
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t b = bits[i];
      const uint32_t rounded = (b + 0x7FFFu + ((b >> 16) & 1u)) >> 16;
      const bool nan = (b & 0x7FFFFFFFu) > 0x7F800000u;
      o[i] = static_cast<uint16_t>(nan ? (b >> 16) | 0x40u : rounded);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = H(in[i]);
  }
}

template <typename H>
void Widen(const void* in, float* out, int64_t n) {
  const H* h = static_cast<const H*>(in);
  ParallelFor(n, kChunk, n, [&](int64_t b, int64_t e) { WidenChunk<H>(h + b, out + b, e - b); });
}

template <typename H>
void Narrow(const float* in, void* out, int64_t n) {
  H* h = static_cast<H*>(out);
  ParallelFor(n, kChunk, n, [&](int64_t b, int64_t e) { NarrowChunk<H>(in + b, h + b, e - b); });
}

}  // namespace

WidenFn WidenToF32(DType t) {
  if (t == DType::kBF16) return &Widen<bf16>;
  if (t == DType::kF16) return &Widen<f16>;
  return nullptr;
}

NarrowFn NarrowFromF32(DType t) {
  if (t == DType::kBF16) return &Narrow<bf16>;
  if (t == DType::kF16) return &Narrow<f16>;
  return nullptr;
}

Widening Widening::For(const Instruction& instr, LoweringContext& ctx) {
  Widening w;
  w.lhs_elements = instr.operand(0)->shape().num_elements();
  w.rhs_elements = instr.operand(1)->shape().num_elements();
  w.out_elements = instr.shape().num_elements();
  w.lhs = ctx.NewScratch(4 * w.lhs_elements);
  w.rhs = ctx.NewScratch(4 * w.rhs_elements);
  w.out = ctx.NewScratch(4 * w.out_elements);
  w.widen = WidenToF32(instr.operand(0)->shape().dtype);
  w.narrow = NarrowFromF32(instr.shape().dtype);
  return w;
}

}  // namespace xjit::cpu
