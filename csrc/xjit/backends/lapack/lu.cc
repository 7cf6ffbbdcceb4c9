// lapack_?getrf_ffi: JAX's CPU LU with partial pivoting. (a[..., m, n]) ->
// (lu, ipiv[..., min(m, n)] (1-based rows, as LAPACK), info[...]) with
// P a = L U packed in lu (L's unit diagonal implied); info > 0: U is singular
// (the factorization still completes).
#include "xjit/backends/lapack/target_util.h"

namespace xjit::lapack {
namespace {

template <typename T>
absl::Status Getrf(const CustomCallContext& ctx) {
  TargetArgs args(ctx);
  if (absl::Status s = args.CheckCounts(1, 3); !s.ok()) return s;
  absl::StatusOr<Matrices> m = args.MatrixOperand(0, DTypeOf<T>());
  if (!m.ok()) return m.status();
  const int64_t k = std::min(m->rows, m->cols);
  if (absl::Status s = args.CheckResult(0, DTypeOf<T>(), args.BatchDimsOf(0, {m->rows, m->cols}));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = args.CheckResult(1, DType::kS32, args.BatchDimsOf(0, {k})); !s.ok()) return s;
  if (absl::Status s = args.CheckResult(2, DType::kS32, args.BatchDimsOf(0, {})); !s.ok()) return s;
  absl::StatusOr<LapackDims> dims = ToLapackDims(args, *m);
  if (!dims.ok()) return dims.status();
  const T* a = args.operand<T>(0);
  T* lu = args.result<T>(0);
  int32_t* ipiv = args.result<int32_t>(1);
  int32_t* info = args.result<int32_t>(2);
  ForEachMatrix(m->batch, m->size(), [&](int64_t b) {
    info[b] = 0;
    if (k == 0) {
      std::copy_n(a + b * m->size(), m->size(), lu + b * m->size());
      return;
    }
    T* out = lu + b * m->size();
    std::copy_n(a + b * m->size(), m->size(), out);
    std::vector<lapack_int> piv(k);
    lapack_int i = 0;
    lapack::Getrf(dims->rows, dims->cols, out, piv.data(), &i);
    std::copy(piv.begin(), piv.end(), ipiv + b * k);
    info[b] = i;
  });
  return absl::OkStatus();
}

const bool kRegistered = [] {
  RegisterTypedTargets("lapack_sgetrf_ffi", "lapack_dgetrf_ffi", "lapack_cgetrf_ffi",
                       "lapack_zgetrf_ffi", Getrf<float>, Getrf<double>, Getrf<c64>,
                       Getrf<c128>);
  return true;
}();

}  // namespace
}  // namespace xjit::lapack
