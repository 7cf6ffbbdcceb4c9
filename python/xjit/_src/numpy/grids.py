"""Coordinate grids and the index sets of a matrix's parts: ``meshgrid``,
``indices``, ``ix_``, ``tril_indices``/``triu_indices`` (and ``_from``),
``diag_indices`` (and ``_from``), ``fill_diagonal`` (out of place, as JAX).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.triu_indices(2)
    (Array([0, 0, 1], dtype=int32), Array([0, 1, 1], dtype=int32))
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src.numpy import util
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary


@api_boundary
def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy"):
    """Coordinate arrays from 1-d coordinate vectors (``"xy"``: the first two
    axes swapped, as numpy; ``sparse``: broadcastable shapes)."""
    del copy
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    util.check_arraylike("meshgrid", *xi)
    args = [jnp.asarray(x) for x in xi]
    if any(a.ndim != 1 for a in args):
        raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                         f"{[a.shape for a in args]}")
    nd = len(args)
    out = []
    for i, a in enumerate(args):
        s = [1] * nd
        s[i] = -1
        out.append(a.reshape(s))
    if indexing == "xy" and nd > 1:  # the first two axes swapped
        out[0] = out[0].reshape([1, -1] + [1] * (nd - 2))
        out[1] = out[1].reshape([-1, 1] + [1] * (nd - 2))
    if not sparse:
        out = list(jnp.broadcast_arrays(*out))
    return out


@api_boundary
def indices(dimensions, dtype=None, sparse: bool = False):
    """The grid of indices of an array of shape ``dimensions``: an array of
    ``len(dimensions)`` index arrays (a tuple of broadcastable ones if ``sparse``)."""
    dims = tuple(operator.index(d) for d in dimensions)
    dtype = jnp.int32 if dtype is None else dtype
    out = []
    for i, n in enumerate(dims):
        s = [1] * len(dims)
        s[i] = n
        a = jnp.arange(n, dtype=dtype).reshape(s)
        out.append(a if sparse else jnp.broadcast_to(a, dims))
    if sparse:
        return tuple(out)
    return jnp.stack(out) if out else jnp.zeros((0,), dtype)


@api_boundary
def ix_(*args):
    """Open mesh from 1-d sequences: arg i reshaped to length along axis i only."""
    util.check_arraylike("ix_", *args)
    out = []
    for i, a in enumerate(args):
        a = jnp.asarray(a)
        if a.ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                             f"{a.shape}")
        if a.dtype == bool:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not supported.")
        s = [1] * len(args)
        s[i] = a.shape[0]
        out.append(a.reshape(s))
    return tuple(out)


def _static(v, name):
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{name} must be a static integer, got {v!r}") from None


def _triangle(n, k, m, lower):
    n = _static(n, "n")
    m = n if m is None else _static(m, "m")
    k = _static(k, "k")
    rows, cols = (np.tril_indices(n, k, m) if lower else np.triu_indices(n, k, m))
    return jnp.asarray(rows.astype(np.int32)), jnp.asarray(cols.astype(np.int32))


@api_boundary
def tril_indices(n, k: int = 0, m=None):
    """Row and column indices of the lower triangle (diagonal offset ``k``) of an n x m matrix."""
    return _triangle(n, k, m, True)


@api_boundary
def triu_indices(n, k: int = 0, m=None):
    """Row and column indices of the upper triangle (diagonal offset ``k``) of an n x m matrix."""
    return _triangle(n, k, m, False)


def _matrix_shape(arr, name):
    shape = util.shape_of(arr)
    if len(shape) != 2:
        raise ValueError(f"{name} requires a 2-dimensional array, got shape {shape}")
    return shape


@api_boundary
def tril_indices_from(arr, k: int = 0):
    """``tril_indices`` for ``arr``'s shape."""
    n, m = _matrix_shape(arr, "tril_indices_from")
    return _triangle(n, k, m, True)


@api_boundary
def triu_indices_from(arr, k: int = 0):
    """``triu_indices`` for ``arr``'s shape."""
    n, m = _matrix_shape(arr, "triu_indices_from")
    return _triangle(n, k, m, False)


@api_boundary
def diag_indices(n, ndim: int = 2):
    """The indices of the main diagonal of an ``n``-long, ``ndim``-d hypercube."""
    n, ndim = _static(n, "n"), _static(ndim, "ndim")
    if n < 0 or ndim < 0:
        raise ValueError("n and ndim must be non-negative")
    return (jnp.arange(n, dtype=jnp.int32),) * ndim


@api_boundary
def diag_indices_from(arr):
    """``diag_indices`` for ``arr``, whose dims must all be equal."""
    shape = util.shape_of(arr)
    if len(shape) < 2 or len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], len(shape))


@api_boundary
def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = True):
    """``a`` with its main diagonal set to ``val`` (repeated as needed); JAX
    arrays are immutable, so ``inplace=False`` is required, as in JAX."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    util.check_arraylike("fill_diagonal", a, val)
    a = jnp.asarray(a)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    n = min(a.shape)
    idx = jnp.arange(n)
    v = jnp.ravel(jnp.asarray(val, a.dtype))
    v = jnp.tile(v, -(-n // max(v.shape[0], 1)))[:n] if v.shape[0] else v
    return a.at[(idx,) * a.ndim].set(v)


class _IndexGrid:
    """``mgrid``/``ogrid``: the dense or open grid of slices, built by numpy
    from the static slice bounds (complex steps count points, as numpy)."""

    def __init__(self, sparse: bool):
        self._grid = np.ogrid if sparse else np.mgrid
        self._sparse = sparse

    def __getitem__(self, key):
        out = self._grid[key]
        if isinstance(out, (list, tuple)):
            return [jnp.asarray(o) for o in out]
        return jnp.asarray(out)


class _Concatenator:
    """``r_``/``c_``: numpy's concatenation by index syntax, on static input
    (slices become ranges), with the pieces converted to xjit arrays."""

    def __init__(self, np_obj):
        self._np = np_obj

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        if any(util.is_tracer(k) for k in items):
            # Traced pieces: numpy's rules on their shapes, jnp's concatenation.
            raise NotImplementedError("r_/c_ of traced values is not supported by xjit; use "
                                      "jnp.concatenate")
        return jnp.asarray(self._np[key])


mgrid = _IndexGrid(sparse=False)
ogrid = _IndexGrid(sparse=True)
r_ = _Concatenator(np.r_)
c_ = _Concatenator(np.c_)
s_ = np.s_
index_exp = np.index_exp
