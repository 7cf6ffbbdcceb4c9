"""Reductions of xjit.numpy: sum, prod, max, min, mean, var, std, any, all, argmax, argmin.

Axis arguments follow numpy (int, tuple, negative, None); result dtypes follow JAX
(sums of bool and small integers accumulate in the default integer type, means of
integers are floats, float16/bfloat16 accumulate in float32).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.sum(jnp.ones((2, 3), jnp.int8), axis=-1).dtype
    dtype('int32')
"""
from __future__ import annotations

import builtins
import functools
import inspect

import numpy as np

from xjit._src import dtypes
from xjit._src.eager_fast_path import via_jit
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import reductions as lax_reductions
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import elementwise
from xjit._src.numpy import util

_LOW_PRECISION = (np.dtype(np.float16), np.dtype(dtypes.bfloat16))


def _upcast_integer(dt: np.dtype) -> np.dtype:
    """JAX's promote_integers: bool/ints narrower than the default int widen to it."""
    return _upcast_integer_cached(dt, dtypes.x64_enabled())


@functools.lru_cache(maxsize=None)
def _upcast_integer_cached(dt: np.dtype, x64: bool) -> np.dtype:
    # Memoized per (dtype, x64 flag): the answer depends on nothing else, and the
    # dtype tests below are slow next to an eager reduction.
    del x64  # part of the cache key only
    if dt == np.bool_:
        return dtypes.default_int_dtype()
    if dtypes.issubdtype(dt, np.signedinteger) and dt.itemsize < dtypes.default_int_dtype().itemsize:
        return dtypes.default_int_dtype()
    if dtypes.issubdtype(dt, np.unsignedinteger):
        default_uint = dtypes.canonicalize_dtype(np.uint64)
        if dt.itemsize < default_uint.itemsize:
            return default_uint
    return dt


def _keepdims_shape(shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _finish(result, in_shape, axes, keepdims):
    if keepdims:
        return lax_shapes.reshape(result, _keepdims_shape(in_shape, axes))
    return result


def _prepare(name, a, axis, where):
    util.check_arraylike(name, a)
    x = util.asarray_any(a)
    axes = util.canonicalize_axes(axis, x.ndim)
    if where is not None:
        util.check_arraylike(name, where)
    return x, axes


def _masked(x, where, identity):
    """Replace masked-out elements by the reduction's identity."""
    if where is None:
        return x
    mask = util.broadcast_to(elementwise._to_bool(where), x.shape)
    fill = util.broadcast_to(util.convert(identity, x.dtype, bool(x.weak_type)), x.shape)
    return lax_ew.select(mask, x, fill)


def _sum_like(name, a, axis, dtype, keepdims, initial, where, promote_integers, is_prod):
    x, axes = _prepare(name, a, axis, where)
    weak = bool(x.weak_type) and dtype is None
    if dtype is not None:
        out_dtype = util.requested_dtype(dtype)
    elif promote_integers:
        out_dtype = _upcast_integer(x.dtype)
    else:
        out_dtype = x.dtype
    compute = np.dtype(np.float32) if out_dtype in _LOW_PRECISION else out_dtype
    if compute == np.bool_:
        compute = dtypes.default_int_dtype()
    weak = weak and out_dtype == x.dtype
    x = util.convert(x, compute, False)
    x = _masked(x, where, 1 if is_prod else 0)
    out = (lax_reductions.reduce_prod if is_prod else lax_reductions.reduce_sum)(x, axes)
    if initial is not None:
        init = util.convert(initial, compute, False)
        out = lax_ew.mul(out, util.broadcast_to(init, out.shape)) if is_prod else \
            lax_ew.add(out, util.broadcast_to(init, out.shape))
    out = util.convert(out, out_dtype, weak)
    return _finish(out, a_shape(a), axes, keepdims)


def a_shape(a):
    return util.shape_of(a)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,  # noqa: A001
        promote_integers=True):
    """Sum of elements over ``axis``.

    Example:
        >>> jnp.sum(jnp.arange(6).reshape(2, 3), axis=0)
        Array([3, 5, 7], dtype=int32)
    """
    _no_out("sum", out)
    return _sum_like("sum", a, axis, dtype, keepdims, initial, where, promote_integers, False)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    """Product of elements over ``axis``.

    Example:
        >>> jnp.prod(jnp.array([1, 2, 3, 4]))
        Array(24, dtype=int32)
    """
    _no_out("prod", out)
    return _sum_like("prod", a, axis, dtype, keepdims, initial, where, promote_integers, True)


