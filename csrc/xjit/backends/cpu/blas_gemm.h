// Matrix products through BLAS (OpenBLAS, already linked for LAPACK) for the
// element types oneDNN's matmul lacks (float64, complex64, complex128), and
// for the float32 shapes where oneDNN's gemm:jit kernel is measured slower
// (PreferBlasForF32). One gemm call per batch matrix; OpenBLAS splits each
// over the OpenMP team. On AVX-512 builds the float64 and complex ones run on
// Eigen's GEMM instead (eigen_gemm.h, `on_eigen`).
#pragma once

#include <cstdint>
#include <optional>

#include "xjit/ir/dtype.h"

namespace xjit::cpu {

// out[b] = lhs[b] (M x K) * rhs[b] (K x N), out row-major and contiguous.
struct BlasGemm {
  DType dtype = DType::kF64;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool trans_lhs = false, trans_rhs = false;  // stored column-major
  int64_t lda = 1, ldb = 1;                   // leading dimensions, in elements
  int64_t lhs_batch_stride = 0, rhs_batch_stride = 0;
  bool on_eigen = false;  // run by RunEigenGemm (eigen_gemm.h), not by OpenBLAS
};

// The gemm of operands seen as [batch, rows, cols] with element strides
// (lhs [B, M, K], rhs [B, K, N]), when BLAS takes `dtype` (float32 too) and
// each matrix is row- or column-major; nullopt otherwise.
std::optional<BlasGemm> PlanBlasGemm(DType dtype, const int64_t lhs_dims[3],
                                     const int64_t lhs_strides[3], const int64_t rhs_dims[3],
                                     const int64_t rhs_strides[3]);

void RunBlasGemm(const BlasGemm& g, const void* lhs, const void* rhs, void* out);

// Whether a float32 product oneDNN would run with its generic gemm:jit kernel
// (CPUs without AVX-512, where oneDNN has no brgemm matmul) is faster as
// OpenBLAS's sgemm. Measured on the 2-core AVX2 EPYC (docs/performance.md,
// fourth session): gemm:jit takes 1.1-1.7x sgemm's time when the row-major
// rhs has a power-of-two row of 512+ elements (K >= 256, 64 <= M <= 1024) or the
// lhs is column-major with 512 or 1024 rows (x.T @ g of a backward pass), and
// is as fast or faster elsewhere. A fixed rule, not a timing at compile time, so
// that a program computes the same bits in every run.
bool PreferBlasForF32(const BlasGemm& g);

}  // namespace xjit::cpu
