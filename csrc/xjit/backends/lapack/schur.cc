// lapack_?gees_ffi: JAX's CPU Schur decomposition a = vs t vs^H, unsorted.
// Real types: (a[..., n, n]) -> (t, vs, wr[..., n], wi[..., n], sdim[...],
// info[...]); complex: (a) -> (t, vs, w, sdim, info). backend_config mode =
// 'V' (Schur vectors) or 'N' (vs left zero); sort must be 'N' (xjit has no
// eigenvalue selection callback).
#include "xjit/backends/lapack/target_util.h"

namespace xjit::lapack {
namespace {

template <typename T>
absl::Status GeesTarget(const CustomCallContext& ctx) {
  using R = Real<T>;
  constexpr bool kComplex = kIsComplex<T>;
  TargetArgs args(ctx);
  const size_t sdim_index = kComplex ? 3 : 4;
  if (absl::Status s = args.CheckCounts(1, sdim_index + 2); !s.ok()) return s;
  absl::StatusOr<Matrices> m = args.MatrixOperand(0, DTypeOf<T>());
  if (!m.ok()) return m.status();
  if (m->rows != m->cols) return args.Error("needs square matrices");
  absl::StatusOr<char> mode = args.CharAttr("mode", "VN");
  absl::StatusOr<char> sort = args.CharAttr("sort", "NS");
  if (!mode.ok()) return mode.status();
  if (!sort.ok()) return sort.status();
  if (*sort != 'N') return args.Error("sort = 'S' (ordered eigenvalues) is not supported");
  const int64_t n = m->rows;
  for (size_t r : {size_t{0}, size_t{1}}) {
    if (absl::Status s = args.CheckResult(r, DTypeOf<T>(), args.BatchDimsOf(0, {n, n})); !s.ok()) {
      return s;
    }
  }
  if constexpr (kComplex) {
    if (absl::Status s = args.CheckResult(2, DTypeOf<T>(), args.BatchDimsOf(0, {n})); !s.ok()) {
      return s;
    }
  } else {
    for (size_t r : {size_t{2}, size_t{3}}) {
      if (absl::Status s = args.CheckResult(r, DTypeOf<R>(), args.BatchDimsOf(0, {n})); !s.ok()) {
        return s;
      }
    }
  }
  for (size_t r : {sdim_index, sdim_index + 1}) {
    if (absl::Status s = args.CheckResult(r, DType::kS32, args.BatchDimsOf(0, {})); !s.ok()) {
      return s;
    }
  }
  absl::StatusOr<lapack_int> nn = ToLapackInt(args, n);
  if (!nn.ok()) return nn.status();
  const T* a = args.operand<T>(0);
  T* t = args.result<T>(0);
  T* vs = args.result<T>(1);
  int32_t* sdim = args.result<int32_t>(sdim_index);
  int32_t* info = args.result<int32_t>(sdim_index + 1);
  std::fill_n(vs, m->batch * m->size(), T(0));
  std::fill_n(sdim, m->batch, 0);
  std::fill_n(info, m->batch, 0);
  if (n == 0) return absl::OkStatus();
  T query;
  lapack_int query_info = 0, query_sdim = 0;
  std::vector<R> rwork_q(n);
  if constexpr (kComplex) {
    lapack::GeesComplex(*mode, *nn, nullptr, &query_sdim, nullptr, nullptr, &query, -1,
                        rwork_q.data(), nullptr, &query_info);
  } else {
    lapack::GeesReal(*mode, *nn, nullptr, &query_sdim, nullptr, nullptr, nullptr, &query, -1,
                     nullptr, &query_info);
  }
  const lapack_int lwork = std::max<lapack_int>(WorkSize(query), 1);
  ForEachMatrix(m->batch, m->size(), [&](int64_t b) {
    std::vector<T> vsc(m->size()), work(lwork);
    T* col = t + b * m->size();
    std::copy_n(a + b * m->size(), m->size(), col);
    lapack_int i = 0, d = 0;
    if constexpr (kComplex) {
      std::vector<R> rwork(n);
      lapack::GeesComplex(*mode, *nn, col, &d, args.result<T>(2) + b * n, vsc.data(),
                          work.data(), lwork, rwork.data(), nullptr, &i);
    } else {
      lapack::GeesReal(*mode, *nn, col, &d, args.result<R>(2) + b * n,
                       args.result<R>(3) + b * n, vsc.data(), work.data(), lwork, nullptr, &i);
    }
    if (*mode == 'V') std::copy(vsc.begin(), vsc.end(), vs + b * m->size());
    sdim[b] = d;
    info[b] = i;
  }, BlasThreads::kOne);
  return absl::OkStatus();
}

const bool kRegistered = [] {
  RegisterTypedTargets("lapack_sgees_ffi", "lapack_dgees_ffi", "lapack_cgees_ffi",
                       "lapack_zgees_ffi", GeesTarget<float>, GeesTarget<double>,
                       GeesTarget<c64>, GeesTarget<c128>);
  return true;
}();

}  // namespace
}  // namespace xjit::lapack
