// float64 and complex matrix products on Eigen's GEMM, where the build gave
// it AVX-512 (eigen_gemm.cc is compiled for the building machine's ISA, as
// ducc0 is: xjit is built from source where it runs). OpenBLAS keeps them
// otherwise: on AVX2 its kernels reach the same peak, and this workplace pins
// OpenBLAS to its Haswell (AVX2) kernels with OPENBLAS_CORETYPE, because
// older builds compute wrong results with their AVX-512 ones on AMD's CPUs.
#pragma once

#include "xjit/backends/cpu/blas_gemm.h"
#include "xjit/ir/dtype.h"

namespace xjit::cpu {

// Whether RunEigenGemm takes products of `dtype` on this CPU.
bool EigenGemmTakes(DType dtype);

// out[b] = lhs[b] * rhs[b] as BlasGemm describes it (row-major output).
void RunEigenGemm(const BlasGemm& g, const void* lhs, const void* rhs, void* out);

}  // namespace xjit::cpu
