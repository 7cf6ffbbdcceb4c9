// Conversions between the 16-bit floats (bf16, f16) and float32, in parallel
// chunks, for kernels that compute them in float32 where oneDNN has no
// kernel for them (CPUs without AVX-512 bf16/fp16): matmul, convolution.
// Narrowing rounds to nearest even, as the types' own conversions do.
#pragma once

#include <cstdint>

#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/dtype.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

using WidenFn = void (*)(const void* in, float* out, int64_t n);
using NarrowFn = void (*)(const float* in, void* out, int64_t n);

// For kBF16 and kF16; null for other types.
WidenFn WidenToF32(DType t);
NarrowFn NarrowFromF32(DType t);

// A two-operand op of 16-bit floats run in float32: float32 scratch for both
// operands and the result.
struct Widening {
  SlotId lhs = -1, rhs = -1, out = -1;
  int64_t lhs_elements = 0, rhs_elements = 0, out_elements = 0;
  WidenFn widen = nullptr;
  NarrowFn narrow = nullptr;

  // The scratch for `instr` (operands and result of type bf16 or f16).
  static Widening For(const Instruction& instr, LoweringContext& ctx);

  // Widens lhs and rhs, calls run(lhs32, rhs32, out32), narrows into out.
  template <typename Run>
  void Execute(void* const* buffers, const void* lhs, const void* rhs, void* out,
               const Run& run) const {
    float* l32 = static_cast<float*>(buffers[this->lhs]);
    float* r32 = static_cast<float*>(buffers[this->rhs]);
    float* o32 = static_cast<float*>(buffers[this->out]);
    widen(lhs, l32, lhs_elements);
    widen(rhs, r32, rhs_elements);
    run(l32, r32, o32);
    narrow(o32, out, out_elements);
  }
};

}  // namespace xjit::cpu
