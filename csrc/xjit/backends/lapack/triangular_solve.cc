// lapack_?trsm_ffi: JAX's CPU triangular solve. (a, b[, alpha]) -> x with
// op(a) x = alpha b (side 'L') or x op(a) = alpha b (side 'R');
// backend_config side, uplo, trans_x ('N', 'T', 'C') and diag ('N', 'U').
// Column-major matrices (JAX's declared layouts), BLAS trsm through CBLAS.
#include <cblas.h>

#include <algorithm>

#include "xjit/backends/lapack/target_util.h"

namespace xjit::lapack {
namespace {

void Trsm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, blasint m, blasint n,
          float alpha, const float* a, blasint lda, float* b) {
  cblas_strsm(CblasColMajor, s, u, t, d, m, n, alpha, a, lda, b, std::max<blasint>(m, 1));
}
void Trsm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, blasint m, blasint n,
          double alpha, const double* a, blasint lda, double* b) {
  cblas_dtrsm(CblasColMajor, s, u, t, d, m, n, alpha, a, lda, b, std::max<blasint>(m, 1));
}
void Trsm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, blasint m, blasint n,
          c64 alpha, const c64* a, blasint lda, c64* b) {
  cblas_ctrsm(CblasColMajor, s, u, t, d, m, n, &alpha, a, lda, b, std::max<blasint>(m, 1));
}
void Trsm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, blasint m, blasint n,
          c128 alpha, const c128* a, blasint lda, c128* b) {
  cblas_ztrsm(CblasColMajor, s, u, t, d, m, n, &alpha, a, lda, b, std::max<blasint>(m, 1));
}

template <typename T>
absl::Status TrsmTarget(const CustomCallContext& ctx) {
  TargetArgs args(ctx);
  const size_t operands = ctx.operands.size();
  if (operands != 2 && operands != 3) {
    return args.Error("expects operands (a, b) or (a, b, alpha)");
  }
  if (absl::Status s = args.CheckCounts(operands, 1); !s.ok()) return s;
  absl::StatusOr<Matrices> a = args.MatrixOperand(0, DTypeOf<T>());
  if (!a.ok()) return a.status();
  absl::StatusOr<Matrices> b = args.MatrixOperand(1, DTypeOf<T>());
  if (!b.ok()) return b.status();
  absl::StatusOr<char> side = args.CharAttr("side", "LR");
  absl::StatusOr<char> uplo = args.CharAttr("uplo", "LU");
  absl::StatusOr<char> trans = args.CharAttr("trans_x", "NTC");
  absl::StatusOr<char> diag = args.CharAttr("diag", "NU");
  for (const auto* c : {&side, &uplo, &trans, &diag}) {
    if (!c->ok()) return c->status();
  }
  const int64_t k = *side == 'L' ? b->rows : b->cols;
  if (a->rows != a->cols || a->rows != k || (a->batch != b->batch && a->batch != 1)) {
    return args.Error("a must be square, of the size of b's rows (side 'L') or columns "
                      "(side 'R'), with b's batch");
  }
  if (absl::Status s = args.CheckResult(0, DTypeOf<T>(), args.BatchDimsOf(1, {b->rows, b->cols}));
      !s.ok()) {
    return s;
  }
  T alpha(1);
  if (operands == 3) {
    if (args.operand_buffer(2).dtype != DTypeOf<T>() || args.operand_buffer(2).num_elements() != 1) {
      return args.Error("alpha must be one element of a's type");
    }
    alpha = *args.operand<T>(2);
  }
  T* x = args.result<T>(0);
  std::copy_n(args.operand<T>(1), b->batch * b->size(), x);
  if (b->size() == 0) return absl::OkStatus();
  const CBLAS_TRANSPOSE t = *trans == 'N' ? CblasNoTrans : *trans == 'T' ? CblasTrans
                                                                          : CblasConjTrans;
  const T* a_data = args.operand<T>(0);
  ForEachMatrix(b->batch, a->size(), [&](int64_t i) {
    Trsm(*side == 'L' ? CblasLeft : CblasRight, *uplo == 'L' ? CblasLower : CblasUpper, t,
         *diag == 'U' ? CblasUnit : CblasNonUnit, static_cast<blasint>(b->rows),
         static_cast<blasint>(b->cols), alpha, a_data + (a->batch == 1 ? 0 : i * a->size()),
         std::max<blasint>(static_cast<blasint>(a->rows), 1), x + i * b->size());
  });
  return absl::OkStatus();
}

const bool kRegistered = [] {
  RegisterTypedTargets("lapack_strsm_ffi", "lapack_dtrsm_ffi", "lapack_ctrsm_ffi",
                       "lapack_ztrsm_ffi", TrsmTarget<float>, TrsmTarget<double>,
                       TrsmTarget<c64>, TrsmTarget<c128>);
  return true;
}();

}  // namespace
}  // namespace xjit::lapack
