// JAX's CPU QR: lapack_?geqrf_ffi (a[..., m, n]) -> (a_out, tau[..., min(m, n)])
// with R in a_out's upper triangle and the Householder vectors below it;
// lapack_?orgqr_ffi / lapack_?ungqr_ffi (a[..., m, n], tau[..., k]) -> q, the
// first n columns of the product of the k reflectors (m >= n >= k).
#include "xjit/backends/lapack/target_util.h"

namespace xjit::lapack {
namespace {

template <typename T>
absl::Status GeqrfTarget(const CustomCallContext& ctx) {
  TargetArgs args(ctx);
  if (absl::Status s = args.CheckCounts(1, 2); !s.ok()) return s;
  absl::StatusOr<Matrices> m = args.MatrixOperand(0, DTypeOf<T>());
  if (!m.ok()) return m.status();
  const int64_t k = std::min(m->rows, m->cols);
  if (absl::Status s = args.CheckResult(0, DTypeOf<T>(), args.BatchDimsOf(0, {m->rows, m->cols}));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = args.CheckResult(1, DTypeOf<T>(), args.BatchDimsOf(0, {k})); !s.ok()) {
    return s;
  }
  absl::StatusOr<LapackDims> dims = ToLapackDims(args, *m);
  if (!dims.ok()) return dims.status();
  const T* a = args.operand<T>(0);
  T* out = args.result<T>(0);
  T* tau = args.result<T>(1);
  if (k == 0) {
    std::copy_n(a, m->batch * m->size(), out);
    return absl::OkStatus();
  }
  T query;
  lapack_int info = 0;
  lapack::Geqrf(dims->rows, dims->cols, nullptr, nullptr, &query, -1, &info);
  const lapack_int lwork = std::max<lapack_int>(WorkSize(query), 1);
  ForEachMatrix(m->batch, m->size(), [&](int64_t b) {
    Workspace<T> work(lwork);
    T* col = out + b * m->size();
    std::copy_n(a + b * m->size(), m->size(), col);
    lapack_int i = 0;
    lapack::Geqrf(dims->rows, dims->cols, col, tau + b * k, work.data(), lwork, &i);
  });
  return absl::OkStatus();
}

template <typename T>
absl::Status OrgqrTarget(const CustomCallContext& ctx) {
  TargetArgs args(ctx);
  if (absl::Status s = args.CheckCounts(2, 1); !s.ok()) return s;
  absl::StatusOr<Matrices> m = args.MatrixOperand(0, DTypeOf<T>());
  if (!m.ok()) return m.status();
  const CustomCallBuffer& tau_buffer = args.operand_buffer(1);
  if (tau_buffer.dtype != DTypeOf<T>() || tau_buffer.dims.empty()) {
    return args.Error("tau must be a batch of vectors of a's type");
  }
  const int64_t k = tau_buffer.dims.back();
  if (!(m->rows >= m->cols && m->cols >= k) || tau_buffer.num_elements() != m->batch * k) {
    return args.Error("needs a[..., m, n] and tau[..., k] with m >= n >= k and a's batch");
  }
  if (absl::Status s = args.CheckResult(0, DTypeOf<T>(), args.BatchDimsOf(0, {m->rows, m->cols}));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<LapackDims> dims = ToLapackDims(args, *m);
  if (!dims.ok()) return dims.status();
  const T* a = args.operand<T>(0);
  const T* tau = args.operand<T>(1);
  T* q = args.result<T>(0);
  if (m->size() == 0) return absl::OkStatus();
  const lapack_int kk = static_cast<lapack_int>(k);
  T query;
  lapack_int info = 0;
  lapack::Orgqr(dims->rows, dims->cols, kk, nullptr, nullptr, &query, -1, &info);
  const lapack_int lwork = std::max<lapack_int>(WorkSize(query), 1);
  ForEachMatrix(m->batch, m->size(), [&](int64_t b) {
    Workspace<T> work(lwork);
    T* col = q + b * m->size();
    std::copy_n(a + b * m->size(), m->size(), col);
    lapack_int i = 0;
    lapack::Orgqr(dims->rows, dims->cols, kk, col, tau + b * k, work.data(), lwork, &i);
  });
  return absl::OkStatus();
}

const bool kRegistered = [] {
  RegisterTypedTargets("lapack_sgeqrf_ffi", "lapack_dgeqrf_ffi", "lapack_cgeqrf_ffi",
                       "lapack_zgeqrf_ffi", GeqrfTarget<float>, GeqrfTarget<double>,
                       GeqrfTarget<c64>, GeqrfTarget<c128>);
  RegisterTypedTargets("lapack_sorgqr_ffi", "lapack_dorgqr_ffi", "lapack_cungqr_ffi",
                       "lapack_zungqr_ffi", OrgqrTarget<float>, OrgqrTarget<double>,
                       OrgqrTarget<c64>, OrgqrTarget<c128>);
  return true;
}();

}  // namespace
}  // namespace xjit::lapack
