"""Diagonals: diagonal, trace, diag.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.trace(jnp.eye(3))
    Array(3., dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import elementwise
from xjit._src.numpy import reductions
from xjit._src.numpy import shape_ops
from xjit._src.numpy import util


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal over axes ``axis1``/``axis2``, appended as the last axis.

    Example:
        >>> jnp.diagonal(jnp.arange(9).reshape(3, 3), 1)
        Array([1, 5], dtype=int32)
    """
    util.check_arraylike("diagonal", a)
    x = util.asarray_any(a)
    if x.ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    a1, a2 = util.canonicalize_axis(axis1, x.ndim), util.canonicalize_axis(axis2, x.ndim)
    if a1 == a2:
        raise ValueError("axis1 and axis2 can not be the same")
    x = shape_ops.moveaxis(x, (a1, a2), (-2, -1))
    n, m = x.shape[-2], x.shape[-1]
    length = max(0, min(n + min(offset, 0), m - max(offset, 0)))
    lead = tuple(x.shape[:-2])
    # Every (m + 1)-th element of the flattened (n, m) plane from the
    # diagonal's first: a strided slice (it reads only the diagonal, and keeps
    # a -0.0, which masking and summing the plane turned into +0.0).
    flat = lax_shapes.reshape(x, lead + (n * m,))
    first = (offset if offset >= 0 else -offset * m) if length else 0
    last = first + (length - 1) * (m + 1) + 1 if length else 0
    return lax_shapes.slice(flat, (0,) * len(lead) + (first,), lead + (last,),
                            (1,) * len(lead) + (m + 1,))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum of the ``offset`` diagonal.

    Example:
        >>> jnp.trace(jnp.arange(4).reshape(2, 2))
        Array(3, dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    return reductions.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def diag(v, k=0):
    """Diagonal of a 2-D array, or a 2-D array with 1-D ``v`` on its ``k`` diagonal.

    Example:
        >>> jnp.diag(jnp.array([1, 2]))
        Array([[1, 0],
               [0, 2]], dtype=int32)
    """
    util.check_arraylike("diag", v)
    x = util.asarray_any(v)
    if x.ndim == 2:
        return diagonal(x, k)
    if x.ndim != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = x.shape[0] + abs(k)
    idx_dtype = np.dtype(np.int32)
    r = lax_shapes.broadcasted_iota(idx_dtype, (n, n), 0)
    c = lax_shapes.broadcasted_iota(idx_dtype, (n, n), 1)
    on_diag = lax_ew.eq(lax_ew.add(r, util.broadcast_to(util.convert(k, idx_dtype), (n, n))), c)
    # Value at (i, i + k) is v[min(i, i + k)]: pad v to length n and broadcast along the
    # axis that indexes it.
    padded = lax_shapes.pad(x, util.convert(0, x.dtype, bool(x.weak_type)),
                       [(0, n - x.shape[0], 0)])
    along = 0 if k >= 0 else 1
    vals = lax_shapes.broadcast_in_dim(padded, (n, n), (along,))
    return elementwise.where(on_diag, vals, util.convert(0, x.dtype, bool(x.weak_type)))
