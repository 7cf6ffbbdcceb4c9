#include "xjit/backends/cpu/blas_gemm.h"

#include <cblas.h>

#include <algorithm>
#include <complex>

#include "xjit/backends/cpu/eigen_gemm.h"

namespace xjit::cpu {
namespace {

// One matrix in BLAS terms: transposed or not, and its leading dimension.
// `rows` x `cols` with strides (`row_stride`, `col_stride`); a dimension of
// size 1 may have any stride.
bool BlasLayout(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride, bool* trans,
                int64_t* ld) {
  if (cols == 1 || col_stride == 1) {
    *trans = false;
    *ld = rows == 1 ? std::max<int64_t>(cols, 1) : row_stride;
    return *ld >= std::max<int64_t>(cols, 1);
  }
  if (rows == 1 || row_stride == 1) {
    *trans = true;
    *ld = cols == 1 ? std::max<int64_t>(rows, 1) : col_stride;
    return *ld >= std::max<int64_t>(rows, 1);
  }
  return false;
}

// cblas takes int dimensions.
bool FitsInt(int64_t v) { return v >= 0 && v <= 0x7fffffff; }

template <typename T>
void Gemm(const BlasGemm& g, const T* a, const T* b, T* c) {
  const CBLAS_TRANSPOSE ta = g.trans_lhs ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = g.trans_rhs ? CblasTrans : CblasNoTrans;
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  const int lda = static_cast<int>(g.lda), ldb = static_cast<int>(g.ldb);
  for (int64_t i = 0; i < g.batch; ++i) {
    const T* ai = a + i * g.lhs_batch_stride;
    const T* bi = b + i * g.rhs_batch_stride;
    T* ci = c + i * g.m * g.n;
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, ai, lda, bi, ldb, 0.0f, ci, n);
    } else if constexpr (std::is_same_v<T, double>) {
      cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, ai, lda, bi, ldb, 0.0, ci, n);
    } else if constexpr (std::is_same_v<T, std::complex<float>>) {
      const T one(1), zero(0);
      cblas_cgemm(CblasRowMajor, ta, tb, m, n, k, &one, ai, lda, bi, ldb, &zero, ci, n);
    } else {
      const T one(1), zero(0);
      cblas_zgemm(CblasRowMajor, ta, tb, m, n, k, &one, ai, lda, bi, ldb, &zero, ci, n);
    }
  }
}

}  // namespace

std::optional<BlasGemm> PlanBlasGemm(DType dtype, const int64_t lhs_dims[3],
                                     const int64_t lhs_strides[3], const int64_t rhs_dims[3],
                                     const int64_t rhs_strides[3]) {
  if (dtype != DType::kF32 && dtype != DType::kF64 && dtype != DType::kC64 &&
      dtype != DType::kC128) {
    return std::nullopt;
  }
  BlasGemm g;
  g.dtype = dtype;
  g.batch = lhs_dims[0];
  g.m = lhs_dims[1];
  g.k = lhs_dims[2];
  g.n = rhs_dims[2];
  g.lhs_batch_stride = lhs_strides[0];
  g.rhs_batch_stride = rhs_strides[0];
  if (rhs_dims[0] != g.batch || rhs_dims[1] != g.k || g.m == 0 || g.n == 0 || g.k == 0) {
    return std::nullopt;
  }
  if (!BlasLayout(g.m, g.k, lhs_strides[1], lhs_strides[2], &g.trans_lhs, &g.lda) ||
      !BlasLayout(g.k, g.n, rhs_strides[1], rhs_strides[2], &g.trans_rhs, &g.ldb)) {
    return std::nullopt;
  }
  for (int64_t v : {g.m, g.n, g.k, g.lda, g.ldb}) {
    if (!FitsInt(v)) return std::nullopt;
  }
  g.on_eigen = EigenGemmTakes(dtype);
  return g;
}

bool PreferBlasForF32(const BlasGemm& g) {
  auto pow2_between = [](int64_t v, int64_t lo, int64_t hi) {
    return v >= lo && v <= hi && (v & (v - 1)) == 0;
  };
  if (g.dtype != DType::kF32 || g.m < 64 || g.m > 1024) return false;
  return (!g.trans_rhs && g.k >= 256 && pow2_between(g.n, 512, int64_t{1} << 20)) ||
         (g.trans_lhs && pow2_between(g.m, 512, 1024));
}

void RunBlasGemm(const BlasGemm& g, const void* lhs, const void* rhs, void* out) {
  if (g.on_eigen) return RunEigenGemm(g, lhs, rhs, out);
  switch (g.dtype) {
    case DType::kF32:
      Gemm(g, static_cast<const float*>(lhs), static_cast<const float*>(rhs),
           static_cast<float*>(out));
      break;
    case DType::kF64:
      Gemm(g, static_cast<const double*>(lhs), static_cast<const double*>(rhs),
           static_cast<double*>(out));
      break;
    case DType::kC64:
      Gemm(g, static_cast<const std::complex<float>*>(lhs),
           static_cast<const std::complex<float>*>(rhs), static_cast<std::complex<float>*>(out));
      break;
    case DType::kC128:
      Gemm(g, static_cast<const std::complex<double>*>(lhs),
           static_cast<const std::complex<double>*>(rhs), static_cast<std::complex<double>*>(out));
      break;
    default:
      break;
  }
}

}  // namespace xjit::cpu
