// lapack_?potrf_ffi: JAX's CPU Cholesky. (a) -> (factor, info); backend_config
// uplo = 'L' or 'U'. The factor fills that triangle; the other keeps a's
// values (JAX masks it); info is LAPACK's (> 0: not positive definite).
#include "xjit/backends/lapack/target_util.h"

namespace xjit::lapack {
namespace {

template <typename T>
absl::Status Potrf(const CustomCallContext& ctx) {
  TargetArgs args(ctx);
  if (absl::Status s = args.CheckCounts(1, 2); !s.ok()) return s;
  absl::StatusOr<Matrices> m = args.MatrixOperand(0, DTypeOf<T>());
  if (!m.ok()) return m.status();
  if (m->rows != m->cols) return args.Error("needs square matrices");
  absl::StatusOr<char> uplo = args.CharAttr("uplo", "LU");
  if (!uplo.ok()) return uplo.status();
  if (absl::Status s = args.CheckResult(0, DTypeOf<T>(), args.BatchDimsOf(0, {m->rows, m->cols}));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = args.CheckResult(1, DType::kS32, args.BatchDimsOf(0, {})); !s.ok()) return s;
  absl::StatusOr<lapack_int> n = ToLapackInt(args, m->rows);
  if (!n.ok()) return n.status();
  T* out = args.result<T>(0);
  int32_t* info = args.result<int32_t>(1);
  std::copy_n(args.operand<T>(0), m->batch * m->size(), out);
  ForEachMatrix(m->batch, m->size(), [&](int64_t b) {
    lapack_int i = 0;
    if (*n > 0) lapack::Potrf(*uplo, *n, out + b * m->size(), *n, &i);
    info[b] = i;
  });
  return absl::OkStatus();
}

const bool kRegistered = [] {
  RegisterTypedTargets("lapack_spotrf_ffi", "lapack_dpotrf_ffi", "lapack_cpotrf_ffi",
                       "lapack_zpotrf_ffi", Potrf<float>, Potrf<double>, Potrf<c64>,
                       Potrf<c128>);
  return true;
}();

}  // namespace
}  // namespace xjit::lapack
