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

from xjit._src.numpy import util
from xjit._src.traceback_util import api_boundary


def _jnp():
    # At call time: xjit.numpy imports this module.
    import xjit.numpy as jnp
    return jnp


def _coefficients(name, *ps):
    util.check_arraylike(name, *ps)
    jnp = _jnp()
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
    jnp = _jnp()
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
    jnp = _jnp()
    return jnp.concatenate([jnp.zeros(n - a.shape[0], a.dtype), a]) if a.shape[0] < n else a


def _aligned(name, a1, a2):
    """Both polynomials at their common dtype, padded to one length."""
    jnp = _jnp()
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
    jnp = _jnp()
    a1, a2 = _coefficients("polymul", a1, a2)
    if a1.shape[0] == 0 or a2.shape[0] == 0:
        return jnp.zeros(1, jnp.result_type(a1, a2))
    return jnp.convolve(a1, a2, mode="full")


@api_boundary
def polyder(p, m: int = 1):
    """The ``m``-th derivative of a polynomial."""
    jnp = _jnp()
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
    jnp = _jnp()
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
    jnp = _jnp()
    util.check_arraylike("vander", x)
    x = jnp.asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    n = x.shape[0] if N is None else operator.index(N)
    if n < 0:
        raise ValueError("N must be nonnegative")
    powers = jnp.arange(n) if increasing else jnp.arange(n - 1, -1, -1)
    return jnp.power(x[:, None], powers.astype(x.dtype if x.dtype.kind != "b" else jnp.int32))
