#include "xjit/backends/cpu/eigen_gemm.h"

#include <complex>

// Only this file and eigen_math.cc include Eigen, and CMake compiles both
// with the same flags (for AVX-512 where the building machine has it): their
// out-of-line template instances (all in namespace Eigen; `nm` shows no std::
// ones) must not be shared with a baseline-compiled user of the same templates.
#include <Eigen/Core>

#include "xjit/backends/cpu/eigen_math.h"

namespace xjit::cpu {
namespace {

template <typename T, int kOrder>
using MatrixOf = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, kOrder>;

// A BLAS operand (`trans`: stored column-major) as an Eigen map: rows x cols
// with leading dimension ld.
template <typename T, int kOrder>
using MapOf = Eigen::Map<const MatrixOf<T, kOrder>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <typename T, int kLhsOrder, int kRhsOrder>
void Products(const BlasGemm& g, const T* a, const T* b, T* c) {
  using Out = Eigen::Map<MatrixOf<T, Eigen::RowMajor>>;
  for (int64_t i = 0; i < g.batch; ++i) {
    MapOf<T, kLhsOrder> lhs(a + i * g.lhs_batch_stride, g.m, g.k, Eigen::OuterStride<>(g.lda));
    MapOf<T, kRhsOrder> rhs(b + i * g.rhs_batch_stride, g.k, g.n, Eigen::OuterStride<>(g.ldb));
    Out out(c + i * g.m * g.n, g.m, g.n);
    out.noalias() = lhs * rhs;
  }
}

template <typename T>
void Gemm(const BlasGemm& g, const void* lhs, const void* rhs, void* out) {
  const T* a = static_cast<const T*>(lhs);
  const T* b = static_cast<const T*>(rhs);
  T* c = static_cast<T*>(out);
  constexpr int kRow = Eigen::RowMajor, kCol = Eigen::ColMajor;
  if (!g.trans_lhs && !g.trans_rhs) return Products<T, kRow, kRow>(g, a, b, c);
  if (!g.trans_lhs) return Products<T, kRow, kCol>(g, a, b, c);
  if (!g.trans_rhs) return Products<T, kCol, kRow>(g, a, b, c);
  Products<T, kCol, kCol>(g, a, b, c);
}

}  // namespace

bool EigenGemmTakes(DType dtype) {
#if defined(__AVX512F__) && defined(__x86_64__)
  return EigenBuildRuns() &&
         (dtype == DType::kF64 || dtype == DType::kC64 || dtype == DType::kC128);
#else
  (void)dtype;
  return false;
#endif
}

void RunEigenGemm(const BlasGemm& g, const void* lhs, const void* rhs, void* out) {
  switch (g.dtype) {
    case DType::kF64: return Gemm<double>(g, lhs, rhs, out);
    case DType::kC64: return Gemm<std::complex<float>>(g, lhs, rhs, out);
    case DType::kC128: return Gemm<std::complex<double>>(g, lhs, rhs, out);
    default: return;
  }
}

}  // namespace xjit::cpu
