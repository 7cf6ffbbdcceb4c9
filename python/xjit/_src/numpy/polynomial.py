"""numpy's polynomial functions on coefficient arrays (highest power first):
``polyval``, ``polyadd``, ``polysub``, ``polymul``, ``polyder``,
``polyint``, and ``vander``.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.polyval(jnp.array([1.0, 0.0, -1.0]), 3.0)
    Array(8., dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src.numpy import linalg as np_linalg
from xjit._src.numpy import util
from xjit._src.numpy.comparison import iscomplexobj
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary


def _coefficients(name, *ps):
    util.check_arraylike(name, *ps)
    out = [jnp.atleast_1d(jnp.asarray(p)) for p in ps]
    for p in out:
        if p.ndim != 1:
            raise ValueError(f"{name}: coefficients must be 1-d arrays, got shape {p.shape}")
    return out


@api_boundary
def polyval(p, x, *, unroll: int = 16):
    """``p[0] * x**(n-1) + ... + p[n-1]`` by Horner's rule."""
    del unroll
    util.check_arraylike("polyval", p, x)
    p = jnp.asarray(p)
    if p.ndim != 1:
        raise ValueError(f"polyval: p must be a 1-d array of coefficients, got shape {p.shape}")
    dt = jnp.result_type(p, x)
    x = jnp.asarray(x, dtype=dt)
    y = jnp.zeros_like(x)
    for k in range(p.shape[0]):
        y = y * x + p[k].astype(dt)
    return y


def _pad_to(a, n):
    return jnp.concatenate([jnp.zeros(n - a.shape[0], a.dtype), a]) if a.shape[0] < n else a


def _aligned(name, a1, a2):
    """Both polynomials at their common dtype, padded to one length."""
    a1, a2 = _coefficients(name, a1, a2)
    dt = jnp.result_type(a1, a2)
    n = max(a1.shape[0], a2.shape[0])
    return _pad_to(a1.astype(dt), n), _pad_to(a2.astype(dt), n)


@api_boundary
def polyadd(a1, a2):
    """Sum of two polynomials."""
    a, b = _aligned("polyadd", a1, a2)
    return a + b


@api_boundary
def polysub(a1, a2):
    """Difference of two polynomials."""
    a, b = _aligned("polysub", a1, a2)
    return a - b


@api_boundary
def polymul(a1, a2, *, trim_leading_zeros: bool = False):
    """Product of two polynomials (a full convolution of the coefficients)."""
    del trim_leading_zeros
    a1, a2 = _coefficients("polymul", a1, a2)
    if a1.shape[0] == 0 or a2.shape[0] == 0:
        return jnp.zeros(1, jnp.result_type(a1, a2))
    return jnp.convolve(a1, a2, mode="full")


@api_boundary
def polyder(p, m: int = 1):
    """The ``m``-th derivative of a polynomial."""
    (p,) = _coefficients("polyder", p)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    for _ in range(m):
        n = p.shape[0]
        if n <= 1:
            return jnp.zeros(1, p.dtype if p.dtype.kind != "b" else jnp.int32)
        p = p[:-1] * jnp.arange(n - 1, 0, -1, dtype=p.dtype)
    return p


@api_boundary
def polyint(p, m: int = 1, k=None):
    """The ``m``-th antiderivative of a polynomial, integration constants ``k``."""
    (p,) = _coefficients("polyint", p)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    ks = jnp.zeros(m, p.dtype) if k is None else jnp.atleast_1d(jnp.asarray(k))
    if ks.shape[0] == 1 and m > 1:
        ks = jnp.broadcast_to(ks, (m,))
    if ks.shape[0] != m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    dt = jnp.result_type(p, ks, 1.0)
    p = p.astype(dt)
    for i in range(m):
        n = p.shape[0]
        p = jnp.concatenate([p / jnp.arange(n, 0, -1, dtype=dt), ks[i:i + 1].astype(dt)])
    return p


@api_boundary
def vander(x, N=None, increasing: bool = False):
    """The Vandermonde matrix of 1-d ``x``: columns ``x**(N-1), ..., x**0``."""
    util.check_arraylike("vander", x)
    x = jnp.asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    n = x.shape[0] if N is None else operator.index(N)
    if n < 0:
        raise ValueError("N must be nonnegative")
    powers = jnp.arange(n) if increasing else jnp.arange(n - 1, -1, -1)
    return jnp.power(x[:, None], powers.astype(x.dtype if x.dtype.kind != "b" else jnp.int32))


