"""``xjit.numpy.linalg``: numpy's linear algebra with JAX's signatures,
dtypes and errors, on ``xjit.lax.linalg`` (cholesky and triangular_solve
graph ops, LAPACK custom calls for LU, QR, eigh, SVD and eig).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.linalg.solve(jnp.array([[2., 0.], [0., 4.]]), jnp.array([2., 2.]))
    Array([1. , 0.5], dtype=float32)
"""
from __future__ import annotations

import functools
import operator
from typing import NamedTuple

import numpy as np

from xjit._src.lax import decompositions as lax_linalg
from xjit._src.numpy import util
from xjit._src.traceback_util import api_boundary


def _jnp():
    from xjit._src.numpy.namespace import jnp
    return jnp


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class EigResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    Q: object
    R: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


def _inexact(name: str, *args):
    """The arguments as arrays of their common inexact dtype (not broadcast)."""
    jnp = _jnp()
    util.check_arraylike(name, *args)
    dt = util.to_inexact(jnp.result_type(*args))
    return [jnp.asarray(a).astype(dt) for a in args]


def _check_square(name: str, a) -> None:
    if a.ndim < 2:
        raise ValueError(f"{name}: argument must have at least 2 dimensions, got {a.ndim}")
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name}: last two dimensions must be square, got {a.shape}")


def _is_complex(x) -> bool:
    return np.issubdtype(x.dtype, np.complexfloating)


def _H(x):
    jnp = _jnp()
    return jnp.conj(jnp.swapaxes(x, -1, -2)) if _is_complex(x) else jnp.swapaxes(x, -1, -2)


# ---------------------------------------------------------------- factorizations

@api_boundary
def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """Cholesky factor of Hermitian positive-definite matrices (``jnp.linalg.cholesky``):
    lower ``L`` with ``a = L L^H``, or upper ``U = L^H``; NaNs where ``a`` is
    not positive definite.

    Example:
        >>> jnp.linalg.cholesky(jnp.array([[4., 2.], [2., 5.]]))
        Array([[2., 0.],
               [1., 2.]], dtype=float32)
    """
    (a,) = _inexact("cholesky", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise TypeError(f"cholesky: argument must be a batch of square matrices, got {a.shape}")
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _H(L) if upper else L


@api_boundary
def qr(a, mode: str = "reduced"):
    """QR decomposition (``jnp.linalg.qr``): modes ``reduced``, ``complete``,
    ``r`` (R only) and ``raw`` (numpy's ``(h, tau)``)."""
    (a,) = _inexact("qr", a)
    if a.ndim < 2:
        raise ValueError("qr: argument must have at least 2 dimensions")
    if mode == "raw":
        from xjit._src.lax import lapack
        h, tau = lapack.geqrf(a)
        return QRResult(_jnp().swapaxes(h, -1, -2), tau)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
    if mode == "r":
        return r
    return QRResult(q, r)


@api_boundary
def eigh(a, UPLO: str | None = None, symmetrize_input: bool = True):
    """Eigenvalues (ascending) and eigenvectors (columns) of Hermitian
    matrices (``jnp.linalg.eigh``); ``UPLO`` picks the triangle read when
    ``symmetrize_input`` is False."""
    (a,) = _inexact("eigh", a)
    _check_square("eigh", a)
    if UPLO is None or UPLO == "L":
        lower = True
    elif UPLO == "U":
        lower = False
    else:
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    v, w = lax_linalg.eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


@api_boundary
def eigvalsh(a, UPLO: str | None = "L", *, symmetrize_input: bool = True):
    """Eigenvalues (ascending) of Hermitian matrices (``jnp.linalg.eigvalsh``)."""
    return eigh(a, UPLO, symmetrize_input=symmetrize_input).eigenvalues


@api_boundary
def eig(a):
    """Eigenvalues and right eigenvectors (columns) of general square matrices
    (``jnp.linalg.eig``); complex results."""
    (a,) = _inexact("eig", a)
    _check_square("eig", a)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=True)
    return EigResult(w, v)


@api_boundary
def eigvals(a):
    """Eigenvalues of general square matrices (``jnp.linalg.eigvals``)."""
    (a,) = _inexact("eigvals", a)
    _check_square("eigvals", a)
    return lax_linalg.eig(a, compute_left_eigenvectors=False,
                          compute_right_eigenvectors=False)[0]


