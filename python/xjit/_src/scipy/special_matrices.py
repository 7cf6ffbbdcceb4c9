"""scipy.linalg's special matrices and the polar decomposition:
``toeplitz``, ``hankel``, ``circulant``, ``companion``, ``hilbert``,
``dft``, ``polar`` (from the SVD), as ``jax.scipy.linalg`` defines them.

Example:
    >>> from xjit.scipy import linalg
    >>> linalg.toeplitz(jnp.array([1, 2, 3]))
    Array([[1, 2, 3],
           [2, 1, 2],
           [3, 2, 1]], dtype=int32)
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src.lax import decompositions as lax_linalg
from xjit._src.numpy import util
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary


def _vector(name, x):
    util.check_arraylike(name, x)
    x = jnp.asarray(x)
    return jnp.ravel(x) if x.ndim != 1 else x


def _indexed(values, idx):
    return jnp.take(values, jnp.asarray(idx.astype(np.int32)))


@api_boundary
def toeplitz(c, r=None):
    """The Toeplitz matrix with first column ``c`` and first row ``r``
    (default ``conj(c)``; ``r[0]`` is ignored)."""
    c = _vector("toeplitz", c)
    r = jnp.conj(c) if r is None else _vector("toeplitz", r)
    m, n = c.shape[0], r.shape[0]
    values = jnp.concatenate([jnp.flip(c, 0), r[1:].astype(jnp.result_type(c, r))])
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    return _indexed(values.astype(jnp.result_type(c, r)), (m - 1) - i + j)


@api_boundary
def hankel(c, r=None):
    """The Hankel matrix with first column ``c`` and last row ``r`` (default
    zeros; ``r[0]`` is ignored)."""
    c = _vector("hankel", c)
    r = jnp.zeros_like(c) if r is None else _vector("hankel", r)
    m, n = c.shape[0], r.shape[0]
    dt = jnp.result_type(c, r)
    values = jnp.concatenate([c.astype(dt), r[1:].astype(dt)])
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    return _indexed(values, i + j)


@api_boundary
def circulant(c):
    """The circulant matrix with first column ``c``."""
    c = _vector("circulant", c)
    n = c.shape[0]
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return _indexed(c, (i - j) % n)


@api_boundary
def companion(a):
    """The companion matrix of the polynomial with coefficients ``a`` (highest first)."""
    a = _vector("companion", a)
    n = a.shape[0]
    if n < 2:
        raise ValueError("The length of `a` must be at least 2.")
    first_row = -a[1:] / a[0]
    out = jnp.zeros((n - 1, n - 1), first_row.dtype)
    out = out.at[0].set(first_row)
    if n > 2:
        idx = jnp.arange(n - 2)
        out = out.at[idx + 1, idx].set(jnp.ones(n - 2, first_row.dtype))
    return out


@api_boundary
def hilbert(n: int):
    """The n x n Hilbert matrix ``1 / (i + j + 1)``."""
    n = operator.index(n)
    i = jnp.arange(n, dtype=jnp.float32)
    return 1.0 / (i[:, None] + i[None, :] + 1.0)


@api_boundary
def dft(n: int, scale=None):
    """The n x n discrete Fourier transform matrix (``scale``: None, "n" or "sqrtn")."""
    n = operator.index(n)
    if scale not in (None, "n", "sqrtn"):
        raise ValueError(f"scale must be None, 'n', or 'sqrtn', not {scale!r}.")
    k = np.arange(n)
    m = np.exp(-2j * np.pi * np.outer(k, k) / n).astype(np.complex64)
    if scale == "n":
        m = m / n
    elif scale == "sqrtn":
        m = m / np.sqrt(n)
    return jnp.asarray(m.astype(np.complex64))


@api_boundary
def polar(a, side: str = "right", *, method: str = "svd", eps=None, max_iterations=None):
    """The polar decomposition ``a = u p`` (``side="right"``) or ``p u`` with
    ``u`` unitary and ``p`` positive semidefinite, from the SVD."""
    del eps, max_iterations
    if side not in ("right", "left"):
        raise ValueError(f"side={side!r} is not 'right' or 'left'")
    if method != "svd":
        raise NotImplementedError(f"polar: method={method!r} is not supported (only 'svd')")
    util.check_arraylike("polar", a)
    (a,) = util.promote_args_inexact("polar", a)
    if a.ndim != 2:
        raise ValueError("polar: the input must be a matrix")
    u_svd, s, vh = lax_linalg.svd(a, full_matrices=False)
    u = u_svd @ vh
    if side == "right":
        p = (jnp.conj(vh).T * s) @ vh
    else:
        p = (u_svd * s) @ jnp.conj(u_svd).T
    return u, p
