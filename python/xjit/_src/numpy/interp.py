"""``interp``: one-dimensional piecewise-linear interpolation, as JAX computes
it (searchsorted on the right side, clipped to the interior intervals;
``left``/``right`` values or 'extrapolate'; ``period`` wraps x and xp).

The table look-ups go through ``take`` (one gather each).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.interp(jnp.array([1.5]), jnp.array([1., 2.]), jnp.array([10., 20.]))
    Array([15.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.lax import sorting as lax_sort
from xjit._src.numpy import elementwise, indexing, util
from xjit._src.numpy.sorting import searchsorted


def _side(name: str, v):
    if isinstance(v, str):
        if v != "extrapolate":
            raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', "
                             f"but got: {v!r}")
        return True
    return False


def interp(x, xp, fp, left=None, right=None, period=None):
    """Values at ``x`` of the piecewise-linear function through (xp, fp).

    Example:
        >>> jnp.interp(0.5, jnp.array([0., 1.]), jnp.array([0., 2.]), period=None)
        Array(1., dtype=float32)
    """
    util.check_arraylike("interp", x, xp, fp)
    if np.shape(xp) != np.shape(fp) or np.ndim(xp) != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    if np.shape(xp)[0] == 0:
        raise ValueError("interp: xp and fp must not be empty")
    x, xp = _promote_pair(x, xp)
    fp = util.asarray_any(fp)
    fp = util.convert(fp, util.to_inexact(fp.dtype))
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("jnp.interp: complex x values not supported.")
    extrapolate_left = _side("left", left)
    extrapolate_right = _side("right", right)
    if period is not None:
        if np.ndim(period) != 0:
            raise ValueError(f"period must be a scalar; got {period}")
        p = elementwise.abs(util.convert(period, x.dtype) if not util.is_xjit_value(period)
                            else period)
        x = elementwise.remainder(x, p)
        xp = elementwise.remainder(xp, p)
        xp, fp = lax_sort.sort_key_val(xp, fp)
        n = xp.shape[0]
        last, first = lax_shapes.slice_in_dim(xp, n - 1, n), lax_shapes.slice_in_dim(xp, 0, 1)
        xp = lax_shapes.concatenate([elementwise.subtract(last, p), xp,
                                     elementwise.add(first, p)], 0)
        fp = lax_shapes.concatenate([lax_shapes.slice_in_dim(fp, n - 1, n), fp,
                                     lax_shapes.slice_in_dim(fp, 0, 1)], 0)
    n = xp.shape[0]
    i = searchsorted(xp, x, side="right")
    i = elementwise.clip(i, 1, max(n - 1, 1))
    im1 = elementwise.subtract(i, 1)
    take = lambda a, j: indexing.take(a, j, mode="promise_in_bounds")  # noqa: E731
    fi, fim1 = take(fp, i), take(fp, im1)
    xi, xim1 = take(xp, i), take(xp, im1)
    df = elementwise.subtract(fi, fim1)
    dx = elementwise.subtract(xi, xim1)
    delta = elementwise.subtract(x, xim1)
    epsilon = np.spacing(np.finfo(np.dtype(xp.dtype)).eps)
    dx0 = elementwise.less_equal(elementwise.abs(dx), epsilon)
    safe_dx = elementwise.where(dx0, 1, dx)
    f = elementwise.where(dx0, fim1, elementwise.add(
        fim1, elementwise.multiply(elementwise.divide(delta, safe_dx), df)))
    if not extrapolate_left and period is None:
        left_v = lax_shapes.reshape(lax_shapes.slice_in_dim(fp, 0, 1), ()) if left is None \
            else left
        f = elementwise.where(elementwise.less(x, lax_shapes.reshape(
            lax_shapes.slice_in_dim(xp, 0, 1), ())), left_v, f)
    if not extrapolate_right and period is None:
        right_v = lax_shapes.reshape(lax_shapes.slice_in_dim(fp, n - 1, n), ()) \
            if right is None else right
        f = elementwise.where(elementwise.greater(x, lax_shapes.reshape(
            lax_shapes.slice_in_dim(xp, n - 1, n), ())), right_v, f)
    return f


def _promote_pair(x, xp):
    dt = util.to_inexact(dtypes.result_type(x, xp))
    return util.convert(util.asarray_any(x), dt), util.convert(util.asarray_any(xp), dt)