@api_boundary
def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index=None):
    """Singular value decomposition (``jnp.linalg.svd``): ``SVDResult(U, S, Vh)``
    with ``a = U @ diag(S) @ Vh``, or ``S`` alone without ``compute_uv``."""
    jnp = _jnp()
    (a,) = _inexact("svd", a)
    if a.ndim < 2:
        raise ValueError("svd: argument must have at least 2 dimensions")
    if hermitian:
        v, w = lax_linalg.eigh(a)
        s = jnp.abs(w)
        order = jnp.flip(jnp.argsort(s, axis=-1, stable=True), axis=-1)
        s = jnp.take_along_axis(s, order, axis=-1)
        if not compute_uv:
            return s
        sign = jnp.take_along_axis(jnp.sign(w), order, axis=-1)
        u = jnp.take_along_axis(v, order[..., None, :], axis=-1)
        vh = _H(u * sign[..., None, :].astype(u.dtype))
        return SVDResult(u, s, vh)
    if not compute_uv:
        return lax_linalg.svd(a, compute_uv=False, subset_by_index=subset_by_index)
    u, s, vh = lax_linalg.svd(a, full_matrices=full_matrices, subset_by_index=subset_by_index)
    return SVDResult(u, s, vh)


@api_boundary
def svdvals(x):
    """Singular values, descending (``jnp.linalg.svdvals``)."""
    return svd(x, compute_uv=False)


# ---------------------------------------------------------------- solve, inv, det

def _lu_solve(lu, perm, b, trans: int = 0):
    """Solves with an LU factorization: ``a x = b`` (trans 0), ``a^T x = b``
    (1) or ``a^H x = b`` (2); ``b`` is [..., m, k]."""
    jnp = _jnp()
    if trans == 0:
        x = jnp.take_along_axis(b, perm[..., :, None], axis=-2)
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
        return lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    conj = trans == 2
    x = lax_linalg.triangular_solve(lu, b, left_side=True, lower=False, transpose_a=True,
                                    conjugate_a=conj)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True,
                                    transpose_a=True, conjugate_a=conj)
    inv_perm = jnp.argsort(perm, axis=-1)
    return jnp.take_along_axis(x, inv_perm[..., :, None], axis=-2)


def _lu_of_transpose(a):
    """``(m, perm)`` with ``a = U^T L^T P``: LU of ``a^T`` with no layout
    conversion (``lapack.getrf_t``): ``m`` holds U^T on and below the diagonal
    and L^T (unit diagonal) above it; ``perm`` is P's row order."""
    from xjit._src.lax import lapack
    m, ipiv, _ = lapack.getrf_t(a)  # info < 0 only for arguments the target rejects
    perm = lax_linalg.lu_pivots_to_permutation(ipiv - 1, a.shape[-1])
    return m, perm


def _solve_impl(a, b):
    # a x = b with a = U^T L^T P: U^T y = b, L^T z = y, x = P^T z.
    jnp = _jnp()
    m, perm = _lu_of_transpose(a)
    y = lax_linalg.triangular_solve(m, b, left_side=True, lower=True)
    z = lax_linalg.triangular_solve(m, y, left_side=True, lower=False, unit_diagonal=True)
    return jnp.take_along_axis(z, jnp.argsort(perm, axis=-1)[..., :, None], axis=-2)


def _solve_jvp(primals, tangents):
    a, b = primals
    da, db = tangents
    x = _solve_core()(a, b)
    rhs = db
    if da is not None and not _is_zero(da):
        rhs = rhs - _jnp().matmul(da, x)
    return x, _solve_core()(a, rhs)


def _is_zero(t) -> bool:
    from xjit._src.custom_derivatives import SymbolicZero
    return isinstance(t, SymbolicZero)


@functools.lru_cache(maxsize=None)
def _solve_core():
    from xjit._src.custom_derivatives import custom_jvp
    f = custom_jvp(_solve_impl)
    f.defjvp(_solve_jvp)
    return f


