"""numpy's ``pad`` in every mode, built from lax slices, reversals, concatenations
and ``lax.pad`` (JAX's algorithms, so the results match JAX's where numpy and
JAX differ: ``reflect_type="odd"`` with pads longer than the axis).

Axes are padded one after another, each seeing the padding of the axes before
it (so corners come out as in numpy). ``median`` is computed without a sort:
each element's rank comes from comparing it with every other element of its
slice (quadratic in the slice length).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.pad(jnp.array([1, 2, 3]), 2, mode="reflect")
    Array([3, 2, 1, 2, 3, 2, 1], dtype=int32)
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import core, dtypes
from xjit._src.errors import ConcretizationTypeError
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import reductions as lax_reductions
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import creation
from xjit._src.numpy import elementwise
from xjit._src.numpy import reductions
from xjit._src.numpy import shape_ops
from xjit._src.numpy import util

_ALLOWED_KWARGS = {
    "empty": (), "edge": (), "wrap": (),
    "constant": ("constant_values",),
    "linear_ramp": ("end_values",),
    "maximum": ("stat_length",), "mean": ("stat_length",), "median": ("stat_length",),
    "minimum": ("stat_length",),
    "reflect": ("reflect_type",), "symmetric": ("reflect_type",),
}


def _concrete(name, value):
    if isinstance(value, core.Tracer):
        raise ConcretizationTypeError(
            f"jnp.pad: the {name} argument must be concrete (it fixes the result's shape), "
            f"got a traced value.")
    if util.is_xjit_value(value):
        return np.asarray(value)
    return value


def _broadcast_to_pairs(values, nd: int, name: str):
    """``values`` as ``nd`` (before, after) pairs, from any shape numpy accepts."""
    if isinstance(values, (list, tuple)):
        values = [_concrete(name, v) if not isinstance(v, (list, tuple))
                  else [_concrete(name, w) for w in v] for v in values]
    else:
        values = _concrete(name, values)
    try:
        arr = np.asarray(values)
    except ValueError as err:
        raise TypeError(f"`{name}` entries must be the same shape: {values}") from err
    if arr.dtype == object:
        raise TypeError(f"`{name}` entries must be the same shape: {values}")
    if arr.shape == (nd, 2):
        return tuple((arr[i, 0], arr[i, 1]) for i in range(nd))
    if arr.shape == (1, 2):
        return tuple((arr[0, 0], arr[0, 1]) for _ in range(nd))
    if arr.shape == (2,):
        return tuple((arr[0], arr[1]) for _ in range(nd))
    if arr.shape in ((1,), ()):
        v = arr.reshape(())[()]
        return tuple((v, v) for _ in range(nd))
    raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {arr.shape}. "
                     f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")


def _int_pairs(pairs, name):
    out = []
    for before, after in pairs:
        try:
            out.append((operator.index(before), operator.index(after)))
        except TypeError:
            raise TypeError(f"`{name}` must be of integral type.") from None
    return tuple(out)


def _check_no_padding(widths, mode):
    if widths[0] > 0 or widths[1] > 0:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _slice(x, start, stop, axis):
    n = x.shape[axis]
    start = start + n if start < 0 else start
    stop = n if stop is None else (stop + n if stop < 0 else stop)
    return lax_shapes.slice_in_dim(x, start, stop, 1, axis)


def _concat(parts, axis):
    parts = [p for p in parts if p.shape[axis] > 0]
    return parts[0] if len(parts) == 1 else lax_shapes.concatenate(parts, axis)


def _repeat(x, n, axis):
    """``x`` (size 1 along ``axis``) broadcast to size ``n`` there."""
    shape = list(x.shape)
    shape[axis] = n
    return lax_shapes.broadcast_in_dim(x, tuple(shape), tuple(range(x.ndim)))


# ---------------------------------------------------------------------------- modes

def _pad_constant(x, widths, constant_values):
    weak = bool(x.weak_type)
    nd = x.ndim
    if util.is_xjit_value(constant_values):
        cv = util.convert(constant_values, x.dtype, weak)
    else:
        cv = np.asarray(constant_values)
        if cv.dtype == object:
            raise TypeError(f"`constant_values` entries must be the same shape: "
                            f"{constant_values}")
        cv = util.convert(cv, x.dtype, weak)
    if cv.ndim == 0:
        return lax_shapes.pad(x, cv, [(lo, hi, 0) for lo, hi in widths])
    if cv.ndim == 1:
        if cv.shape[-1] == 1:
            return lax_shapes.pad(x, lax_shapes.reshape(cv, ()), [(lo, hi, 0) for lo, hi in widths])
        if cv.shape[-1] != 2:
            raise ValueError(f"jnp.pad: constant_values has unsupported shape {cv.shape}. If "
                             f"the shape is 1D or 2D, the last dimension must be of size 1 or 2.")
    cv = util.broadcast_to(cv, (nd, 2))
    for i in range(nd):
        for side in (0, 1):
            if widths[i][side]:
                config = [(0, 0, 0)] * nd
                config[i] = (widths[i][0], 0, 0) if side == 0 else (0, widths[i][1], 0)
                value = lax_shapes.reshape(lax_shapes.slice(cv, (i, side), (i + 1, side + 1)), ())
                x = lax_shapes.pad(x, value, config)
    return x


def _pad_wrap(x, widths):
    for i in range(x.ndim):
        size = x.shape[i]
        if size == 0:
            _check_no_padding(widths[i], "wrap")
            continue
        left_repeats, left_rem = divmod(widths[i][0], size)
        right_repeats, right_rem = divmod(widths[i][1], size)
        parts = []
        if left_rem:
            parts.append(_slice(x, size - left_rem, size, i))
        parts += [x] * (left_repeats + right_repeats + 1)
        if right_rem:
            parts.append(_slice(x, 0, right_rem, i))
        x = _concat(parts, i)
    return x


def _pad_symmetric_or_reflect(x, widths, mode, reflect_type):
    for i in range(x.ndim):
        size = x.shape[i]
        if size == 0:
            _check_no_padding(widths[i], mode)
            continue
        offset = 1 if (mode == "reflect" and size > 1) else 0

        def build(x, padding, before):
            edge = _slice(x, 0, 1, i) if before else _slice(x, -1, None, i)
            while padding > 0:
                # Reflect at most the original length at a time about the current edge.
                cur = min(padding, size - offset)
                padding -= cur
                if before:
                    chunk = _slice(x, offset, offset + cur, i)
                else:
                    stop = None if (mode == "symmetric" or size == 1) else -1
                    chunk = _slice(x, -(cur + offset), stop, i)
                chunk = lax_shapes.rev(chunk, (i,))
                if reflect_type == "odd":
                    chunk = elementwise.subtract(elementwise.multiply(2, edge), chunk)
                    if size > 1:
                        edge = _slice(chunk, 0, 1, i) if before else _slice(chunk, -1, None, i)
                x = _concat([chunk, x] if before else [x, chunk], i)
            return x

        x = build(x, widths[i][0], True)
        x = build(x, widths[i][1], False)
    return x


def _pad_edge(x, widths):
    for i in range(x.ndim):
        n = x.shape[i]
        if n == 0:
            _check_no_padding(widths[i], "edge")
            continue
        before = _repeat(_slice(x, 0, 1, i), widths[i][0], i)
        after = _repeat(_slice(x, n - 1, n, i), widths[i][1], i)
        x = _concat([before, x, after], i)
    return x


def _pad_linear_ramp(x, widths, end_values):
    weak = bool(x.weak_type)
    for axis in range(x.ndim):
        ramps = []
        for side in (0, 1):
            edge = _slice(x, 0, 1, axis) if side == 0 else _slice(x, -1, None, axis)
            ramp = creation.linspace(end_values[axis][side], shape_ops.squeeze(edge, axis),
                                     widths[axis][side], endpoint=False, dtype=x.dtype,
                                     axis=axis)
            ramp = util.convert(ramp, x.dtype, weak)
            ramps.append(ramp if side == 0 else lax_shapes.rev(ramp, (axis,)))
        x = _concat([ramps[0], x, ramps[1]], axis)
    return x


def _median(x, axis, keepdims=True):
    """Median along ``axis`` without a sort: the k-th smallest element is the one
    with at most k elements below it and more than k at or below it."""
    x = util.asarray_any(x)
    n = x.shape[axis]
    moved = shape_ops.moveaxis(x, axis, -1)
    compute = util.to_inexact(x.dtype)
    if dtypes.issubdtype(compute, np.floating) and compute.itemsize < 4:
        compute = np.dtype(np.float32)
    a = lax_shapes.expand_dims(moved, (moved.ndim,))       # [..., i, 1]
    b = lax_shapes.expand_dims(moved, (moved.ndim - 1,))   # [..., 1, j]
    shape = tuple(moved.shape) + (n,)
    a, b = util.broadcast_to(a, shape), util.broadcast_to(b, shape)
    idx = dtypes.default_int_dtype()
    below = reductions.sum(lax_ew.lt(b, a), axis=-1, dtype=idx)        # per element i
    at_or_below = reductions.sum(lax_ew.le(b, a), axis=-1, dtype=idx)
    lowest = lax_reductions._identity("maximum", np.dtype(x.dtype))

    def kth(k):
        hit = lax_ew.bitwise_and(lax_ew.le(below, util.convert(k, idx)),
                                 lax_ew.gt(at_or_below, util.convert(k, idx)))
        picked = lax_ew.select(hit, moved, util.broadcast_to(
            util.convert(lowest, x.dtype, bool(x.weak_type)), moved.shape))
        return util.convert(reductions.max(picked, axis=-1), compute, False)

    if n % 2:
        out = kth(n // 2)
    else:
        out = lax_ew.mul(lax_ew.add(kth(n // 2 - 1), kth(n // 2)), util.convert(0.5, compute))
    if dtypes.is_inexact(x.dtype):
        has_nan = reductions.any(lax_ew.ne(moved, moved), axis=-1)
        out = lax_ew.select(has_nan, util.broadcast_to(util.convert(np.nan, compute),
                                                       out.shape), out)
    out = util.convert(out, util.to_inexact(x.dtype), bool(x.weak_type))
    return lax_shapes.expand_dims(out, (axis,)) if keepdims else out


_STAT_FUNCS = {
    "maximum": lambda a, axis: reductions.max(a, axis=axis, keepdims=True),
    "minimum": lambda a, axis: reductions.min(a, axis=axis, keepdims=True),
    "mean": lambda a, axis: reductions.mean(a, axis=axis, keepdims=True),
    "median": lambda a, axis: _median(a, axis),
}


def _pad_stats(x, widths, stat_length, stat_func):
    weak = bool(x.weak_type)
    for i in range(x.ndim):
        if stat_length is None:
            stat_before = stat_after = stat_func(x, i)
        else:
            length = x.shape[i]
            before, after = stat_length[i]
            if before == 0 or after == 0:
                raise ValueError("stat_length of 0 yields no value for padding")
            before, after = min(before, length), min(after, length)
            stat_before = stat_func(_slice(x, 0, before, i), i)
            stat_after = stat_func(_slice(x, -after, None, i), i)
        if dtypes.issubdtype(x.dtype, np.integer):
            stat_before = elementwise.round(stat_before)
            stat_after = elementwise.round(stat_after)
        stat_before = util.convert(stat_before, x.dtype, weak)
        stat_after = util.convert(stat_after, x.dtype, weak)
        x = _concat([_repeat(stat_before, widths[i][0], i), x,
                     _repeat(stat_after, widths[i][1], i)], i)
    return x


def _pad_empty(x, widths):
    # As in JAX, "empty" padding is zeros.
    return lax_shapes.pad(x, np.zeros((), x.dtype), [(lo, hi, 0) for lo, hi in widths])


def _pad_func(x, widths, func, kwargs):
    """numpy's callable mode: ``func(row, (before, after), axis, kwargs)`` on every 1-D
    row of the zero-padded array, axis by axis."""
    x = _pad_constant(x, widths, 0)
    for axis in range(x.ndim):
        moved = shape_ops.moveaxis(x, axis, -1)
        n = moved.shape[-1]
        rows = shape_ops.reshape(moved, (-1, n))
        new_rows = []
        for r in range(rows.shape[0]):
            row = lax_shapes.reshape(lax_shapes.slice(rows, (r, 0), (r + 1, n)), (n,))
            out = func(row, widths[axis], axis, kwargs)
            out = util.asarray_any(out)
            if tuple(out.shape) != (n,):
                raise ValueError(f"jnp.pad: the padding function must return a row of shape "
                                 f"({n},), got {tuple(out.shape)}")
            new_rows.append(util.convert(out, x.dtype, bool(x.weak_type)))
        stacked = shape_ops.stack(new_rows) if new_rows else rows
        x = shape_ops.moveaxis(shape_ops.reshape(stacked, moved.shape), -1, axis)
    return x


def pad(array, pad_width, mode="constant", **kwargs):
    """Pad ``array`` by ``pad_width`` with numpy's modes: ``constant`` (``constant_values``),
    ``edge``, ``wrap``, ``reflect``/``symmetric`` (``reflect_type`` ``even``/``odd``),
    ``linear_ramp`` (``end_values``), ``maximum``/``minimum``/``mean``/``median``
    (``stat_length``), ``empty`` (zeros), or a callable applied to each row.

    Example:
        >>> jnp.pad(jnp.array([[1, 2]]), ((0, 1), (1, 0)), constant_values=9)
        Array([[9, 1, 2],
               [9, 9, 9]], dtype=int32)
    """
    util.check_arraylike("pad", array)
    x = util.asarray_any(array)
    widths = _int_pairs(_broadcast_to_pairs(pad_width, x.ndim, "pad_width"), "pad_width")
    if callable(mode):
        return _pad_func(x, widths, mode, kwargs)
    if not isinstance(mode, str) or mode not in _ALLOWED_KWARGS:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    unsupported = set(kwargs) - set(_ALLOWED_KWARGS[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    if x.ndim == 0:
        return x
    if any(lo < 0 or hi < 0 for lo, hi in widths):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(x, widths, kwargs.get("constant_values", 0))
    if mode == "wrap":
        return _pad_wrap(x, widths)
    if mode in ("symmetric", "reflect"):
        reflect_type = kwargs.get("reflect_type", "even")
        if reflect_type not in ("even", "odd"):
            raise ValueError(f"jnp.pad: reflect_type must be 'even' or 'odd', got "
                             f"{reflect_type!r}")
        return _pad_symmetric_or_reflect(x, widths, mode, reflect_type)
    if mode == "edge":
        return _pad_edge(x, widths)
    if mode == "linear_ramp":
        end_values = _broadcast_to_pairs(kwargs.get("end_values", 0), x.ndim, "end_values")
        return _pad_linear_ramp(x, widths, end_values)
    if mode in _STAT_FUNCS:
        stat_length = kwargs.get("stat_length")
        if stat_length is not None:
            stat_length = _int_pairs(_broadcast_to_pairs(stat_length, x.ndim, "stat_length"),
                                     "stat_length")
        return _pad_stats(x, widths, stat_length, _STAT_FUNCS[mode])
    return _pad_empty(x, widths)
