"""roll: shift elements along axes, with wrap-around.

A static shift is two slices and a concatenation per axis. A traced shift (under
jit) is reduced modulo the axis length and applied as one static roll by 2**k per
bit k of it, each selected by that bit: O(log n) selects, no dynamic slicing.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.roll(jnp.arange(5), 2)
    Array([3, 4, 0, 1, 2], dtype=int32)
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import dtypes
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import elementwise
from xjit._src.numpy import shape_ops
from xjit._src.numpy import util


def _index_tuple(x) -> tuple:
    if isinstance(x, (tuple, list)):
        return tuple(operator.index(i) for i in x)
    return (operator.index(x),)


def _roll_static(x, shift: int, axis: int):
    n = x.shape[axis]
    if n == 0:
        return x
    i = (-shift) % n
    if i == 0:
        return x
    return lax_shapes.concatenate([lax_shapes.slice_in_dim(x, i, n, 1, axis),
                                   lax_shapes.slice_in_dim(x, 0, i, 1, axis)], axis)


def _roll_dynamic(x, shift, axes):
    shift = util.asarray_any(shift)
    if shift.ndim > 1:
        raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
    if not dtypes.issubdtype(shift.dtype, np.integer):
        raise TypeError(f"roll: shift must be an integer, got dtype {shift.dtype}")
    count = max(len(axes), shift.shape[0] if shift.ndim else 1)
    if len(axes) not in (1, count) or (shift.ndim and shift.shape[0] not in (1, count)):
        raise ValueError(f"roll: shift {tuple(shift.shape)} and axis {axes} do not broadcast")
    shifts = util.broadcast_to(shift, (count,))
    axes = axes * count if len(axes) == 1 else axes
    for k, ax in enumerate(axes):
        n = x.shape[ax]
        if n == 0:
            continue
        s = lax_shapes.reshape(lax_shapes.slice(shifts, (k,), (k + 1,)), ())
        s = elementwise.remainder(util.convert(s, np.int32), np.int32(n))  # in [0, n)
        bit = 1
        while bit < n:
            on = lax_ew.ne(lax_ew.bitwise_and(s, np.int32(bit)), np.int32(0))
            x = lax_ew.select(util.broadcast_to(on, x.shape), _roll_static(x, bit, ax), x)
            bit *= 2
    return x


def roll(a, shift, axis=None):
    """Shift elements by ``shift`` along ``axis`` (the flattened array when None),
    wrapping around; ``shift`` and ``axis`` may be tuples, and ``shift`` traced.

    Example:
        >>> jnp.roll(jnp.arange(6).reshape(2, 3), (1, -1), axis=(0, 1))
        Array([[4, 5, 3],
               [1, 2, 0]], dtype=int32)
    """
    util.check_arraylike("roll", a)
    x = util.asarray_any(a)
    if axis is None:
        return shape_ops.reshape(roll(shape_ops.ravel(x), shift, 0), x.shape)
    axes = tuple(util.canonicalize_axis(ax, x.ndim) for ax in _index_tuple(axis))
    items = shift if isinstance(shift, (tuple, list)) else (shift,)
    if any(util.is_tracer(s) for s in items):
        return _roll_dynamic(x, shape_ops.stack(items) if isinstance(shift, (tuple, list))
                             else shift, axes)
    try:
        shifts = _index_tuple(shift)
    except TypeError:
        return _roll_dynamic(x, shift, axes)
    for ax, s in zip(*np.broadcast_arrays(np.asarray(axes), np.asarray(shifts))):
        x = _roll_static(x, int(s), int(ax))
    return x