@api_boundary
def solve(a, b):
    """Solves ``a @ x = b`` (``jnp.linalg.solve``): ``b`` is a vector
    (``b.ndim == 1``) or a batch of matrices broadcast against ``a``'s batch.
    LU with partial pivoting (LAPACK getrf), then two triangular solves."""
    jnp = _jnp()
    a, b = _inexact("solve", a, b)
    _check_square("solve", a)
    if b.ndim == 1:
        if b.shape[0] != a.shape[-1]:
            raise ValueError(f"solve: incompatible shapes {a.shape} and {b.shape}")
        b2 = jnp.broadcast_to(b[:, None], a.shape[:-2] + (b.shape[0], 1))
        return _solve_core()(a, b2)[..., 0]
    if b.shape[-2] != a.shape[-1]:
        raise ValueError(f"solve: incompatible shapes {a.shape} and {b.shape}")
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    return _solve_core()(a, b)


@api_boundary
def inv(a):
    """Inverse of square matrices (``jnp.linalg.inv``): ``solve(a, I)``."""
    jnp = _jnp()
    (a,) = _inexact("inv", a)
    _check_square("inv", a)
    eye = jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    return _solve_core()(a, eye)


def _pivot_parity(pivots, n: int, dtype):
    """+1 or -1: the sign of the permutation that 0-based LU ``pivots`` make."""
    jnp = _jnp()
    swaps = jnp.sum(pivots != jnp.arange(n, dtype=pivots.dtype), axis=-1)
    return jnp.where(swaps % 2 == 1, -1, 1).astype(dtype)


def _lu_parity_and_diag(a):
    # det(a) = det(a^T): the LU of a^T needs no layout conversion, and its U
    # diagonal is on m's diagonal (_lu_of_transpose).
    from xjit._src.lax import lapack
    jnp = _jnp()
    m, ipiv, _ = lapack.getrf_t(a)
    return (_pivot_parity(ipiv - 1, a.shape[-1], a.dtype),
            jnp.diagonal(m, axis1=-2, axis2=-1))


def _det_impl(a):
    jnp = _jnp()
    parity, diag = _lu_parity_and_diag(a)
    return parity * jnp.prod(diag, axis=-1)


def _adjugate_times(a, b):
    """``(det(a), adj(a) @ b)``, finite where ``a`` has rank n - 1 with its zero
    pivot last (the usual case of a singular matrix under partial pivoting).

    With ``P a = L U``: adj(a) = sign adj(U) L^-1 P. Split U as [[U1, c], [0, u]]
    with p = det(U1): adj(U) = [[u p U1^-1, -p U1^-1 c], [0, p]], which is
    U'^-1 applied after scaling all rows but the last by det(U) = p u, where
    U' is U with u replaced by 1 / p. No division by u, so u = 0 is fine. A
    matrix whose zero pivot is elsewhere (p = 0) gets a zero product, as in
    JAX, rather than NaNs."""
    jnp = _jnp()
    n = a.shape[-1]
    lu, pivots, perm = lax_linalg._lu_impl(a)
    diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
    sign = _pivot_parity(pivots, n, a.dtype)
    det_u = jnp.prod(diag, axis=-1)
    p = jnp.prod(diag[..., :-1], axis=-1)
    inv_p = 1 / p
    u_prime = lu.at[..., -1, -1].set(inv_p)
    # From primal values only (the product must stay linear in b). Zeroing b
    # before the solves as well as after keeps the transposed solves, which
    # run in the opposite order, from producing NaNs too.
    bad = ~jnp.isfinite(inv_p)[..., None, None]
    b = jnp.where(bad, jnp.zeros(b.shape, b.dtype), b)
    # The rows of L^-1 P b: unit lower solve after the row permutation.
    y = lax_linalg.triangular_solve(lu, jnp.take_along_axis(b, perm[..., :, None], axis=-2),
                                    left_side=True, lower=True, unit_diagonal=True)
    scale = jnp.concatenate([jnp.broadcast_to(det_u[..., None], det_u.shape + (n - 1,)),
                             jnp.ones(det_u.shape + (1,), a.dtype)], axis=-1)
    x = lax_linalg.triangular_solve(u_prime, y * scale[..., :, None], left_side=True,
                                    lower=False)
    x = sign[..., None, None] * x
    x = jnp.where(bad, jnp.zeros(x.shape, x.dtype), x)
    return sign * det_u, x


def _det_jvp(primals, tangents):
    jnp = _jnp()
    (a,), (da,) = primals, tangents
    # d det = tr(adj(a) da): finite at singular a, unlike det tr(a^-1 da).
    y, adj_da = _adjugate_times(a, da)
    return y, jnp.trace(adj_da, axis1=-2, axis2=-1)


