// Conversions between the 16-bit floats (bf16, f16) and float32, in parallel
// chunks, for kernels that compute them in float32 where oneDNN has no
// kernel for them (CPUs without AVX-512 bf16/fp16): matmul, convolution.
// Narrowing rounds to nearest even, as the types' own conversions do.
#pragma once

#include <cstdint>

#include "xjit/ir/dtype.h"

namespace xjit::cpu {

using WidenFn = void (*)(const void* in, float* out, int64_t n);
using NarrowFn = void (*)(const float* in, void* out, int64_t n);

// For kBF16 and kF16; null for other types.
WidenFn WidenToF32(DType t);
NarrowFn NarrowFromF32(DType t);

}  // namespace xjit::cpu
