"""median, percentile, quantile and their nan-ignoring versions, as JAX
computes them: sort along the reduced axes, then interpolate between the
two order statistics around ``q * (n - 1)`` (``method``: linear, lower,
higher, midpoint, nearest; 'nearest' takes the lower one at exactly .5, as
JAX). Without ``nan``: a slice holding a NaN gives NaN. The order statistics
are static slices when ``q`` and the counts are static, else a one-hot
selection along the sorted axis.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.median(jnp.array([3., 1., 2., 10.]))
    Array(2.5, dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import reductions as lax_red
from xjit._src.lax import shapes as lax_shapes
from xjit._src.lax import sorting as lax_sort
from xjit._src.numpy import shape_ops, util

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _full(x, value, dtype=None):
    dt = x.dtype if dtype is None else dtype
    return util.broadcast_to(util.convert(value, dt), x.shape)


def _move_reduced_last(x, axis):
    """``x`` with the reduced axes merged into one last axis, and the kept shape."""
    axes = util.canonicalize_axes(axis, x.ndim)
    kept = [d for d in range(x.ndim) if d not in axes]
    x = shape_ops.transpose(x, kept + list(axes)) if axes else x
    kept_shape = tuple(x.shape[:len(kept)])
    n = util.size_of(x.shape[len(kept):])
    return lax_shapes.reshape(x, kept_shape + (n,)), axes, kept_shape


def _pick(sorted_x, idx):
    """sorted_x[..., idx] for index array ``idx`` of shape q.shape + kept shape
    (or a concrete numpy array of q.shape): static slices or a one-hot select."""
    n = sorted_x.shape[-1]
    kept = tuple(sorted_x.shape[:-1])
    if isinstance(idx, np.ndarray):
        picks = [lax_shapes.reshape(lax_shapes.slice_in_dim(sorted_x, int(i), int(i) + 1,
                                                            axis=sorted_x.ndim - 1), kept)
                 for i in idx.ravel()]
        if not picks:
            return util.convert(np.zeros(idx.shape + kept, sorted_x.dtype), sorted_x.dtype)
        stacked = lax_shapes.concatenate([lax_shapes.reshape(p, (1, *kept)) for p in picks], 0)
        return lax_shapes.reshape(stacked, idx.shape + kept)
    out_shape = tuple(idx.shape)
    qnd = len(out_shape) - len(kept)
    big = out_shape + (n,)
    xb = lax_shapes.broadcast_in_dim(sorted_x, big, tuple(range(qnd, len(big))))
    ib = lax_shapes.broadcast_in_dim(idx, big, tuple(range(len(out_shape))))
    iota = lax_shapes.broadcasted_iota(idx.dtype, big, len(big) - 1)
    chosen = lax_ew.select(lax_ew.eq(iota, ib), xb, _full(xb, 0))
    return lax_red.reduce_sum(chosen, (len(big) - 1,))


def _quantile(name, a, q, axis, method, keepdims, squash_nans, scale=1.0):
    util.check_arraylike(name, a, q)
    if method not in _METHODS:
        raise ValueError(f"method can only be one of {list(_METHODS)}, got {method!r}")
    x = util.asarray_any(a)
    dt = util.to_inexact(x.dtype)
    if dtypes.issubdtype(dt, np.complexfloating):
        raise ValueError(f"{name} does not support complex input")
    x = util.convert(x, dt)
    q_concrete = not util.is_xjit_value(q)
    qv = np.asarray(q) if q_concrete else q
    if np.ndim(qv) > 1:
        raise ValueError(f"{name}: q must be a scalar or 1-d, got shape {np.shape(qv)}")
    if q_concrete:
        # q's own inexact dtype (float32 unless x64), as JAX computes the weights.
        qdt = util.to_inexact(util.dtype_of(q))
        qv = np.asarray(qv).astype(qdt)
        if scale != 1:
            qv = (qv / np.asarray(scale, qdt)).astype(qdt)
        if np.any((qv < 0) | (qv > 1)):
            what = "Percentiles must be in the range [0, 100]" if scale != 1 else \
                "Quantiles must be in the range [0, 1]"
            raise ValueError(what)
    else:
        qv = lax_ew.div(util.convert(qv, dt), _full(qv, scale, dt)) if scale != 1 else \
            util.convert(qv, dt)
    in_shape = tuple(x.shape)
    xs, axes, kept = _move_reduced_last(x, axis)
    n = xs.shape[-1]
    if n == 0:
        raise ValueError(f"{name}: cannot compute a quantile of an empty slice")
    isnan = lax_ew.ne(xs, xs)
    nan = _full(xs, np.nan)
    if squash_nans:
        xs = lax_ew.select(isnan, nan, xs)  # one NaN kind, sorted last
        counts = lax_red.reduce_sum(lax_ew.convert_element_type(lax_ew.bitwise_not(isnan), dt),
                                    (xs.ndim - 1,))
    else:
        any_nan = lax_red.reduce_or(isnan, (xs.ndim - 1,))
        mask = lax_shapes.broadcast_in_dim(any_nan, xs.shape, tuple(range(xs.ndim - 1)))
        xs = lax_ew.select(mask, nan, xs)
        counts = None
    s = lax_sort.sort(xs, dimension=xs.ndim - 1)
    qshape = tuple(np.shape(qv))
    if counts is None and q_concrete:
        pos = (qv * np.asarray(n - 1, qv.dtype)).astype(qv.dtype)
        low = np.clip(np.floor(pos), 0, n - 1)
        high = np.clip(np.ceil(pos), 0, n - 1)
        hw = (pos - np.floor(pos)).astype(dt)
        lo_v = _pick(s, np.asarray(low, np.int64))
        hi_v = _pick(s, np.asarray(high, np.int64))
        hw = util.convert(np.asarray(hw).reshape(qshape + (1,) * len(kept)), dt)
        hw = util.broadcast_to(hw, qshape + kept)
    else:
        full_shape = qshape + kept
        qa = util.convert(qv, dt) if q_concrete else qv
        qa = lax_shapes.broadcast_in_dim(qa, full_shape, tuple(range(len(qshape))))
        if counts is None:
            cnt = util.broadcast_to(util.convert(n, dt), full_shape)
        else:
            cnt = lax_shapes.broadcast_in_dim(counts, full_shape,
                                              tuple(range(len(qshape), len(full_shape))))
        one = util.broadcast_to(util.convert(1, dt), full_shape)
        pos = lax_ew.mul(qa, lax_ew.sub(cnt, one))
        lo_f, hi_f = lax_ew.floor(pos), lax_ew.ceil(pos)
        hw = lax_ew.sub(pos, lo_f)
        zero = util.broadcast_to(util.convert(0, dt), full_shape)
        top = lax_ew.max(lax_ew.sub(cnt, one), zero)
        lo_f = lax_ew.max(zero, lax_ew.min(lo_f, top))
        hi_f = lax_ew.max(zero, lax_ew.min(hi_f, top))
        idt = dtypes.default_int_dtype()
        lo_v = _pick(s, lax_ew.convert_element_type(lo_f, idt))
        hi_v = _pick(s, lax_ew.convert_element_type(hi_f, idt))
    if method == "linear":
        lw = lax_ew.sub(util.broadcast_to(util.convert(1, dt), hw.shape), hw)
        out = lax_ew.add(lax_ew.mul(lo_v, lw), lax_ew.mul(hi_v, hw))
    elif method == "lower":
        out = lo_v
    elif method == "higher":
        out = hi_v
    elif method == "nearest":
        half = util.broadcast_to(util.convert(0.5, dt), hw.shape)
        out = lax_ew.select(lax_ew.le(hw, half), lo_v, hi_v)
    else:  # midpoint
        half = util.broadcast_to(util.convert(0.5, dt), hw.shape)
        out = lax_ew.mul(lax_ew.add(lo_v, hi_v), half)
    if keepdims:
        kshape = tuple(1 if d in axes else in_shape[d] for d in range(len(in_shape)))
        out = lax_shapes.reshape(out, qshape + kshape)
    return out


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    """The ``q``-th quantiles (``q`` in [0, 1]) over ``axis``.

    Example:
        >>> jnp.quantile(jnp.array([1., 2., 3., 4.]), 0.5)
        Array(2.5, dtype=float32)
    """
    _check_unsupported("quantile", out, overwrite_input, weights)
    return _quantile("quantile", a, q, axis, method, keepdims, False)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    """The ``q``-th percentiles (``q`` in [0, 100]) over ``axis``.

    Example:
        >>> jnp.percentile(jnp.array([1., 2., 3., 4.]), 50)
        Array(2.5, dtype=float32)
    """
    _check_unsupported("percentile", out, overwrite_input, weights)
    return _quantile("percentile", a, q, axis, method, keepdims, False, scale=100.0)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median over ``axis`` (NaN if a slice holds one).

    Example:
        >>> jnp.median(jnp.array([[1., 3.], [2., 4.]]), axis=0)
        Array([1.5, 3.5], dtype=float32)
    """
    _check_unsupported("median", out, overwrite_input, None)
    return _quantile("median", a, 0.5, axis, "midpoint", keepdims, False)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False):
    """``quantile`` ignoring NaNs (NaN only for an all-NaN slice).

    Example:
        >>> jnp.nanquantile(jnp.array([1., jnp.nan, 3.]), 0.5)
        Array(2., dtype=float32)
    """
    _check_unsupported("nanquantile", out, overwrite_input, None)
    return _quantile("nanquantile", a, q, axis, method, keepdims, True)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False):
    """``percentile`` ignoring NaNs.

    Example:
        >>> jnp.nanpercentile(jnp.array([1., jnp.nan, 3.]), 50)
        Array(2., dtype=float32)
    """
    _check_unsupported("nanpercentile", out, overwrite_input, None)
    return _quantile("nanpercentile", a, q, axis, method, keepdims, True, scale=100.0)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``median`` ignoring NaNs.

    Example:
        >>> jnp.nanmedian(jnp.array([1., jnp.nan, 3.]))
        Array(2., dtype=float32)
    """
    _check_unsupported("nanmedian", out, overwrite_input, None)
    return _quantile("nanmedian", a, 0.5, axis, "midpoint", keepdims, True)


def _check_unsupported(name, out, overwrite_input, weights):
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    if overwrite_input:
        raise NotImplementedError(f"The 'overwrite_input' argument to jnp.{name} is not "
                                  f"supported.")
    if weights is not None:
        raise NotImplementedError(f"The 'weights' argument to jnp.{name} is not supported.")
