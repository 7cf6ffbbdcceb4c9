// lapack_?syevd_ffi / lapack_?heevd_ffi: JAX's CPU Hermitian eigensolver.
// (a[..., n, n]) -> (v, w[..., n] (real, ascending), info[...]); backend_config
// mode = 'V' (vectors, as v's columns) or 'N', uplo = 'L' or 'U' (the
// triangle read).
#include "xjit/backends/lapack/target_util.h"

namespace xjit::lapack {
namespace {

template <typename T>
absl::Status HeevdTarget(const CustomCallContext& ctx) {
  using R = Real<T>;
  TargetArgs args(ctx);
  if (absl::Status s = args.CheckCounts(1, 3); !s.ok()) return s;
  absl::StatusOr<Matrices> m = args.MatrixOperand(0, DTypeOf<T>());
  if (!m.ok()) return m.status();
  if (m->rows != m->cols) return args.Error("needs square matrices");
  absl::StatusOr<char> mode = args.CharAttr("mode", "VN");
  absl::StatusOr<char> uplo = args.CharAttr("uplo", "LU");
  if (!mode.ok()) return mode.status();
  if (!uplo.ok()) return uplo.status();
  const int64_t n = m->rows;
  if (absl::Status s = args.CheckResult(0, DTypeOf<T>(), args.BatchDimsOf(0, {n, n})); !s.ok()) {
    return s;
  }
  if (absl::Status s = args.CheckResult(1, DTypeOf<R>(), args.BatchDimsOf(0, {n})); !s.ok()) {
    return s;
  }
  if (absl::Status s = args.CheckResult(2, DType::kS32, args.BatchDimsOf(0, {})); !s.ok()) return s;
  absl::StatusOr<lapack_int> nn = ToLapackInt(args, n);
  if (!nn.ok()) return nn.status();
  const T* a = args.operand<T>(0);
  T* v = args.result<T>(0);
  R* w = args.result<R>(1);
  int32_t* info = args.result<int32_t>(2);
  if (n == 0) {
    std::fill_n(info, m->batch, 0);
    return absl::OkStatus();
  }
  T work_query;
  R rwork_query = 0;
  lapack_int iwork_query = 0, query_info = 0;
  lapack::Heevd(*mode, *uplo, *nn, nullptr, nullptr, &work_query, -1, &rwork_query, -1,
                &iwork_query, -1, &query_info);
  const lapack_int lwork = std::max<lapack_int>(WorkSize(work_query), 1);
  const lapack_int lrwork = std::max<lapack_int>(static_cast<lapack_int>(rwork_query), 1);
  const lapack_int liwork = std::max<lapack_int>(iwork_query, 1);
  ForEachMatrix(m->batch, m->size(), [&](int64_t b) {
    Workspace<T> work(lwork);
    Workspace<R> rwork(kIsComplex<T> ? lrwork : 1);
    std::vector<lapack_int> iwork(liwork);
    T* col = v + b * m->size();
    std::copy_n(a + b * m->size(), m->size(), col);
    lapack_int i = 0;
    lapack::Heevd(*mode, *uplo, *nn, col, w + b * n, work.data(), lwork, rwork.data(), lrwork,
                  iwork.data(), liwork, &i);
    info[b] = i;
  }, BlasThreads::kOne);
  return absl::OkStatus();
}

const bool kRegistered = [] {
  RegisterTypedTargets("lapack_ssyevd_ffi", "lapack_dsyevd_ffi", "lapack_cheevd_ffi",
                       "lapack_zheevd_ffi", HeevdTarget<float>, HeevdTarget<double>,
                       HeevdTarget<c64>, HeevdTarget<c128>);
  return true;
}();

}  // namespace
}  // namespace xjit::lapack
