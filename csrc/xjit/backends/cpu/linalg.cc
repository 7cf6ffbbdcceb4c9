#include "xjit/backends/cpu/linalg.h"

#include <cblas.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapack.h>

#include "absl/strings/str_cat.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::cpu {
namespace {

// potrf on a column-major n x n matrix, in place; returns LAPACK's info.
lapack_int Potrf(char uplo, lapack_int n, float* a) {
  lapack_int info = 0;
  LAPACK_spotrf(&uplo, &n, a, &n, &info);
  return info;
}
lapack_int Potrf(char uplo, lapack_int n, double* a) {
  lapack_int info = 0;
  LAPACK_dpotrf(&uplo, &n, a, &n, &info);
  return info;
}
lapack_int Potrf(char uplo, lapack_int n, std::complex<float>* a) {
  lapack_int info = 0;
  LAPACK_cpotrf(&uplo, &n, a, &n, &info);
  return info;
}
lapack_int Potrf(char uplo, lapack_int n, std::complex<double>* a) {
  lapack_int info = 0;
  LAPACK_zpotrf(&uplo, &n, a, &n, &info);
  return info;
}

// Row-major trsm: op(A) X = B or X op(A) = B, X over B.
struct TrsmArgs {
  CBLAS_SIDE side;
  CBLAS_UPLO uplo;
  CBLAS_TRANSPOSE trans;
  CBLAS_DIAG diag;
  blasint m, n;  // B is m x n
  blasint lda;
};
void Trsm(const TrsmArgs& t, const float* a, float* b) {
  cblas_strsm(CblasRowMajor, t.side, t.uplo, t.trans, t.diag, t.m, t.n, 1.0f, a, t.lda, b, t.n);
}
void Trsm(const TrsmArgs& t, const double* a, double* b) {
  cblas_dtrsm(CblasRowMajor, t.side, t.uplo, t.trans, t.diag, t.m, t.n, 1.0, a, t.lda, b, t.n);
}
void Trsm(const TrsmArgs& t, const std::complex<float>* a, std::complex<float>* b) {
  const std::complex<float> one(1, 0);
  cblas_ctrsm(CblasRowMajor, t.side, t.uplo, t.trans, t.diag, t.m, t.n, &one, a, t.lda, b, t.n);
}
void Trsm(const TrsmArgs& t, const std::complex<double>* a, std::complex<double>* b) {
  const std::complex<double> one(1, 0);
  cblas_ztrsm(CblasRowMajor, t.side, t.uplo, t.trans, t.diag, t.m, t.n, &one, a, t.lda, b, t.n);
}

template <typename T>
T NaNOf() {
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    return T(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN());
  } else {
    return std::numeric_limits<T>::quiet_NaN();
  }
}

// One row-major matrix: factor in place (the input was copied into `a`),
// zero the other triangle, NaN the factor if it failed.
template <typename T>
void CholeskyOne(T* a, int64_t n, bool lower) {
  // The row-major matrix seen column-major is its transpose: the row-major
  // lower triangle is the column-major upper one, and potrf('U') there
  // writes U with conj(A) = U^H U, i.e. A = U^T conj(U): L = U^T, which is
  // U's bytes read row-major. So row-major lower <-> LAPACK 'U'.
  const lapack_int info = Potrf(lower ? 'U' : 'L', static_cast<lapack_int>(n), a);
  const T fill = info != 0 ? NaNOf<T>() : T(0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const bool in_triangle = lower ? j <= i : j >= i;
      if (!in_triangle) {
        a[i * n + j] = T(0);
      } else if (info != 0) {
        a[i * n + j] = fill;
      }
    }
  }
}

template <typename T>
void TriangularSolveOne(const TriangularSolveAttrs& attrs, const T* a, T* b, int64_t m,
                        int64_t n, int64_t a_size) {
  TrsmArgs t;
  t.side = attrs.left_side ? CblasLeft : CblasRight;
  t.uplo = attrs.lower ? CblasLower : CblasUpper;
  t.trans = attrs.transpose_a == TransposeKind::kNoTranspose ? CblasNoTrans
            : attrs.transpose_a == TransposeKind::kTranspose ? CblasTrans
                                                             : CblasConjTrans;
  t.diag = attrs.unit_diagonal ? CblasUnit : CblasNonUnit;
  t.m = static_cast<blasint>(m);
  t.n = static_cast<blasint>(n);
  t.lda = static_cast<blasint>(a_size);
  Trsm(t, a, b);
}

