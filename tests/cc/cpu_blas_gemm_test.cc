// RunBlasGemm on every operand layout BlasGemm describes (row- or
// column-major lhs and rhs, with padded leading dimensions, batched), for
// float64 and complex, against a plain loop: on AVX-512 builds these run on
// Eigen (eigen_gemm.h), elsewhere on OpenBLAS. dot_general's lowering only
// reaches some of the layouts, so each is driven here directly.
#include <complex>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "xjit/backends/cpu/blas_gemm.h"
#include "xjit/backends/cpu/eigen_gemm.h"

namespace xjit::cpu {
namespace {

template <typename T>
T Random(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  if constexpr (std::is_same_v<T, double>) {
    return u(rng);
  } else {
    using R = typename T::value_type;
    return T(static_cast<R>(u(rng)), static_cast<R>(u(rng)));
  }
}

// [B, M, K] x [B, K, N]; each matrix row-major or column-major with its
// leading dimension padded by 3.
template <typename T>
void CheckLayout(DType dtype, bool lhs_column_major, bool rhs_column_major, double tol) {
  const int64_t B = 2, M = 37, K = 29, N = 23, pad = 3;
  std::mt19937 rng(7);
  auto strides = [&](int64_t rows, int64_t cols, bool column_major, int64_t* s) {
    const int64_t ld = (column_major ? rows : cols) + pad;
    s[1] = column_major ? 1 : ld;
    s[2] = column_major ? ld : 1;
    s[0] = ld * (column_major ? cols : rows);
  };
  int64_t ls[3], rs[3];
  strides(M, K, lhs_column_major, ls);
  strides(K, N, rhs_column_major, rs);
  std::vector<T> lhs(B * ls[0]), rhs(B * rs[0]), out(B * M * N);
  for (T& v : lhs) v = Random<T>(rng);
  for (T& v : rhs) v = Random<T>(rng);
  const int64_t ld[3] = {B, M, K}, rd[3] = {B, K, N};
  std::optional<BlasGemm> g = PlanBlasGemm(dtype, ld, ls, rd, rs);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->trans_lhs, lhs_column_major);
  EXPECT_EQ(g->trans_rhs, rhs_column_major);
  EXPECT_EQ(g->on_eigen, EigenGemmTakes(dtype));
  RunBlasGemm(*g, lhs.data(), rhs.data(), out.data());
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t n = 0; n < N; ++n) {
        std::complex<double> want = 0;
        for (int64_t k = 0; k < K; ++k) {
          want += std::complex<double>(lhs[b * ls[0] + m * ls[1] + k * ls[2]]) *
                  std::complex<double>(rhs[b * rs[0] + k * rs[1] + n * rs[2]]);
        }
        const std::complex<double> got(out[(b * M + m) * N + n]);
        ASSERT_NEAR(std::abs(got - want), 0.0, tol)
            << "batch " << b << " (" << m << ", " << n << "), lhs column-major "
            << lhs_column_major << ", rhs column-major " << rhs_column_major;
      }
    }
  }
}

TEST(CpuBlasGemm, EveryLayoutMatchesALoop) {
  for (bool lc : {false, true}) {
    for (bool rc : {false, true}) {
      CheckLayout<double>(DType::kF64, lc, rc, 1e-12);
      CheckLayout<std::complex<float>>(DType::kC64, lc, rc, 1e-4);
      CheckLayout<std::complex<double>>(DType::kC128, lc, rc, 1e-12);
    }
  }
}

}  // namespace
}  // namespace xjit::cpu
