// Typed overloads of the LAPACK routines the custom_call targets use
// (float, double, complex<float>, complex<double>), over OpenBLAS's Fortran
// LAPACK with the prototypes of LAPACKE's lapack.h. Matrices are
// column-major, as LAPACK wants them. Workspace sizes are asked with
// lwork = -1 by the callers.
#pragma once

#include <complex>

#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapack.h>

namespace xjit::lapack {

using c64 = std::complex<float>;
using c128 = std::complex<double>;

template <typename T> struct RealOf { using type = T; };
template <typename T> struct RealOf<std::complex<T>> { using type = T; };
template <typename T> using Real = typename RealOf<T>::type;
template <typename T> inline constexpr bool kIsComplex = !std::is_same_v<T, Real<T>>;

// ---- potrf: Cholesky
inline void Potrf(char uplo, lapack_int n, float* a, lapack_int lda, lapack_int* info) { LAPACK_spotrf(&uplo, &n, a, &lda, info); }
inline void Potrf(char uplo, lapack_int n, double* a, lapack_int lda, lapack_int* info) { LAPACK_dpotrf(&uplo, &n, a, &lda, info); }
inline void Potrf(char uplo, lapack_int n, c64* a, lapack_int lda, lapack_int* info) { LAPACK_cpotrf(&uplo, &n, a, &lda, info); }
inline void Potrf(char uplo, lapack_int n, c128* a, lapack_int lda, lapack_int* info) { LAPACK_zpotrf(&uplo, &n, a, &lda, info); }

// ---- getrf: LU with partial pivoting
inline void Getrf(lapack_int m, lapack_int n, float* a, lapack_int* ipiv, lapack_int* info) { LAPACK_sgetrf(&m, &n, a, &m, ipiv, info); }
inline void Getrf(lapack_int m, lapack_int n, double* a, lapack_int* ipiv, lapack_int* info) { LAPACK_dgetrf(&m, &n, a, &m, ipiv, info); }
inline void Getrf(lapack_int m, lapack_int n, c64* a, lapack_int* ipiv, lapack_int* info) { LAPACK_cgetrf(&m, &n, a, &m, ipiv, info); }
inline void Getrf(lapack_int m, lapack_int n, c128* a, lapack_int* ipiv, lapack_int* info) { LAPACK_zgetrf(&m, &n, a, &m, ipiv, info); }

// ---- geqrf: QR as Householder reflectors
inline void Geqrf(lapack_int m, lapack_int n, float* a, float* tau, float* work, lapack_int lwork, lapack_int* info) { LAPACK_sgeqrf(&m, &n, a, &m, tau, work, &lwork, info); }
inline void Geqrf(lapack_int m, lapack_int n, double* a, double* tau, double* work, lapack_int lwork, lapack_int* info) { LAPACK_dgeqrf(&m, &n, a, &m, tau, work, &lwork, info); }
inline void Geqrf(lapack_int m, lapack_int n, c64* a, c64* tau, c64* work, lapack_int lwork, lapack_int* info) { LAPACK_cgeqrf(&m, &n, a, &m, tau, work, &lwork, info); }
inline void Geqrf(lapack_int m, lapack_int n, c128* a, c128* tau, c128* work, lapack_int lwork, lapack_int* info) { LAPACK_zgeqrf(&m, &n, a, &m, tau, work, &lwork, info); }

// ---- orgqr / ungqr: the first n columns of the product of k reflectors
inline void Orgqr(lapack_int m, lapack_int n, lapack_int k, float* a, const float* tau, float* work, lapack_int lwork, lapack_int* info) { LAPACK_sorgqr(&m, &n, &k, a, &m, tau, work, &lwork, info); }
inline void Orgqr(lapack_int m, lapack_int n, lapack_int k, double* a, const double* tau, double* work, lapack_int lwork, lapack_int* info) { LAPACK_dorgqr(&m, &n, &k, a, &m, tau, work, &lwork, info); }
inline void Orgqr(lapack_int m, lapack_int n, lapack_int k, c64* a, const c64* tau, c64* work, lapack_int lwork, lapack_int* info) { LAPACK_cungqr(&m, &n, &k, a, &m, tau, work, &lwork, info); }
inline void Orgqr(lapack_int m, lapack_int n, lapack_int k, c128* a, const c128* tau, c128* work, lapack_int lwork, lapack_int* info) { LAPACK_zungqr(&m, &n, &k, a, &m, tau, work, &lwork, info); }

// ---- syevd / heevd: Hermitian eigendecomposition (divide and conquer).
// rwork is unused for real types.
inline void Heevd(char jobz, char uplo, lapack_int n, float* a, float* w, float* work, lapack_int lwork, float*, lapack_int, lapack_int* iwork, lapack_int liwork, lapack_int* info) { LAPACK_ssyevd(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info); }
inline void Heevd(char jobz, char uplo, lapack_int n, double* a, double* w, double* work, lapack_int lwork, double*, lapack_int, lapack_int* iwork, lapack_int liwork, lapack_int* info) { LAPACK_dsyevd(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info); }
inline void Heevd(char jobz, char uplo, lapack_int n, c64* a, float* w, c64* work, lapack_int lwork, float* rwork, lapack_int lrwork, lapack_int* iwork, lapack_int liwork, lapack_int* info) { LAPACK_cheevd(&jobz, &uplo, &n, a, &n, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info); }
inline void Heevd(char jobz, char uplo, lapack_int n, c128* a, double* w, c128* work, lapack_int lwork, double* rwork, lapack_int lrwork, lapack_int* iwork, lapack_int liwork, lapack_int* info) { LAPACK_zheevd(&jobz, &uplo, &n, a, &n, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info); }

// ---- gesdd: SVD (divide and conquer). rwork is unused for real types.
inline void Gesdd(char jobz, lapack_int m, lapack_int n, float* a, float* s, float* u, lapack_int ldu, float* vt, lapack_int ldvt, float* work, lapack_int lwork, float*, lapack_int* iwork, lapack_int* info) { LAPACK_sgesdd(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info); }
inline void Gesdd(char jobz, lapack_int m, lapack_int n, double* a, double* s, double* u, lapack_int ldu, double* vt, lapack_int ldvt, double* work, lapack_int lwork, double*, lapack_int* iwork, lapack_int* info) { LAPACK_dgesdd(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info); }
inline void Gesdd(char jobz, lapack_int m, lapack_int n, c64* a, float* s, c64* u, lapack_int ldu, c64* vt, lapack_int ldvt, c64* work, lapack_int lwork, float* rwork, lapack_int* iwork, lapack_int* info) { LAPACK_cgesdd(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info); }
inline void Gesdd(char jobz, lapack_int m, lapack_int n, c128* a, double* s, c128* u, lapack_int ldu, c128* vt, lapack_int ldvt, c128* work, lapack_int lwork, double* rwork, lapack_int* iwork, lapack_int* info) { LAPACK_zgesdd(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info); }

// ---- geev: general eigendecomposition. Real: (wr, wi) and packed vectors.
inline void GeevReal(char jl, char jr, lapack_int n, float* a, float* wr, float* wi, float* vl, float* vr, float* work, lapack_int lwork, lapack_int* info) { LAPACK_sgeev(&jl, &jr, &n, a, &n, wr, wi, vl, &n, vr, &n, work, &lwork, info); }
inline void GeevReal(char jl, char jr, lapack_int n, double* a, double* wr, double* wi, double* vl, double* vr, double* work, lapack_int lwork, lapack_int* info) { LAPACK_dgeev(&jl, &jr, &n, a, &n, wr, wi, vl, &n, vr, &n, work, &lwork, info); }
inline void GeevComplex(char jl, char jr, lapack_int n, c64* a, c64* w, c64* vl, c64* vr, c64* work, lapack_int lwork, float* rwork, lapack_int* info) { LAPACK_cgeev(&jl, &jr, &n, a, &n, w, vl, &n, vr, &n, work, &lwork, rwork, info); }
inline void GeevComplex(char jl, char jr, lapack_int n, c128* a, c128* w, c128* vl, c128* vr, c128* work, lapack_int lwork, double* rwork, lapack_int* info) { LAPACK_zgeev(&jl, &jr, &n, a, &n, w, vl, &n, vr, &n, work, &lwork, rwork, info); }

// ---- gees: Schur decomposition, no eigenvalue ordering (select unused).
inline void GeesReal(char jobvs, lapack_int n, float* a, lapack_int* sdim, float* wr, float* wi, float* vs, float* work, lapack_int lwork, lapack_logical* bwork, lapack_int* info) { char sort = 'N'; LAPACK_sgees(&jobvs, &sort, nullptr, &n, a, &n, sdim, wr, wi, vs, &n, work, &lwork, bwork, info); }
inline void GeesReal(char jobvs, lapack_int n, double* a, lapack_int* sdim, double* wr, double* wi, double* vs, double* work, lapack_int lwork, lapack_logical* bwork, lapack_int* info) { char sort = 'N'; LAPACK_dgees(&jobvs, &sort, nullptr, &n, a, &n, sdim, wr, wi, vs, &n, work, &lwork, bwork, info); }
inline void GeesComplex(char jobvs, lapack_int n, c64* a, lapack_int* sdim, c64* w, c64* vs, c64* work, lapack_int lwork, float* rwork, lapack_logical* bwork, lapack_int* info) { char sort = 'N'; LAPACK_cgees(&jobvs, &sort, nullptr, &n, a, &n, sdim, w, vs, &n, work, &lwork, rwork, bwork, info); }
inline void GeesComplex(char jobvs, lapack_int n, c128* a, lapack_int* sdim, c128* w, c128* vs, c128* work, lapack_int lwork, double* rwork, lapack_logical* bwork, lapack_int* info) { char sort = 'N'; LAPACK_zgees(&jobvs, &sort, nullptr, &n, a, &n, sdim, w, vs, &n, work, &lwork, rwork, bwork, info); }

// The optimal lwork a workspace query wrote into work[0].
template <typename T>
lapack_int WorkSize(const T& w) {
  if constexpr (kIsComplex<T>) {
    return static_cast<lapack_int>(w.real());
  } else {
    return static_cast<lapack_int>(w);
  }
}

}  // namespace xjit::lapack
