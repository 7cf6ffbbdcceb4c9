"""Cumulative reductions (cumsum, cumprod) as log-step prefix scans.

Each of the ceil(log2(n)) steps combines the array with a copy of itself shifted by
2**k along the axis (``lax.pad`` with the identity, then ``lax.slice``), so the graph
stays small and integer results are exact.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.cumsum(jnp.array([1, 2, 3, 4]))
    Array([ 1,  3,  6, 10], dtype=int32)
"""
from __future__ import annotations

import numpy as np

from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import reductions, util
from xjit._src.numpy import shape_ops


def _scan(x, axis, combine, identity):
    n = x.shape[axis]
    pad_value = util.convert(identity, x.dtype, bool(x.weak_type))
    shift = 1
    while shift < n:
        low = [0] * x.ndim
        low[axis] = shift
        high = [0] * x.ndim
        high[axis] = -shift
        config = [(lo, hi, 0) for lo, hi in zip(low, high)]
        shifted = lax_shapes.pad(x, pad_value, config)
        x = combine(x, shifted)
        shift *= 2
    return x


def _cumulative(name, a, axis, dtype, is_prod):
    util.check_arraylike(name, a)
    x = util.asarray_any(a)
    if axis is None:
        x = shape_ops.ravel(x)
        axis = 0
    ax = util.canonicalize_axis(axis, x.ndim)
    if dtype is not None:
        out_dtype = util.requested_dtype(dtype)
    else:
        out_dtype = reductions._upcast_integer(x.dtype)
    weak = bool(x.weak_type) and dtype is None and out_dtype == x.dtype
    compute = np.dtype(np.float32) if out_dtype in reductions._LOW_PRECISION else out_dtype
    if compute == np.bool_:
        compute = np.dtype(np.int32)
    x = util.convert(x, compute, False)
    combine = lax_ew.mul if is_prod else lax_ew.add
    out = _scan(x, ax, combine, 1 if is_prod else 0)
    return util.convert(out, out_dtype, weak)


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along ``axis`` (flattened when None); small ints accumulate in int32.

    Example:
        >>> jnp.cumsum(jnp.ones((2, 2)), axis=1)
        Array([[1., 2.],
               [1., 2.]], dtype=float32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.cumsum is not supported.")
    return _cumulative("cumsum", a, axis, dtype, False)


def cumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product along ``axis`` (flattened when None).

    Example:
        >>> jnp.cumprod(jnp.array([1, 2, 3, 4]))
        Array([ 1,  2,  6, 24], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.cumprod is not supported.")
    return _cumulative("cumprod", a, axis, dtype, True)


cumulative_sum = cumsum
cumulative_prod = cumprod
