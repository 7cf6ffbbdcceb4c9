// lapack_?gesdd_ffi: JAX's CPU SVD (divide and conquer). (a[..., m, n]) ->
// (a_out (overwritten), s[..., k] (descending), u, vt, info[...]),
// k = min(m, n); backend_config mode = 'A' (u: m x m, vt: n x n), 'S'
// (u: m x k, vt: k x n) or 'N' (no vectors: u and vt are left zero).
// Matrices are column-major, as JAX's lowering declares their layouts.
#include "xjit/backends/lapack/target_util.h"

namespace xjit::lapack {
namespace {

template <typename T>
void Identity(T* out, int64_t n) {
  std::fill_n(out, n * n, T(0));
  for (int64_t i = 0; i < n; ++i) out[i * n + i] = T(1);
}

template <typename T>
absl::Status GesddTarget(const CustomCallContext& ctx) {
  using R = Real<T>;
  TargetArgs args(ctx);
  if (absl::Status s = args.CheckCounts(1, 5); !s.ok()) return s;
  absl::StatusOr<Matrices> m = args.MatrixOperand(0, DTypeOf<T>());
  if (!m.ok()) return m.status();
  absl::StatusOr<char> mode = args.CharAttr("mode", "ASN");
  if (!mode.ok()) return mode.status();
  const int64_t rows = m->rows, cols = m->cols, k = std::min(rows, cols);
  if (absl::Status s = args.CheckResult(0, DTypeOf<T>(), args.BatchDimsOf(0, {rows, cols}));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = args.CheckResult(1, DTypeOf<R>(), args.BatchDimsOf(0, {k})); !s.ok()) {
    return s;
  }
  absl::StatusOr<Matrices> u = args.MatrixResult(2, DTypeOf<T>());
  absl::StatusOr<Matrices> vt = args.MatrixResult(3, DTypeOf<T>());
  if (!u.ok()) return u.status();
  if (!vt.ok()) return vt.status();
  if (absl::Status s = args.CheckResult(4, DType::kS32, args.BatchDimsOf(0, {})); !s.ok()) return s;
  const bool vectors = *mode != 'N';
  const int64_t u_cols = *mode == 'A' ? rows : k, vt_rows = *mode == 'A' ? cols : k;
  if (vectors && (u->batch != m->batch || u->rows != rows || u->cols != u_cols ||
                  vt->batch != m->batch || vt->rows != vt_rows || vt->cols != cols)) {
    return args.Error("u and vt must be [..., m, m] and [..., n, n] (mode 'A') or [..., m, k] "
                      "and [..., k, n] (mode 'S')");
  }
  absl::StatusOr<LapackDims> dims = ToLapackDims(args, *m);
  if (!dims.ok()) return dims.status();
  const T* a = args.operand<T>(0);
  T* a_out = args.result<T>(0);
  R* s = args.result<R>(1);
  T* u_out = args.result<T>(2);
  T* vt_out = args.result<T>(3);
  int32_t* info = args.result<int32_t>(4);
  if (!vectors) {  // gesdd writes u and vt in full in modes 'A' and 'S'
    std::fill_n(u_out, u->batch * u->size(), T(0));
    std::fill_n(vt_out, vt->batch * vt->size(), T(0));
  }
  std::fill_n(info, m->batch, 0);
  if (k == 0) {  // an empty matrix: full-mode vectors are identities
    std::copy_n(a, m->batch * m->size(), a_out);
    if (*mode == 'A') {
      for (int64_t b = 0; b < m->batch; ++b) {
        Identity(u_out + b * u->size(), rows);
        Identity(vt_out + b * vt->size(), cols);
      }
    }
    return absl::OkStatus();
  }
  const lapack_int ldu = static_cast<lapack_int>(rows);
  const lapack_int ldvt = static_cast<lapack_int>(vectors ? vt_rows : 1);
  const int64_t mx = std::max(rows, cols);
  const int64_t lrwork64 = !kIsComplex<T> ? 1
                           : vectors      ? std::max(5 * k * k + 5 * k, 2 * mx * k + 2 * k * k + k)
                                          : 7 * k;
  T query;
  lapack_int query_info = 0;
  std::vector<lapack_int> iwork_q(8 * k);
  std::vector<R> rwork_q(1);
  lapack::Gesdd(*mode, dims->rows, dims->cols, nullptr, nullptr, nullptr, ldu, nullptr, ldvt,
                &query, -1, rwork_q.data(), iwork_q.data(), &query_info);
  const lapack_int lwork = std::max<lapack_int>(WorkSize(query), 1);
  ForEachMatrix(m->batch, m->size(), [&](int64_t b) {
    Workspace<T> work(lwork), no_vectors(1);
    Workspace<R> rwork(lrwork64);
    Workspace<lapack_int> iwork(8 * k);
    T* col = a_out + b * m->size();
    std::copy_n(a + b * m->size(), m->size(), col);
    T* ub = vectors ? u_out + b * u->size() : no_vectors.data();
    T* vtb = vectors ? vt_out + b * vt->size() : no_vectors.data();
    lapack_int i = 0;
    lapack::Gesdd(*mode, dims->rows, dims->cols, col, s + b * k, ub, ldu, vtb, ldvt, work.data(), lwork,
                  rwork.data(), iwork.data(), &i);
    info[b] = i;
  }, BlasThreads::kOne);
  return absl::OkStatus();
}

const bool kRegistered = [] {
  RegisterTypedTargets("lapack_sgesdd_ffi", "lapack_dgesdd_ffi", "lapack_cgesdd_ffi",
                       "lapack_zgesdd_ffi", GesddTarget<float>, GesddTarget<double>,
                       GesddTarget<c64>, GesddTarget<c128>);
  return true;
}();

}  // namespace
}  // namespace xjit::lapack