// Geometry: `count` matrices; a is k x k, the result rows x cols.
struct Geometry {
  int64_t count = 1, rows = 0, cols = 0, k = 0;
};

class LinalgThunk : public Thunk {
 public:
  LinalgThunk(const Instruction& instr, std::vector<SlotId> in, SlotId out, Geometry g)
      : op_(instr.opcode()), dtype_(instr.shape().dtype), in_(std::move(in)), out_(out), g_(g) {
    if (op_ == Opcode::kCholesky) {
      lower_ = instr.attrs<CholeskyAttrs>().lower;
    } else {
      solve_ = instr.attrs<TriangularSolveAttrs>();
    }
  }

  void Execute(void* const* buffers) const override {
    const int64_t out_size = g_.rows * g_.cols;
    const int64_t a_size = g_.k * g_.k;
    // The result starts as the operand factored (cholesky) or solved for (b).
    const void* src = buffers[in_[op_ == Opcode::kCholesky ? 0 : 1]];
    void* dst = buffers[out_];
    const int64_t elem = ByteWidth(dtype_);
    if (src != dst) std::memcpy(dst, src, g_.count * out_size * elem);
    if (g_.count == 0 || out_size == 0) return;
    const void* a = buffers[in_[0]];
    DispatchDType(dtype_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || is_complex_v<T>) {
        Run(static_cast<const T*>(a), static_cast<T*>(dst), out_size, a_size);
      } else if constexpr (is_half_v<T>) {
        // Through f32 copies: LAPACK has no half-precision routines.
        std::vector<float> af(g_.count * a_size), xf(g_.count * out_size);
        const T* ah = static_cast<const T*>(a);
        T* xh = static_cast<T*>(dst);
        for (size_t i = 0; i < af.size(); ++i) af[i] = static_cast<float>(ah[i]);
        for (size_t i = 0; i < xf.size(); ++i) xf[i] = static_cast<float>(xh[i]);
        Run(af.data(), xf.data(), out_size, a_size);
        for (size_t i = 0; i < xf.size(); ++i) xh[i] = static_cast<T>(xf[i]);
      }
    });
  }

 private:
  template <typename T>
  void Run(const T* a, T* x, int64_t out_size, int64_t a_size) const {
    auto one = [&](int64_t i) {
      if (op_ == Opcode::kCholesky) {
        CholeskyOne(x + i * out_size, g_.rows, lower_);
      } else {
        TriangularSolveOne(solve_, a + i * a_size, x + i * out_size, g_.rows, g_.cols, g_.k);
      }
    };
    if (g_.count == 1) {
      one(0);  // OpenBLAS parallelises one big matrix itself
      return;
    }
    // Work of one matrix ~ k^2 * (rows or cols); parallel over the batch.
    const int64_t cost = g_.count * a_size * std::max(g_.rows, g_.cols);
    ParallelFor(g_.count, 1, cost, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) one(i);
    });
  }

  Opcode op_;
  DType dtype_;
  std::vector<SlotId> in_;
  SlotId out_;
  Geometry g_;
  bool lower_ = false;
  TriangularSolveAttrs solve_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Thunk>> MakeLinalgThunk(const Instruction& instr,
                                                       const std::vector<SlotId>& in,
                                                       SlotId out) {
  const Shape& s = instr.shape();
  const DType t = s.dtype;
  if (!(t == DType::kF32 || t == DType::kF64 || t == DType::kC64 || t == DType::kC128 ||
        t == DType::kF16 || t == DType::kBF16)) {
    return absl::UnimplementedError(absl::StrCat(OpcodeName(instr.opcode()), ": element type ",
                                                 s.ToString(), " is not supported on cpu"));
  }
  Geometry g;
  const int64_t r = s.rank();
  for (int64_t i = 0; i + 2 < r; ++i) g.count *= s.dims[i];
  g.rows = s.dims[r - 2];
  g.cols = s.dims[r - 1];
  g.k = instr.operand(0)->shape().dims[r - 1];
  constexpr int64_t kMaxBlas = std::numeric_limits<blasint>::max();
  if (g.rows > kMaxBlas || g.cols > kMaxBlas) {
    return absl::UnimplementedError(
        absl::StrCat(OpcodeName(instr.opcode()), ": matrices too large for BLAS: ", s.ToString()));
  }
  return std::unique_ptr<Thunk>(std::make_unique<LinalgThunk>(instr, in, out, g));
}

}  // namespace xjit::cpu
