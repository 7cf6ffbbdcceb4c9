"""Cumulative reductions (cumsum, cumprod, nancumsum, nancumprod, cumulative_sum,
cumulative_prod) on the lax scans (``lax.cumsum``/``lax.cumprod``).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.cumsum(jnp.array([1, 2, 3, 4]))
    Array([ 1,  3,  6, 10], dtype=int32)
"""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.lax import cumulative as lax_cumulative
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import reductions, util
from xjit._src.numpy import shape_ops


def _cumulative(name, a, axis, dtype, is_prod, fill_nan=False, promote_integers=False):
    """JAX's cumulative reduction: the result keeps the input dtype (bool becomes the
    default int; ``promote_integers`` widens small integers too), computed in it."""
    util.check_arraylike(name, a)
    x = util.asarray_any(a)
    if axis is None or x.ndim == 0:
        x = shape_ops.ravel(x)
    if axis is None:
        axis = 0
    ax = util.canonicalize_axis(axis, x.ndim)
    if fill_nan and dtypes.is_inexact(x.dtype):
        x = lax_ew.select(lax_ew.ne(x, x), util.broadcast_to(
            util.convert(1 if is_prod else 0, x.dtype, bool(x.weak_type)), x.shape), x)
    requested = util.requested_dtype(dtype)
    if requested is None:
        if promote_integers or x.dtype == np.bool_:
            result = reductions._upcast_integer(x.dtype)
        else:
            result = np.dtype(x.dtype)
        compute = result
    elif requested == np.bool_:
        result = requested
        if x.dtype != np.bool_:
            x = lax_ew.ne(x, util.convert(0, x.dtype, bool(x.weak_type)))  # [-1, 1] must not cancel
        compute = reductions._upcast_integer(result)
    else:
        result = compute = requested
    x = util.convert(x, compute, False)
    scan = lax_cumulative.cumprod if is_prod else lax_cumulative.cumsum
    return util.convert(scan(x, ax), result, False)


def _no_out(name, out):
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along ``axis`` (flattened when None), in the input's dtype
    (booleans count in the default int), as JAX.

    Example:
        >>> jnp.cumsum(jnp.ones((2, 2)), axis=1)
        Array([[1., 2.],
               [1., 2.]], dtype=float32)
    """
    _no_out("cumsum", out)
    return _cumulative("cumsum", a, axis, dtype, False)


def cumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product along ``axis`` (flattened when None).

    Example:
        >>> jnp.cumprod(jnp.array([1, 2, 3, 4]))
        Array([ 1,  2,  6, 24], dtype=int32)
    """
    _no_out("cumprod", out)
    return _cumulative("cumprod", a, axis, dtype, True)


def nancumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum treating NaN as zero.

    Example:
        >>> jnp.nancumsum(jnp.array([1.0, jnp.nan, 2.0]))
        Array([1., 1., 3.], dtype=float32)
    """
    _no_out("nancumsum", out)
    return _cumulative("nancumsum", a, axis, dtype, False, fill_nan=True)


def nancumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product treating NaN as one.

    Example:
        >>> jnp.nancumprod(jnp.array([2.0, jnp.nan, 3.0]))
        Array([2., 2., 6.], dtype=float32)
    """
    _no_out("nancumprod", out)
    return _cumulative("nancumprod", a, axis, dtype, True, fill_nan=True)


def _array_api_cumulative(name, x, axis, dtype, include_initial, is_prod):
    # As JAX: cumulative_sum widens small integers, cumulative_prod does not.
    util.check_arraylike(name, x)
    arr = util.asarray_any(x)
    if arr.ndim == 0:
        raise ValueError(f"The input must be non-scalar to take a cumulative "
                         f"{'product' if is_prod else 'sum'}, however a scalar value or "
                         f"scalar array was given.")
    if axis is None:
        if arr.ndim > 1:
            raise ValueError(
                f"The input array has rank {arr.ndim}, however axis was not set to an "
                f"explicit value. The axis argument is only optional for one-dimensional "
                f"arrays.")
        axis = 0
    axis = util.canonicalize_axis(axis, arr.ndim)
    out = _cumulative(name, arr, axis, dtype, is_prod, promote_integers=not is_prod)
    if include_initial:
        config = [(0, 0, 0)] * out.ndim
        config[axis] = (1, 0, 0)
        out = lax_shapes.pad(out, np.asarray(1 if is_prod else 0, out.dtype), config)
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array API cumulative sum; ``axis`` may be omitted for 1-D input only.

    Example:
        >>> jnp.cumulative_sum(jnp.array([1, 2, 3]), include_initial=True)
        Array([0, 1, 3, 6], dtype=int32)
    """
    return _array_api_cumulative("cumulative_sum", x, axis, dtype, include_initial, False)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array API cumulative product; ``axis`` may be omitted for 1-D input only.

    Example:
        >>> jnp.cumulative_prod(jnp.array([1, 2, 3]), include_initial=True)
        Array([1, 1, 2, 6], dtype=int32)
    """
    return _array_api_cumulative("cumulative_prod", x, axis, dtype, include_initial, True)