@functools.lru_cache(maxsize=None)
def _det_core():
    from xjit._src.custom_derivatives import custom_jvp
    f = custom_jvp(_det_impl)
    f.defjvp(_det_jvp)
    return f


@api_boundary
def det(a):
    """Determinant of square matrices (``jnp.linalg.det``), from the LU
    factorization. Its derivative is ``tr(adj(a) da)`` through the adjugate,
    finite at singular ``a`` as JAX's is."""
    (a,) = _inexact("det", a)
    _check_square("det", a)
    if a.shape[-1] == 0:
        return _jnp().ones(a.shape[:-2], a.dtype)
    if a.shape[-1] <= 3:
        return _det_small(a)
    return _det_core()(a)


def _det_small(a):
    """The 1x1, 2x2 and 3x3 determinant as a polynomial of the entries (as JAX
    does): exact, cheaper than an LU, and differentiated as written, so its
    gradient is exact at singular matrices whatever their pivots."""
    e = lambda i, j: a[..., i, j]  # noqa: E731
    n = a.shape[-1]
    if n == 1:
        return e(0, 0)
    if n == 2:
        return e(0, 0) * e(1, 1) - e(0, 1) * e(1, 0)
    return (e(0, 0) * (e(1, 1) * e(2, 2) - e(1, 2) * e(2, 1))
            - e(0, 1) * (e(1, 0) * e(2, 2) - e(1, 2) * e(2, 0))
            + e(0, 2) * (e(1, 0) * e(2, 1) - e(1, 1) * e(2, 0)))


def _slogdet_impl(a):
    jnp = _jnp()
    parity, diag = _lu_parity_and_diag(a)
    is_zero = jnp.any(diag == 0, axis=-1)
    if _is_complex(a):
        sign = parity * jnp.prod(diag / jnp.abs(diag).astype(a.dtype), axis=-1)
    else:
        sign = parity * jnp.prod(jnp.sign(diag), axis=-1)
    logdet = jnp.sum(jnp.log(jnp.abs(diag)), axis=-1)
    sign = jnp.where(is_zero, jnp.zeros_like(sign), sign)
    logdet = jnp.where(is_zero, jnp.full_like(logdet, -jnp.inf), logdet)
    return sign, logdet


def _slogdet_jvp(primals, tangents):
    jnp = _jnp()
    (a,), (da,) = primals, tangents
    sign, logdet = _slogdet_core()(a)
    z = jnp.trace(_solve_core()(a, da), axis1=-2, axis2=-1)
    if _is_complex(a):
        sign_dot = sign * 1j * jnp.imag(z).astype(a.dtype)
        logdet_dot = jnp.real(z)
    else:
        sign_dot = jnp.zeros_like(sign)
        logdet_dot = z
    return (sign, logdet), (sign_dot, logdet_dot)


@functools.lru_cache(maxsize=None)
def _slogdet_core():
    from xjit._src.custom_derivatives import custom_jvp
    f = custom_jvp(_slogdet_impl)
    f.defjvp(_slogdet_jvp)
    return f


@api_boundary
def slogdet(a, *, method: str | None = None):
    """Sign and natural log of the absolute determinant (``jnp.linalg.slogdet``):
    sign 0 and log -inf for singular matrices."""
    jnp = _jnp()
    (a,) = _inexact("slogdet", a)
    _check_square("slogdet", a)
    if method not in (None, "lu"):
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' "
                         f"(`None`).")
    if a.shape[-1] == 0:
        return SlogdetResult(jnp.ones(a.shape[:-2], a.dtype),
                             jnp.zeros(a.shape[:-2], util.real_dtype(a.dtype)))
    return SlogdetResult(*_slogdet_core()(a))


# ---------------------------------------------------------------- least squares, pinv

