// cholesky and triangular_solve as plain loops (the ground truth the cpu
// backend's LAPACK calls are compared with). Every element is computed as a
// std::complex<double> whatever the type, then rounded once.
//
// Decisions where the spec leaves values implementation-defined: cholesky
// returns zeros in the triangle it does not compute, and when a matrix is
// not positive definite (a pivot <= 0 or NaN: LAPACK potrf's test) its whole
// triangle is NaN, as jax.lax.linalg.cholesky returns it.
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "xjit/backends/reference/ops.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::reference {
namespace {

using C = std::complex<double>;

std::vector<C> ToComplex(const Literal& l) {
  std::vector<C> out(l.shape().num_elements());
  DispatchDType(l.shape().dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = l.data_as<T>();
    for (size_t i = 0; i < out.size(); ++i) {
      if constexpr (is_complex_v<T>) {
        out[i] = C(p[i].real(), p[i].imag());
      } else if constexpr (is_half_v<T>) {
        out[i] = C(static_cast<float>(p[i]), 0.0);
      } else if constexpr (std::is_arithmetic_v<T>) {
        out[i] = C(static_cast<double>(p[i]), 0.0);
      }
    }
  });
  return out;
}

Literal FromComplex(const Shape& shape, const std::vector<C>& v) {
  Literal out(shape);
  DispatchDType(shape.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.mutable_data_as<T>();
    for (size_t i = 0; i < v.size(); ++i) {
      if constexpr (is_complex_v<T>) {
        using R = typename T::value_type;
        p[i] = T(static_cast<R>(v[i].real()), static_cast<R>(v[i].imag()));
      } else if constexpr (is_half_v<T>) {
        p[i] = static_cast<T>(static_cast<float>(v[i].real()));
      } else if constexpr (std::is_arithmetic_v<T>) {
        p[i] = static_cast<T>(v[i].real());
      }
    }
  });
  return out;
}

struct Batch {
  int64_t count = 1, rows = 0, cols = 0;
  explicit Batch(const Shape& s) {
    const int64_t r = s.rank();
    for (int64_t i = 0; i + 2 < r; ++i) count *= s.dims[i];
    rows = s.dims[r - 2];
    cols = s.dims[r - 1];
  }
};

// Factor one n x n matrix at `a` (row-major) into `out`.
void CholeskyOne(const C* a, C* out, int64_t n, bool lower) {
  // The Hermitian matrix read from the given triangle, as its lower part.
  auto read = [&](int64_t i, int64_t j) {  // i >= j
    return lower ? a[i * n + j] : std::conj(a[j * n + i]);
  };
  std::vector<C> l(n * n, C(0, 0));
  bool ok = true;
  for (int64_t j = 0; j < n && ok; ++j) {
    double d = read(j, j).real();
    for (int64_t k = 0; k < j; ++k) d -= std::norm(l[j * n + k]);
    if (!(d > 0)) {  // also NaN
      ok = false;
      break;
    }
    const double ljj = std::sqrt(d);
    l[j * n + j] = C(ljj, 0);
    for (int64_t i = j + 1; i < n; ++i) {
      C s = read(i, j);
      for (int64_t k = 0; k < j; ++k) s -= l[i * n + k] * std::conj(l[j * n + k]);
      l[i * n + j] = s / ljj;
    }
  }
  const C nan(std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const bool in_triangle = lower ? j <= i : j >= i;
      C v(0, 0);
      if (in_triangle) v = !ok ? nan : lower ? l[i * n + j] : std::conj(l[j * n + i]);
      out[i * n + j] = v;
    }
  }
}

// Solves M X = B for a triangular m x m matrix M given by element(i, j)
// (lower when `lower`), B and X m x n row-major.
template <typename Element>
void SolveLeft(const Element& element, bool lower, const C* b, C* x, int64_t m, int64_t n) {
  for (int64_t col = 0; col < n; ++col) {
    for (int64_t step = 0; step < m; ++step) {
      const int64_t i = lower ? step : m - 1 - step;
      C s = b[i * n + col];
      if (lower) {
        for (int64_t k = 0; k < i; ++k) s -= element(i, k) * x[k * n + col];
      } else {
        for (int64_t k = i + 1; k < m; ++k) s -= element(i, k) * x[k * n + col];
      }
      x[i * n + col] = s / element(i, i);
    }
  }
}

}  // namespace

absl::StatusOr<Literal> EvalCholesky(const Literal& a, const CholeskyAttrs& attrs) {
  const Shape& shape = a.shape();
  if (shape.rank() < 2 || shape.dims[shape.rank() - 1] != shape.dims[shape.rank() - 2]) {
    return absl::InvalidArgumentError("cholesky: needs a batch of square matrices");
  }
  const Batch g(shape);
  const std::vector<C> in = ToComplex(a);
  std::vector<C> out(in.size());
  const int64_t size = g.rows * g.cols;
  for (int64_t k = 0; k < g.count; ++k) {
    CholeskyOne(in.data() + k * size, out.data() + k * size, g.rows, attrs.lower);
  }
  return FromComplex(shape, out);
}

absl::StatusOr<Literal> EvalTriangularSolve(const Literal& a, const Literal& b,
                                            const TriangularSolveAttrs& attrs) {
  const Shape& bs = b.shape();
  if (bs.rank() < 2 || a.shape().rank() != bs.rank()) {
    return absl::InvalidArgumentError("triangular_solve: operands of equal rank >= 2");
  }
  const Batch ga(a.shape()), gb(bs);
  const int64_t m = ga.rows;
  const std::vector<C> av = ToComplex(a), bv = ToComplex(b);
  std::vector<C> out(bv.size());
  const bool transposed = attrs.transpose_a != TransposeKind::kNoTranspose;
  const bool conjugate = attrs.transpose_a == TransposeKind::kAdjoint;
  // M = op(A restricted to its triangle, unit diagonal if asked); lower iff
  // the triangle read is lower XOR op transposes it.
  const bool m_lower = attrs.lower != transposed;
  for (int64_t k = 0; k < gb.count; ++k) {
    const C* am = av.data() + k * m * m;
    auto a_tri = [&](int64_t i, int64_t j) -> C {
      if (i == j && attrs.unit_diagonal) return C(1, 0);
      const bool inside = attrs.lower ? j <= i : j >= i;
      return inside ? am[i * m + j] : C(0, 0);
    };
    auto element = [&](int64_t i, int64_t j) -> C {
      C v = transposed ? a_tri(j, i) : a_tri(i, j);
      return conjugate ? std::conj(v) : v;
    };
    const int64_t size = gb.rows * gb.cols;
    const C* bm = bv.data() + k * size;
    C* xm = out.data() + k * size;
    if (attrs.left_side) {
      SolveLeft(element, m_lower, bm, xm, gb.rows, gb.cols);
    } else {
      // X M = B  <=>  M^T X^T = B^T.
      const int64_t rows = gb.rows, cols = gb.cols;  // cols == m
      std::vector<C> bt(size), xt(size);
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) bt[j * rows + i] = bm[i * cols + j];
      }
      auto element_t = [&](int64_t i, int64_t j) { return element(j, i); };
      SolveLeft(element_t, !m_lower, bt.data(), xt.data(), cols, rows);
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) xm[i * cols + j] = xt[j * rows + i];
      }
    }
  }
  return FromComplex(bs, out);
}

}  // namespace xjit::reference
