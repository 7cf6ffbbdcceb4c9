// lapack_?geev_ffi: JAX's CPU eigensolver for general matrices. Real types:
// (a[..., n, n]) -> (wr[..., n], wi[..., n], vl, vr (complex), info[...]);
// complex types: (a) -> (w, vl, vr, info). backend_config compute_left /
// compute_right = 'V' or 'N'. Eigenvectors are columns, as LAPACK returns
// them (unit 2-norm, largest component real); LAPACK packs a real matrix's
// complex pairs into two real columns, unpacked here as JAX does. A matrix
// with a non-finite element is not factored: its info is -4, as in JAX.
#include <cmath>
#include <limits>

#include "xjit/backends/lapack/target_util.h"

namespace xjit::lapack {
namespace {

template <typename T>
bool AllFinite(const T* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (kIsComplex<T>) {
      if (!std::isfinite(x[i].real()) || !std::isfinite(x[i].imag())) return false;
    } else {
      if (!std::isfinite(x[i])) return false;
    }
  }
  return true;
}

// LAPACK's packed real eigenvectors (column-major) into complex columns.
template <typename R>
void Unpack(int64_t n, const R* wi, const R* packed, std::complex<R>* out) {
  for (int64_t j = 0; j < n;) {
    if (wi[j] == R(0) || std::isnan(wi[j]) || j + 1 == n) {
      for (int64_t i = 0; i < n; ++i) out[j * n + i] = {packed[j * n + i], R(0)};
      ++j;
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const R re = packed[j * n + i], im = packed[(j + 1) * n + i];
        out[j * n + i] = {re, im};
        out[(j + 1) * n + i] = {re, -im};
      }
      j += 2;
    }
  }
}

template <typename T>
absl::Status GeevTarget(const CustomCallContext& ctx) {
  using R = Real<T>;
  using C = std::complex<R>;
  constexpr bool kComplex = kIsComplex<T>;
  TargetArgs args(ctx);
  const size_t vl_index = kComplex ? 1 : 2;
  if (absl::Status s = args.CheckCounts(1, kComplex ? 4 : 5); !s.ok()) return s;
  absl::StatusOr<Matrices> m = args.MatrixOperand(0, DTypeOf<T>());
  if (!m.ok()) return m.status();
  if (m->rows != m->cols) return args.Error("needs square matrices");
  absl::StatusOr<char> left = args.CharAttr("compute_left", "VN");
  absl::StatusOr<char> right = args.CharAttr("compute_right", "VN");
  if (!left.ok()) return left.status();
  if (!right.ok()) return right.status();
  const int64_t n = m->rows;
  if constexpr (kComplex) {
    if (absl::Status s = args.CheckResult(0, DTypeOf<T>(), args.BatchDimsOf(0, {n})); !s.ok()) {
      return s;
    }
  } else {
    for (size_t r : {size_t{0}, size_t{1}}) {
      if (absl::Status s = args.CheckResult(r, DTypeOf<R>(), args.BatchDimsOf(0, {n})); !s.ok()) {
        return s;
      }
    }
  }
  for (size_t r : {vl_index, vl_index + 1}) {
    if (absl::Status s = args.CheckResult(r, DTypeOf<C>(), args.BatchDimsOf(0, {n, n})); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = args.CheckResult(vl_index + 2, DType::kS32, args.BatchDimsOf(0, {}));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<lapack_int> nn = ToLapackInt(args, n);
  if (!nn.ok()) return nn.status();
  const T* a = args.operand<T>(0);
  C* vl = args.result<C>(vl_index);
  C* vr = args.result<C>(vl_index + 1);
  int32_t* info = args.result<int32_t>(vl_index + 2);
  std::fill_n(vl, m->batch * m->size(), C(0));
  std::fill_n(vr, m->batch * m->size(), C(0));
  std::fill_n(info, m->batch, 0);
  if (n == 0) return absl::OkStatus();
  T query;
  lapack_int query_info = 0;
  std::vector<R> rwork_q(2 * n);
  if constexpr (kComplex) {
    lapack::GeevComplex(*left, *right, *nn, nullptr, nullptr, nullptr, nullptr, &query, -1,
                        rwork_q.data(), &query_info);
  } else {
    lapack::GeevReal(*left, *right, *nn, nullptr, nullptr, nullptr, nullptr, nullptr, &query,
                     -1, &query_info);
  }
  const lapack_int lwork = std::max<lapack_int>(WorkSize(query), 1);
  ForEachMatrix(m->batch, m->size(), [&](int64_t b) {
    const T* ab = a + b * m->size();
    if (!AllFinite(ab, m->size())) {  // not factored; every result is still written
      const R nan = std::numeric_limits<R>::quiet_NaN();
      if constexpr (kComplex) {
        std::fill_n(args.result<T>(0) + b * n, n, T(nan, nan));
      } else {
        std::fill_n(args.result<R>(0) + b * n, n, nan);
        std::fill_n(args.result<R>(1) + b * n, n, nan);
      }
      info[b] = -4;
      return;
    }
    std::vector<T> col(ab, ab + m->size()), work(lwork), vlc(m->size()), vrc(m->size());
    lapack_int i = 0;
    if constexpr (kComplex) {
      std::vector<R> rwork(2 * n);
      lapack::GeevComplex(*left, *right, *nn, col.data(), args.result<T>(0) + b * n,
                          vlc.data(), vrc.data(), work.data(), lwork, rwork.data(), &i);
      if (i == 0) {
        if (*left == 'V') std::copy(vlc.begin(), vlc.end(), vl + b * m->size());
        if (*right == 'V') std::copy(vrc.begin(), vrc.end(), vr + b * m->size());
      }
    } else {
      R* wr = args.result<R>(0) + b * n;
      R* wi = args.result<R>(1) + b * n;
      lapack::GeevReal(*left, *right, *nn, col.data(), wr, wi, vlc.data(), vrc.data(),
                       work.data(), lwork, &i);
      if (i == 0) {
        if (*left == 'V') Unpack(n, wi, vlc.data(), vl + b * m->size());
        if (*right == 'V') Unpack(n, wi, vrc.data(), vr + b * m->size());
      }
    }
    info[b] = i;
  }, BlasThreads::kOne);
  return absl::OkStatus();
}

const bool kRegistered = [] {
  RegisterTypedTargets("lapack_sgeev_ffi", "lapack_dgeev_ffi", "lapack_cgeev_ffi",
                       "lapack_zgeev_ffi", GeevTarget<float>, GeevTarget<double>,
                       GeevTarget<c64>, GeevTarget<c128>);
  return true;
}();

}  // namespace
}  // namespace xjit::lapack