def _no_out(name, out):
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")


def _extremum(name, a, axis, keepdims, initial, where, is_max):
    x, axes = _prepare(name, a, axis, where)
    if initial is None and where is not None:
        raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                         "where mask one has to specify 'initial'.")
    if initial is None and builtins.any(x.shape[i] == 0 for i in axes):
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    is_bool = x.dtype == np.bool_
    if where is not None:
        mask = util.broadcast_to(elementwise._to_bool(where), x.shape)
        init = util.broadcast_to(util.convert(initial, x.dtype, bool(x.weak_type)), x.shape)
        x = lax_ew.select(mask, x, init)
    if is_bool:
        out = (lax_reductions.reduce_or if is_max else lax_reductions.reduce_and)(x, axes)
    else:
        out = (lax_reductions.reduce_max if is_max else lax_reductions.reduce_min)(x, axes)
    if initial is not None:
        out = (elementwise.maximum if is_max else elementwise.minimum)(
            out, util.convert(initial, x.dtype, bool(x.weak_type)))
    return _finish(out, x.shape, axes, keepdims)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Maximum over ``axis`` (NaN propagates).

    Example:
        >>> jnp.max(jnp.array([[1, 5], [3, 2]]), axis=1)
        Array([5, 3], dtype=int32)
    """
    _no_out("max", out)
    return _extremum("max", a, axis, keepdims, initial, where, True)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Minimum over ``axis`` (NaN propagates).

    Example:
        >>> jnp.min(jnp.array([[1, 5], [3, 2]]), axis=1)
        Array([1, 2], dtype=int32)
    """
    _no_out("min", out)
    return _extremum("min", a, axis, keepdims, initial, where, False)


amax, amin = max, min


def _boolean_reduce(name, a, axis, keepdims, where, is_any):
    x, axes = _prepare(name, a, axis, where)
    b = elementwise._to_bool(x)
    if where is not None:
        mask = util.broadcast_to(elementwise._to_bool(where), b.shape)
        b = lax_ew.and_(b, mask) if is_any else lax_ew.or_(b, lax_ew.not_(mask))
    out = (lax_reductions.reduce_or if is_any else lax_reductions.reduce_and)(b, axes)
    return _finish(out, x.shape, axes, keepdims)


