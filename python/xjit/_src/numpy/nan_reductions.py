"""Reductions that ignore NaNs (``nansum``, ``nanprod``, ``nanmax``,
``nanmin``, ``nanmean``, ``nanvar``, ``nanstd``, ``nanargmax``,
``nanargmin``) and the weighted ``average``, as JAX defines them: a NaN
counts as the reduction's identity; ``nanmax``/``nanmin`` of an all-NaN
slice is NaN, ``nanmean`` of one is NaN.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.nansum(jnp.array([1.0, jnp.nan, 2.0]))
    Array(3., dtype=float32)
"""
from __future__ import annotations

from xjit._src import dtypes
from xjit._src.numpy import util
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary


def _inexact_input(name, a):
    util.check_arraylike(name, a)
    a = jnp.asarray(a)
    return a, dtypes.kind(a.dtype) in "fc"


def _replace_nan(a, value):
    return jnp.where(jnp.isnan(a), jnp.asarray(value, a.dtype), a)


def _nan_as(name, reduce_name, identity):
    """The ``reduce_name`` reduction with NaNs counted as ``identity``."""
    @api_boundary
    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        a, inexact = _inexact_input(name, a)
        a = _replace_nan(a, identity) if inexact else a
        return getattr(jnp, reduce_name)(a, axis=axis, dtype=dtype, out=out,
                                            keepdims=keepdims, initial=initial, where=where)
    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = f"``{reduce_name}`` over ``axis`` with NaNs as {identity}s."
    return reduce


nansum = _nan_as("nansum", "sum", 0)
nanprod = _nan_as("nanprod", "prod", 1)


def _nan_extreme(name, a, axis, out, keepdims, initial, where, largest):
    a, inexact = _inexact_input(name, a)
    reduce = jnp.max if largest else jnp.min
    if not inexact:
        return reduce(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)
    fill = -jnp.inf if largest else jnp.inf
    res = reduce(_replace_nan(a, fill), axis=axis, out=out, keepdims=keepdims, initial=initial,
                 where=where)
    all_nan = jnp.all(jnp.isnan(a), axis=axis, keepdims=keepdims)
    return jnp.where(all_nan, jnp.asarray(jnp.nan, res.dtype), res) if initial is None else res


@api_boundary
def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Maximum over ``axis`` ignoring NaNs (NaN for an all-NaN slice)."""
    return _nan_extreme("nanmax", a, axis, out, keepdims, initial, where, True)


@api_boundary
def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Minimum over ``axis`` ignoring NaNs (NaN for an all-NaN slice)."""
    return _nan_extreme("nanmin", a, axis, out, keepdims, initial, where, False)


def _count(a, axis, keepdims, where):
    valid = ~jnp.isnan(a)
    if where is not None:
        valid = valid & where
    return jnp.sum(valid, axis=axis, keepdims=keepdims)


@api_boundary
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """Mean over ``axis`` of the non-NaN elements (NaN for an all-NaN slice)."""
    a, inexact = _inexact_input("nanmean", a)
    if not inexact:
        return jnp.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanmean is not supported.")
    total = nansum(a, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    n = _count(a, axis, keepdims, where)
    return total / n.astype(total.dtype if dtypes.kind(total.dtype) != "c"
                             else util.real_dtype(total.dtype))


@api_boundary
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    """Variance over ``axis`` of the non-NaN elements, ``ddof`` delta degrees of freedom."""
    a, inexact = _inexact_input("nanvar", a)
    if not inexact:
        return jnp.var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                       where=where)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanvar is not supported.")
    mean = nanmean(a, axis=axis, dtype=dtype, keepdims=True, where=where)
    centered = _replace_nan(a - mean, 0)
    sq = jnp.real(centered * jnp.conj(centered)) if dtypes.kind(a.dtype) == "c" else centered ** 2
    total = jnp.sum(sq, axis=axis, keepdims=keepdims, where=where)
    n = _count(a, axis, keepdims, where).astype(total.dtype) - ddof
    return jnp.where(n <= 0, jnp.asarray(jnp.nan, total.dtype), total / n)


@api_boundary
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    """Standard deviation over ``axis`` of the non-NaN elements."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanstd is not supported.")
    return jnp.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims,
                              where=where))


def _nan_arg(name, a, axis, keepdims, largest):
    a, inexact = _inexact_input(name, a)
    arg = jnp.argmax if largest else jnp.argmin
    if not inexact:
        return arg(a, axis=axis, keepdims=keepdims)
    nan = jnp.isnan(a)
    res = arg(jnp.where(nan, -jnp.inf if largest else jnp.inf, a), axis=axis, keepdims=keepdims)
    return jnp.where(jnp.all(nan, axis=axis, keepdims=keepdims), -1, res)


@api_boundary
def nanargmax(a, axis=None, out=None, keepdims=None):
    """Index of the maximum ignoring NaNs (-1 for an all-NaN slice, as JAX)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanargmax is not supported.")
    return _nan_arg("nanargmax", a, axis, bool(keepdims), True)


@api_boundary
def nanargmin(a, axis=None, out=None, keepdims=None):
    """Index of the minimum ignoring NaNs (-1 for an all-NaN slice, as JAX)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanargmin is not supported.")
    return _nan_arg("nanargmin", a, axis, bool(keepdims), False)


@api_boundary
def average(a, axis=None, weights=None, returned: bool = False, keepdims: bool = False):
    """Weighted mean over ``axis`` (``mean`` without ``weights``); with
    ``returned`` also the sum of the weights."""
    util.check_arraylike("average", a)
    a = jnp.asarray(a)
    if weights is None:
        avg = jnp.mean(a, axis=axis, keepdims=keepdims)
        if axis is None:
            n = a.size
        else:
            axes = (axis,) if isinstance(axis, int) else tuple(axis)
            n = 1
            for ax in axes:
                n *= a.shape[util.canonicalize_axis(ax, a.ndim)]
        wsum = jnp.full_like(avg, n)
    else:
        w = jnp.asarray(weights)
        dt = jnp.result_type(a.dtype, w.dtype, 1.0)
        a, w = a.astype(dt), w.astype(dt)
        if w.shape != a.shape:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            if w.ndim != 1:
                raise ValueError("1D weights expected when shapes of a and weights differ.")
            ax = util.canonicalize_axis(axis, a.ndim)
            if w.shape[0] != a.shape[ax]:
                raise ValueError("Length of weights not compatible with specified axis.")
            shape = [1] * a.ndim
            shape[ax] = w.shape[0]
            w = jnp.broadcast_to(w.reshape(shape), a.shape)
        wsum = jnp.sum(w, axis=axis, keepdims=keepdims)
        avg = jnp.sum(a * w, axis=axis, keepdims=keepdims) / wsum
    if returned:
        return avg, jnp.broadcast_to(wsum, avg.shape).astype(avg.dtype)
    return avg
