"""Finite differences: diff and gradient.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.diff(jnp.array([1, 4, 9, 16]))
    Array([3, 5, 7], dtype=int32)
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import core
from xjit._src.errors import ConcretizationTypeError
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import elementwise
from xjit._src.numpy import shape_ops
from xjit._src.numpy import util


def _static_int(value, what):
    if isinstance(value, core.Tracer):
        raise ConcretizationTypeError(f"the {what} must be a concrete integer, got a traced "
                                      f"value.")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"the {what} must be an integer, got {value!r}") from None


def _slice(x, start, stop, axis):
    n = x.shape[axis]
    start = 0 if start is None else (max(start + n, 0) if start < 0 else min(start, n))
    stop = n if stop is None else (max(stop + n, 0) if stop < 0 else min(stop, n))
    return lax_shapes.slice_in_dim(x, start, max(start, stop), 1, axis)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th discrete difference along ``axis`` (``!=`` for booleans), after
    adding ``prepend``/``append`` values along that axis.

    Example:
        >>> jnp.diff(jnp.array([[1, 2], [5, 3]]), axis=0)
        Array([[4, 1]], dtype=int32)
    """
    util.check_arraylike("diff", a)
    arr = util.asarray_any(a)
    n = _static_int(n, "'n' argument of jnp.diff")
    axis = _static_int(axis, "'axis' argument of jnp.diff")
    if n == 0:
        return arr
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if arr.ndim == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = util.canonicalize_axis(axis, arr.ndim)
    parts = []
    for extra in (prepend, append):
        if extra is None:
            parts.append(None)
            continue
        util.check_arraylike("diff", extra)
        e = util.asarray_any(extra)
        if e.ndim == 0:
            shape = list(arr.shape)
            shape[axis] = 1
            e = util.broadcast_to(e, tuple(shape))
        parts.append(e)
    parts = [p for p in (parts[0], arr, parts[1]) if p is not None]
    if len(parts) > 1:
        arr = shape_ops.concatenate(parts, axis)
    is_bool = arr.dtype == np.bool_
    for _ in range(n):
        hi, lo = _slice(arr, 1, None, axis), _slice(arr, 0, -1, axis)
        arr = elementwise.not_equal(hi, lo) if is_bool else elementwise.subtract(hi, lo)
    return arr


def _gradient_along_axis(a, h, axis, edge_order):
    sl = lambda start, stop, x=a: _slice(x, start, stop, axis)  # noqa: E731
    if util.ndim_of(h) == 0:
        if edge_order == 1:
            upper = elementwise.true_divide(elementwise.subtract(sl(1, 2), sl(0, 1)), h)
            lower = elementwise.true_divide(elementwise.subtract(sl(-1, None), sl(-2, -1)), h)
        else:
            upper = elementwise.true_divide(elementwise.add(elementwise.add(
                elementwise.multiply(-1.5, sl(0, 1)), elementwise.multiply(2.0, sl(1, 2))),
                elementwise.multiply(-0.5, sl(2, 3))), h)
            lower = elementwise.true_divide(elementwise.add(elementwise.add(
                elementwise.multiply(0.5, sl(-3, -2)), elementwise.multiply(-2.0, sl(-2, -1))),
                elementwise.multiply(1.5, sl(-1, None))), h)
        inner = elementwise.true_divide(
            elementwise.multiply(elementwise.subtract(sl(2, None), sl(None, -2)), 0.5), h)
        return shape_ops.concatenate((upper, inner, lower), axis)
    if util.ndim_of(h) != 1:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    if h.shape[0] != a.shape[axis]:
        raise ValueError("Spacing arrays must have the same length as the dimension along "
                         "which the gradient is calculated.")
    h_shape = [1] * a.ndim
    h_shape[axis] = h.shape[0]
    h = shape_ops.reshape(h, tuple(h_shape))
    hs = lambda start, stop: _slice(h, start, stop, axis)  # noqa: E731
    sub, mul, div, add = (elementwise.subtract, elementwise.multiply, elementwise.true_divide,
                          elementwise.add)
    dx1 = sub(hs(1, -1), hs(0, -2))
    dx2 = sub(hs(2, None), hs(1, -1))
    ca = div(elementwise.negative(dx2), mul(dx1, add(dx1, dx2)))
    cb = div(sub(dx2, dx1), mul(dx1, dx2))
    cc = div(dx1, mul(dx2, add(dx1, dx2)))
    inner = add(add(mul(ca, sl(0, -2)), mul(cb, sl(1, -1))), mul(cc, sl(2, None)))
    if edge_order == 1:
        upper = div(sub(sl(1, 2), sl(0, 1)), sub(hs(1, 2), hs(0, 1)))
        lower = div(sub(sl(-1, None), sl(-2, -1)), sub(hs(-1, None), hs(-2, -1)))
    else:
        # numpy's second-order one-sided differences on a non-uniform grid.
        d1, d2 = sub(hs(1, 2), hs(0, 1)), sub(hs(2, 3), hs(1, 2))
        a0 = div(elementwise.negative(add(mul(2.0, d1), d2)), mul(d1, add(d1, d2)))
        b0 = div(add(d1, d2), mul(d1, d2))
        c0 = div(elementwise.negative(d1), mul(d2, add(d1, d2)))
        upper = add(add(mul(a0, sl(0, 1)), mul(b0, sl(1, 2))), mul(c0, sl(2, 3)))
        d1, d2 = sub(hs(-2, -1), hs(-3, -2)), sub(hs(-1, None), hs(-2, -1))
        a1 = div(d2, mul(d1, add(d1, d2)))
        b1 = div(elementwise.negative(add(d2, d1)), mul(d1, d2))
        c1 = div(add(mul(2.0, d2), d1), mul(d2, add(d1, d2)))
        lower = add(add(mul(a1, sl(-3, -2)), mul(b1, sl(-2, -1))), mul(c1, sl(-1, None)))
    return shape_ops.concatenate((upper, inner, lower), axis)


def gradient(f, *varargs, axis=None, edge_order=None):
    """The gradient of ``f`` by central differences inside and one-sided differences
    at the edges (first order, or second with ``edge_order=2``); ``varargs`` are the
    spacings: scalars or coordinate arrays, one for all axes or one per axis.

    Example:
        >>> jnp.gradient(jnp.array([1.0, 2.0, 4.0, 7.0]))
        Array([1. , 1.5, 2.5, 3. ], dtype=float32)
    """
    if edge_order is None:
        edge_order = 1
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    a, *spacing = _promote_keep_shapes(f, *varargs)
    if axis is None:
        axes = tuple(range(a.ndim))
    else:
        axes = tuple(util.canonicalize_axis(i, a.ndim) for i in
                     (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if not axes or min(a.shape[i] for i in axes) < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                         "(edge_order + 1) elements are required.")
    if len(spacing) == 0:
        dx = [1.0] * len(axes)
    elif len(spacing) == 1:
        dx = list(spacing) * len(axes)
    elif len(spacing) == len(axes):
        dx = list(spacing)
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for axis={axis}")
    grads = [_gradient_along_axis(a, h, ax, edge_order) for ax, h in zip(axes, dx)]
    return grads[0] if len(axes) == 1 else grads


def _promote_keep_shapes(*args):
    """promote_args_inexact without broadcasting: spacings keep their shapes (numpy
    accepts 1-D coordinates for an N-D array; JAX's rank promotion rejects them)."""
    util.check_arraylike("gradient", *args)
    out = util.promote_dtypes(*args)
    dt = util.to_inexact(out[0].dtype)
    return [util.convert(x, dt, bool(x.weak_type)) for x in out]
