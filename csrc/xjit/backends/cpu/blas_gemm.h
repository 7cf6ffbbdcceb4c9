// Matrix products through BLAS (OpenBLAS, already linked for LAPACK) for the
// element types oneDNN's matmul lacks: float64, complex64 and complex128.
// One gemm call per batch matrix; OpenBLAS splits each over the OpenMP team.
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
};

// The gemm of operands seen as [batch, rows, cols] with element strides
// (lhs [B, M, K], rhs [B, K, N]), when BLAS takes `dtype` and each matrix is
// row- or column-major; nullopt otherwise.
std::optional<BlasGemm> PlanBlasGemm(DType dtype, const int64_t lhs_dims[3],
                                     const int64_t lhs_strides[3], const int64_t rhs_dims[3],
                                     const int64_t rhs_strides[3]);

void RunBlasGemm(const BlasGemm& g, const void* lhs, const void* rhs, void* out);

}  // namespace xjit::cpu
