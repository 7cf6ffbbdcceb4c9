// float32 sine and cosine of contiguous runs on Eigen's vectorised psin/pcos
// (a Cody-Waite reduction with a Payne-Hanek path for huge arguments, then
// a polynomial; within 2 ulp of libm's sinf/cosf, which the interpreter and
// the reference backend use). libm's scalar sinf costs ~4 ns an element.
// eigen_math.cc is compiled for the building machine's ISA, as eigen_gemm.cc
// is: EigenTrigAvailable says whether this CPU runs it.
#pragma once

#include <cstdint>

namespace xjit::cpu {

// Whether this CPU runs the Eigen files as built (x86-64-v4 where the
// building machine had AVX-512: guards a build copied to an older CPU).
bool EigenBuildRuns();
// Whether EigenSinF32/EigenCosF32 run here (EigenBuildRuns).
inline bool EigenTrigAvailable() { return EigenBuildRuns(); }
void EigenSinF32(const float* x, float* y, int64_t n);
void EigenCosF32(const float* x, float* y, int64_t n);

}  // namespace xjit::cpu