@api_boundary
def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with roots ``seq_of_zeros``
    (of a square matrix: its characteristic polynomial)."""
    util.check_arraylike("poly", seq_of_zeros)
    z = jnp.asarray(seq_of_zeros)
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] > 0:
        z = np_linalg.eigvals(z)
    elif z.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if z.shape[0] == 0:
        return jnp.ones((), z.dtype if z.dtype.kind in "fc" else jnp.float32)
    a = jnp.ones(1, jnp.result_type(z, 1.0))
    for k in range(z.shape[0]):
        a = jnp.convolve(a, jnp.stack([jnp.ones((), a.dtype), -z[k].astype(a.dtype)]),
                         mode="full")
    if iscomplexobj(a) and not iscomplexobj(seq_of_zeros):
        a = jnp.real(a)
    return a


@api_boundary
def roots(p, *, strip_zeros: bool = True):
    """The roots of a polynomial: the eigenvalues of its companion matrix
    (leading zeros stripped when concrete; trailing zeros are zero roots)."""
    (p,) = _coefficients("roots", p)
    if strip_zeros and not util.is_tracer(p):
        nz = np.nonzero(np.asarray(p))[0]
        if nz.size == 0:
            return jnp.zeros(0, jnp.result_type(p, 1.0))
        trailing = p.shape[0] - 1 - nz[-1]
        p = p[nz[0]:nz[-1] + 1]
    else:
        trailing = 0
    n = p.shape[0] - 1
    dt = jnp.result_type(p, 1.0)
    if n < 1:
        r = jnp.zeros(0, jnp.result_type(dt, 1j))
    else:
        p = p.astype(dt)
        companion = jnp.diag(jnp.ones(n - 1, dt), -1)
        companion = companion.at[0, :].set(-p[1:] / p[0])
        r = np_linalg.eigvals(companion)
    return jnp.concatenate([r, jnp.zeros(trailing, r.dtype)]) if trailing else r


@api_boundary
def polydiv(u, v, *, trim_leading_zeros: bool = False):
    """Quotient and remainder of polynomial division ``u / v``; the remainder
    keeps ``u``'s length (as JAX) unless ``trim_leading_zeros`` (numpy's
    result; concrete input only)."""
    u, v = _coefficients("polydiv", u, v)
    dt = jnp.result_type(u, v, 1.0)
    u, v = u.astype(dt), v.astype(dt)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = 1.0 / v[0]
    q = jnp.zeros(max(m - n + 1, 1), dt)
    r = u
    for k in range(0, m - n + 1):
        d = scale * r[k]
        q = q.at[k].set(d)
        r = r.at[k:k + n + 1].add(-d * v)
    if trim_leading_zeros:
        nz = np.nonzero(np.abs(np.asarray(r)) > 0)[0]
        r = r[nz[0]:] if nz.size else r[-1:]
    return q, r


@api_boundary
def polyfit(x, y, deg: int, rcond=None, full: bool = False, w=None, cov: bool = False):
    """Least-squares polynomial fit of degree ``deg`` (coefficients highest
    first; ``full`` adds residuals, rank, singular values and rcond)."""
    util.check_arraylike("polyfit", x, y)
    deg = operator.index(deg)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if cov:
        raise NotImplementedError("polyfit: cov=True is not supported by xjit")
    x, y = jnp.asarray(x), jnp.asarray(y)
    if x.ndim != 1 or x.shape[0] == 0 or y.ndim not in (1, 2) or y.shape[0] != x.shape[0]:
        raise ValueError("polyfit: x must be a non-empty 1-d array and y of the same length")
    dt = jnp.result_type(x, y, 1.0)
    x, y = x.astype(dt), y.astype(dt)
    rcond = x.shape[0] * float(jnp.finfo(dt).eps) if rcond is None else rcond
    lhs = vander(x, deg + 1)
    rhs = y
    if w is not None:
        w = jnp.asarray(w, dt)
        lhs = lhs * w[:, None]
        rhs = rhs * (w if rhs.ndim == 1 else w[:, None])
    scale = jnp.sqrt(jnp.sum(lhs * lhs, axis=0))
    c, resids, rank, s = np_linalg.lstsq(lhs / scale, rhs, rcond=rcond)
    c = (c.T / scale).T
    if full:
        return c, resids, rank, s, jnp.asarray(rcond)
    return c