@api_boundary
def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """Least-squares solution of ``a @ x = b`` through the SVD (``jnp.linalg.lstsq``):
    ``(x, resid, rank, s)``. As JAX, residuals are returned in every case unless
    ``numpy_resid``."""
    jnp = _jnp()
    a, b = _inexact("lstsq", a, b)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    b_orig_ndim = b.ndim
    if b_orig_ndim == 1:
        b = b[:, None]
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim != 2:
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or "
                        f"two-dimensional")
    m, n = a.shape
    dtype = a.dtype
    rdt = util.real_dtype(dtype)
    if a.size == 0:
        s = jnp.empty(0, dtype=rdt)
        rank = jnp.array(0, dtype=jnp.int32)
        x = jnp.zeros((n, *b.shape[1:]), dtype=dtype)
    else:
        eps = float(np.finfo(rdt).eps)
        if rcond is None:
            rcond = eps * max(n, m)
        else:
            rcond = jnp.where(jnp.asarray(rcond) < 0, eps, rcond)
        u, s, vt = lax_linalg.svd(a, full_matrices=False)
        mask = s >= jnp.asarray(rcond, dtype=rdt) * s[0]
        rank = jnp.sum(mask).astype(jnp.int32)
        safe_s = jnp.where(mask, s, 1).astype(dtype)
        s_inv = jnp.where(mask, 1 / safe_s, 0)[:, None]
        utb = jnp.matmul(_H(u), b)
        x = jnp.matmul(_H(vt), s_inv * utb)
    if numpy_resid and (int(rank) < n or m <= n):
        resid = jnp.asarray([], dtype=rdt)
    else:
        resid = norm(b - jnp.matmul(a, x), axis=0) ** 2
    if b_orig_ndim == 1:
        x = x.ravel()
    return x, resid, rank, s


@api_boundary
def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """Moore-Penrose pseudo-inverse through the SVD (``jnp.linalg.pinv``):
    singular values at or below ``rtol`` times the largest are dropped."""
    jnp = _jnp()
    (arr,) = _inexact("pinv", a)
    if rcond is not None:
        rtol = rcond
    if arr.ndim < 2:
        raise ValueError("pinv: argument must have at least 2 dimensions")
    m, n = arr.shape[-2:]
    if m == 0 or n == 0:
        return jnp.zeros(arr.shape[:-2] + (n, m), arr.dtype)
    arr = jnp.conj(arr) if _is_complex(arr) else arr
    rdt = util.real_dtype(arr.dtype)
    if rtol is None:
        rtol = 10.0 * max(m, n) * float(np.finfo(rdt).eps)
    rtol = jnp.asarray(rtol, dtype=rdt)
    u, s, vh = svd(arr, full_matrices=False, hermitian=hermitian)
    rtol = jnp.reshape(rtol, rtol.shape + (1,) * (s.ndim - rtol.ndim))
    cutoff = rtol * s[..., 0:1]
    s = jnp.where(s > cutoff, s, jnp.inf).astype(u.dtype)
    res = jnp.matmul(jnp.swapaxes(vh, -1, -2), jnp.swapaxes(u, -1, -2) / s[..., None])
    return res.astype(arr.dtype)


# ---------------------------------------------------------------- norms and friends

@api_boundary
def norm(x, ord=None, axis=None, keepdims: bool = False):
    """Vector and matrix norms (``jnp.linalg.norm``): for vectors any ``ord``
    (including inf, -inf, 0), for matrices ``'fro'``, ``'nuc'``, 1, -1, 2, -2,
    inf, -inf."""
    jnp = _jnp()
    (x,) = _inexact("norm", x)
    if axis is None:
        if ord is None:
            return _keep(jnp.sqrt(jnp.sum(jnp.real(x * jnp.conj(x)))), x.ndim, keepdims)
        axis = tuple(range(x.ndim))
    elif isinstance(axis, (list, tuple)):
        axis = tuple(axis)
    else:
        axis = (operator.index(axis),)
    axis = tuple(util.canonicalize_axis(a, x.ndim) for a in axis)
    if len(axis) == 1:
        ax = axis[0]
        a = jnp.abs(x)
        if ord is None or ord == 2:
            return jnp.sqrt(jnp.sum(jnp.real(x * jnp.conj(x)), axis=ax, keepdims=keepdims))
        if ord == np.inf:
            return jnp.max(a, axis=ax, keepdims=keepdims)
        if ord == -np.inf:
            return jnp.min(a, axis=ax, keepdims=keepdims)
        if ord == 0:
            return jnp.sum(x != 0, dtype=a.dtype, axis=ax, keepdims=keepdims)
        if ord == 1:
            return jnp.sum(a, axis=ax, keepdims=keepdims)
        if isinstance(ord, str):
            raise ValueError(f"Invalid order '{ord}' for vector norm.")
        ord_arr = jnp.asarray(ord, dtype=a.dtype)
        return jnp.power(jnp.sum(a ** ord_arr, axis=ax, keepdims=keepdims), 1.0 / ord_arr)
    if len(axis) == 2:
        row, col = axis
        if row == col:
            raise ValueError(f"Duplicate axes given: {axis}")
        y = jnp.moveaxis(x, (row, col), (-2, -1))
        a = jnp.abs(y)
        if ord is None or ord in ("fro", "f"):
            out = jnp.sqrt(jnp.sum(jnp.real(y * jnp.conj(y)), axis=(-2, -1)))
        elif ord in (1, -1):
            out = (jnp.max if ord == 1 else jnp.min)(jnp.sum(a, axis=-2), axis=-1)
        elif ord in (np.inf, -np.inf):
            out = (jnp.max if ord == np.inf else jnp.min)(jnp.sum(a, axis=-1), axis=-1)
        elif ord in (2, -2, "nuc"):
            s = svd(y, compute_uv=False)
            out = {2: jnp.max, -2: jnp.min, "nuc": jnp.sum}[ord](s, axis=-1)
        else:
            raise ValueError(f"Invalid order '{ord}' for matrix norm.")
        if keepdims:
            out = jnp.expand_dims(out, tuple(sorted(axis)))
        return out
    raise ValueError(f"Invalid axis values ({axis}) for jnp.linalg.norm.")