def any(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    """True if any element over ``axis`` is nonzero.

    Example:
        >>> jnp.any(jnp.array([[0, 0], [0, 1]]), axis=1)
        Array([False,  True], dtype=bool)
    """
    _no_out("any", out)
    return _boolean_reduce("any", a, axis, keepdims, where, True)


def all(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    """True if every element over ``axis`` is nonzero.

    Example:
        >>> jnp.all(jnp.array([[1, 0], [1, 1]]), axis=1)
        Array([False,  True], dtype=bool)
    """
    _no_out("all", out)
    return _boolean_reduce("all", a, axis, keepdims, where, False)


def _count(shape, axes, where):
    if where is None:
        n = 1
        for i in axes:
            n *= shape[i]
        return n
    return sum(util.broadcast_to(where, shape), axis=axes, dtype=dtypes.default_int_dtype(),
               keepdims=False)


def _mean_dtype(x_dtype, dtype):
    if dtype is not None:
        return util.requested_dtype(dtype)
    return util.to_inexact(x_dtype)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean over ``axis``; integers average to the default float type.

    Example:
        >>> jnp.mean(jnp.array([1, 2, 3, 4]))
        Array(2.5, dtype=float32)
    """
    _no_out("mean", out)
    x, axes = _prepare("mean", a, axis, where)
    out_dtype = _mean_dtype(x.dtype, dtype)
    compute = np.dtype(np.float32) if out_dtype in _LOW_PRECISION else out_dtype
    total = sum(util.convert(x, compute, False), axis=axes, dtype=compute, keepdims=keepdims,
                where=where)
    n = _count(x.shape, axes, where)
    if isinstance(n, int):
        denom = util.convert(n, compute)
    else:
        denom = util.convert(n, compute)
        if keepdims:
            denom = lax_shapes.reshape(denom, total.shape)
    out = lax_ew.div(total, util.broadcast_to(denom, total.shape))
    return util.convert(out, out_dtype, bool(x.weak_type) and dtype is None)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None):
    """Variance over ``axis`` with ``ddof`` delta degrees of freedom.

    Example:
        >>> jnp.var(jnp.array([1.0, 2.0, 3.0, 4.0]))
        Array(1.25, dtype=float32)
    """
    _no_out("var", out)
    if correction is not None:
        ddof = correction
    x, axes = _prepare("var", a, axis, where)
    in_dtype = _mean_dtype(x.dtype, dtype)
    compute = np.dtype(np.float32) if in_dtype in _LOW_PRECISION else in_dtype
    xc = util.convert(x, compute, False)
    centered = lax_ew.sub(xc, util.broadcast_to(
        mean(xc, axis=axes, dtype=compute, keepdims=True, where=where), xc.shape))
    if dtypes.issubdtype(compute, np.complexfloating):
        sq = lax_ew.real(lax_ew.mul(centered, lax_ew.conj(centered)))
    else:
        sq = lax_ew.mul(centered, centered)
    total = sum(sq, axis=axes, keepdims=keepdims, where=where)
    n = _count(x.shape, axes, where)
    real_compute = util.real_dtype(compute)
    if isinstance(n, int):
        denom = util.convert(builtins.max(n - ddof, 0), real_compute)
    else:
        denom = lax_ew.sub(util.convert(n, real_compute), util.convert(ddof, real_compute))
        if keepdims:
            denom = lax_shapes.reshape(denom, total.shape)
    out = lax_ew.div(total, util.broadcast_to(denom, total.shape))
    return util.convert(out, util.real_dtype(in_dtype), False)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None):
    """Standard deviation over ``axis`` (square root of ``var``).

    Example:
        >>> jnp.std(jnp.array([1.0, 3.0]))
        Array(1., dtype=float32)
    """
    v = var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, where=where,
            correction=correction)
    return lax_ew.sqrt(v)


def _arg_extremum(name, a, axis, keepdims, is_max):
    util.check_arraylike(name, a)
    x = util.asarray_any(a)
    if axis is None:
        flat = lax_shapes.reshape(x, (util.size_of(x.shape),))
        if flat.shape[0] == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        out = _arg_extremum(name, flat, 0, False, is_max)
        return lax_shapes.reshape(out, (1,) * x.ndim) if keepdims else out
    ax = util.canonicalize_axis(axis, x.ndim)
    if x.shape[ax] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    if x.dtype == np.bool_:
        x = util.convert(x, np.int8)
    fn = lax_reductions.argmax if is_max else lax_reductions.argmin
    out = fn(x, ax, dtypes.default_int_dtype())
    return _finish(out, x.shape, (ax,), keepdims)


def argmax(a, axis=None, out=None, keepdims=False):
    """Index of the maximum along ``axis`` (first occurrence; NaN counts as maximal).

    Example:
        >>> jnp.argmax(jnp.array([[1, 5], [7, 2]]), axis=1)
        Array([1, 0], dtype=int32)
    """
    _no_out("argmax", out)
    return _arg_extremum("argmax", a, axis, keepdims, True)


def argmin(a, axis=None, out=None, keepdims=False):
    """Index of the minimum along ``axis`` (first occurrence).

    Example:
        >>> jnp.argmin(jnp.array([[1, 5], [7, 2]]), axis=1)
        Array([0, 1], dtype=int32)
    """
    _no_out("argmin", out)
    return _arg_extremum("argmin", a, axis, keepdims, False)


def count_nonzero(a, axis=None, keepdims=False):
    """Number of nonzero elements over ``axis`` (default int dtype).

    Example:
        >>> jnp.count_nonzero(jnp.array([0, 1, 2]))
        Array(2, dtype=int32)
    """
    util.check_arraylike("count_nonzero", a)
    return sum(elementwise._to_bool(a), axis=axis, dtype=dtypes.default_int_dtype(),
               keepdims=keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    """Range (max - min) over ``axis``.

    Example:
        >>> jnp.ptp(jnp.array([3, 9, 1]))
        Array(8, dtype=int32)
    """
    _no_out("ptp", out)
    return lax_ew.sub(max(a, axis=axis, keepdims=keepdims), min(a, axis=axis, keepdims=keepdims))


# Eager calls through jit's C++ fast path (eager_fast_path.py).
_CONFIG = ("axis", "dtype", "out", "keepdims", "ddof", "promote_integers", "correction")
for _name in ("sum", "prod", "max", "min", "any", "all", "mean", "var", "std", "argmax",
              "argmin", "count_nonzero", "ptp"):
    _f = globals()[_name]
    globals()[_name] = via_jit(_f, tuple(
        p for p in inspect.signature(_f).parameters if p in _CONFIG))
del _name, _f