def _keep(v, ndim, keepdims):
    return _jnp().reshape(v, (1,) * ndim) if keepdims else v


@api_boundary
def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
    """Norm of the matrices in ``x``'s last two dimensions (``jnp.linalg.matrix_norm``)."""
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


@api_boundary
def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
    """Vector norm (``jnp.linalg.vector_norm``); ``axis=None`` flattens."""
    jnp = _jnp()
    if axis is None:
        out = norm(jnp.ravel(jnp.asarray(x)), ord=ord)
        return _keep(out, jnp.ndim(x), keepdims)
    return norm(x, ord=ord, axis=axis, keepdims=keepdims)


@api_boundary
def matrix_power(a, n: int):
    """``a`` to the integer power ``n`` by repeated squaring (``jnp.linalg.matrix_power``);
    negative ``n`` inverts first."""
    jnp = _jnp()
    util.check_arraylike("matrix_power", a)
    a = jnp.asarray(a)
    if a.ndim < 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be at least "
                        f"two-dimensional")
    if a.shape[-2] != a.shape[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    if n == 0:
        return jnp.broadcast_to(jnp.eye(a.shape[-2], dtype=a.dtype), a.shape)
    if n < 0:
        a = inv(a)
        n = -n
    if n == 1:
        return a
    if n == 2:
        return a @ a
    if n == 3:
        return (a @ a) @ a
    z = result = None
    while n > 0:
        z = a if z is None else (z @ z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else (result @ z)
    return result


@api_boundary
def matrix_rank(M, rtol=None, *, tol=None):
    """Number of singular values above ``tol`` (default ``rtol * max(m, n) * s_max``;
    ``jnp.linalg.matrix_rank``)."""
    jnp = _jnp()
    (M,) = _inexact("matrix_rank", M)
    if M.ndim < 2:
        return (M != 0).any().astype(jnp.int32)
    s = svd(M, compute_uv=False)
    if tol is None:
        if rtol is None:
            rtol = s.max(-1) * max(M.shape[-2:]) * np.finfo(s.dtype).eps
        else:
            rtol = jnp.asarray(rtol) * s.max(-1)
        tol = jnp.expand_dims(rtol, -1) if jnp.ndim(rtol) else rtol
    else:
        tol = jnp.asarray(tol)
        tol = jnp.expand_dims(tol, -1) if tol.ndim else tol
    return jnp.sum(s > tol, axis=-1).astype(jnp.int32)


@api_boundary
def cond(x, p=None):
    """Condition number (``jnp.linalg.cond``): ``s_max / s_min`` for ``p`` in
    None, 2, -2; ``norm(x, p) * norm(inv(x), p)`` otherwise (inf for singular)."""
    jnp = _jnp()
    (x,) = _inexact("cond", x)
    if x.ndim < 2:
        raise ValueError(f"{x.ndim}-dimensional array given. Array must be at least "
                         f"two-dimensional")
    if p is None or p == 2:
        s = svd(x, compute_uv=False)
        return s[..., 0] / s[..., -1]
    if p == -2:
        s = svd(x, compute_uv=False)
        r = s[..., -1] / s[..., 0]
    else:
        _check_square("cond", x)
        r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
    return jnp.where(jnp.isnan(r) & ~jnp.isnan(x).any(axis=(-2, -1)), jnp.inf, r)


@api_boundary
def tensorsolve(a, b, axes=None):
    """Solves ``tensordot(a, x, x.ndim) = b`` for ``x`` (``jnp.linalg.tensorsolve``)."""
    jnp = _jnp()
    a, b = _inexact("tensorsolve", a, b)
    if axes is not None:
        axes = tuple(util.canonicalize_axis(ax, a.ndim) for ax in axes)
        a = jnp.moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
    out_shape = a.shape[b.ndim:]
    size = int(np.prod(out_shape))
    if int(np.prod(a.shape[:b.ndim])) != size:
        raise ValueError(f"tensorsolve: a's shape {a.shape} does not match b's {b.shape} "
                         f"(prod(a.shape[:b.ndim]) must equal prod(a.shape[b.ndim:]))")
    return solve(a.reshape(size, size), b.ravel()).reshape(out_shape)


@api_boundary
def tensorinv(a, ind: int = 2):
    """Inverse of ``a`` seen as a matrix of its first ``ind`` and other axes."""
    jnp = _jnp()
    (a,) = _inexact("tensorinv", a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer, got {ind}.")
    contracting, batch = a.shape[:ind], a.shape[ind:]
    flat_c, flat_b = int(np.prod(contracting)), int(np.prod(batch))
    if flat_c != flat_b:
        raise ValueError(f"tensorinv: product of first {ind} dimensions ({flat_c}) must equal "
                         f"the product of the rest ({flat_b})")
    return inv(a.reshape(flat_c, flat_b)).reshape(*batch, *contracting)


def _chain_order(dims):
    """numpy's O(n^3) matrix-chain dynamic programme: split points s[i][j]."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j] = c
                    split[i][j] = k
    return split


@api_boundary
def multi_dot(arrays, *, precision=None):
    """The product of a chain of arrays in the cheapest order
    (``jnp.linalg.multi_dot``); the first may be 1-d (a row), the last 1-d
    (a column), the others 2-d."""
    jnp = _jnp()
    arrays = list(arrays)
    if len(arrays) < 2:
        raise ValueError(f"Expecting at least two arrays, got {len(arrays)}")
    util.check_arraylike("multi_dot", *arrays)
    arrays = [jnp.asarray(a) for a in arrays]
    first_1d, last_1d = arrays[0].ndim == 1, arrays[-1].ndim == 1
    if first_1d:
        arrays[0] = arrays[0][None, :]
    if last_1d:
        arrays[-1] = arrays[-1][:, None]
    for i, a in enumerate(arrays):
        if a.ndim != 2:
            raise ValueError(f"multi_dot: array {i} must be 2-dimensional (the first and last "
                             f"may be 1-dimensional), got shape {a.shape}")
    dims = [arrays[0].shape[0]] + [a.shape[1] for a in arrays]
    split = _chain_order(dims)

    def product(i, j):
        if i == j:
            return arrays[i]
        k = split[i][j]
        return jnp.matmul(product(i, k), product(k + 1, j), precision=precision)
    out = product(0, len(arrays) - 1)
    if first_1d:
        out = out[0]
    if last_1d:
        out = out[..., 0]
    return out


@api_boundary
def matrix_transpose(x, /):
    return _jnp().matrix_transpose(x)


@api_boundary
def outer(x1, x2, /):
    jnp = _jnp()
    x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={x1.ndim} and x2.ndim={x2.ndim}")
    return jnp.outer(x1, x2)


@api_boundary
def diagonal(x, /, *, offset: int = 0):
    return _jnp().diagonal(x, offset=offset, axis1=-2, axis2=-1)


@api_boundary
def trace(x, /, *, offset: int = 0, dtype=None):
    return _jnp().trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


__all__ = ["cholesky", "cond", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
           "lstsq", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose",
           "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
           "tensorinv", "tensorsolve", "trace", "vector_norm", "EighResult", "EigResult",
           "QRResult", "SVDResult", "SlogdetResult"]
