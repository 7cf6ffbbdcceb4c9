"""numpy indexing (``x[idx]``) for xjit arrays and tracers.

Basic indexing (ints, slices with any step, None, Ellipsis) lowers to one
``lax.slice``, ``lax.rev`` for negative steps and a ``lax.reshape``; traced
integer scalars to one ``lax.dynamic_slice``. Advanced indexing (integer
arrays, concrete boolean masks) follows numpy's placement rules and is one
``lax.gather``; out-of-bounds indices are clamped (JAX's default
``promise_in_bounds``), or filled with ``mode='fill'``.

Example:
    >>> import xjit.numpy as jnp
    >>> x = jnp.arange(12).reshape(3, 4)
    >>> x[::-1, 1]
    Array([9, 5, 1], dtype=int32)
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import dtypes
from xjit._src.errors import ConcretizationTypeError
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.lax import slicing as lax_slicing
from xjit._src.numpy import util


def _is_int_scalar(i) -> bool:
    return isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))


def _is_array_index(i) -> bool:
    if isinstance(i, (list, np.ndarray)) or util.is_xjit_value(i):
        return True
    return False


def _as_index_array(i):
    """An advanced index as a numpy int/bool array (concrete) or an xjit value."""
    if util.is_xjit_value(i):
        if util.is_tracer(i):
            return i
        return np.asarray(i)
    arr = np.asarray(i)
    if arr.dtype == object or (arr.size == 0 and arr.dtype == np.float64):
        arr = arr.astype(np.int64) if arr.size == 0 else arr
    return arr


def _expand(idx, shape):
    """Normalize to a list of entries covering every axis (Ellipsis replaced)."""
    ndim = len(shape)
    if not isinstance(idx, tuple):
        idx = (idx,)
    entries = []
    for i in idx:
        if isinstance(i, (bool, np.bool_)):
            raise NotImplementedError("xjit: indexing with a Python bool is not supported yet")
        if _is_array_index(i):
            a = _as_index_array(i)
            if a.dtype == np.bool_:
                if util.is_tracer(a):
                                raise ConcretizationTypeError(
                        "Array boolean indices must be concrete; got a traced boolean mask. "
                        "Use jnp.where(mask, x, fill) instead.")
                mask = np.asarray(a)
                if mask.ndim == 0:
                    entries.extend(np.nonzero(mask))
                else:
                    entries.append(_BoolMask(mask))
                continue
            if not (dtypes.issubdtype(a.dtype, np.integer)):
                raise IndexError("Indexer must have integer or boolean type, got indexer "
                                 f"with type {a.dtype}")
            entries.append(a)
        elif i is None or i is Ellipsis or isinstance(i, slice) or _is_int_scalar(i):
            entries.append(i)
        elif hasattr(i, "__index__"):
            entries.append(operator.index(i))
        else:
            raise TypeError(f"Indexer must be an int, slice, None, Ellipsis or array; got {i!r}")
    n_ell = sum(1 for e in entries if e is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(e.mask.ndim if isinstance(e, _BoolMask) else 1
               for e in entries if e is not None and e is not Ellipsis)
    if used > ndim:
        raise IndexError(f"Too many indices: {ndim}-dimensional array indexed with {used} "
                         "regular indices.")
    fill = [slice(None)] * (ndim - used)
    if n_ell:
        k = next(j for j, e in enumerate(entries) if e is Ellipsis)
        entries = entries[:k] + fill + entries[k + 1:]
    else:
        entries = entries + fill
    return _expand_masks(entries, shape) if any(isinstance(e, _BoolMask) for e in entries) \
        else entries


class _BoolMask:
    """A concrete boolean index of rank >= 1, replaced by its nonzero() arrays once the
    axes it covers are known (so its shape can be checked against theirs)."""
    __slots__ = ("mask",)

    def __init__(self, mask):
        self.mask = mask


def _expand_masks(entries, shape):
    out, axis = [], 0
    for pos, e in enumerate(entries):
        if isinstance(e, _BoolMask):
            expected = tuple(shape[axis:axis + e.mask.ndim])
            if e.mask.shape != expected:  # numpy and JAX raise; never broadcast a mask
                raise IndexError(f"boolean index did not match shape of indexed array in "
                                 f"index {pos}: got {e.mask.shape}, expected {expected}")
            out.extend(np.nonzero(e.mask))
            axis += e.mask.ndim
            continue
        out.append(e)
        if e is not None:
            axis += 1
    return out


def _is_traced_scalar(e) -> bool:
    return util.is_xjit_value(e) and tuple(e.shape) == ()


def getitem(x, idx, mode=None, fill_value=None, indices_are_sorted=False,
            unique_indices=False):
    """``x[idx]`` with numpy semantics; ``mode``/``fill_value`` as ``x.at[idx].get``.

    Example:
        >>> jnp.arange(10)[-3:]
        Array([7, 8, 9], dtype=int32)
    """
    x = util.asarray_any(x)
    entries = _expand(idx, tuple(x.shape))
    fill = lax_slicing.GatherScatterMode.from_any(mode) == \
        lax_slicing.GatherScatterMode.FILL_OR_DROP and mode is not None
    # mode='fill' (JAX's drop/fill) sends integer scalars through the gather too,
    # so an out-of-bounds one is filled instead of raising or clamping.
    has_array = any(not (e is None or isinstance(e, slice)
                         or ((_is_int_scalar(e) or _is_traced_scalar(e)) and not fill))
                    for e in entries)

    starts, limits, strides, reversed_axes = [], [], [], []
    out_shape = []          # shape after basic indexing (None axes included)
    advanced = []           # (position in out_shape, index array, axis size)
    dynamic = []            # (position in out_shape, traced scalar index)
    axis = 0
    for e in entries:
        if e is None:
            out_shape.append(1)
            continue
        n = x.shape[axis]
        if _is_int_scalar(e) and not has_array:
            i = int(e)
            if -n <= i < n:
                i += n if i < 0 else 0
            elif isinstance(e, np.integer) and n > 0:
                # JAX gathers at a numpy integer index, which clamps (docs/semantics.md).
                i = min(max(i + n if i < 0 else i, 0), n - 1)
            else:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            starts.append(i), limits.append(i + 1), strides.append(1)
        elif isinstance(e, slice):
            start, stop, step = e.indices(n)
            count = len(range(start, stop, step))
            if step > 0:
                lo, stride = start, step
            else:
                lo, stride = start + step * (count - 1) if count else 0, -step
                reversed_axes.append(len(out_shape))
            hi = lo + stride * (count - 1) + 1 if count else lo
            starts.append(lo), limits.append(hi), strides.append(stride)
            out_shape.append(count)
        elif _is_traced_scalar(e) and not has_array:
            if n == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            starts.append(0), limits.append(n), strides.append(1)
            dynamic.append((len(out_shape), e))
            out_shape.append(n)
        else:
            starts.append(0), limits.append(n), strides.append(1)
            advanced.append((len(out_shape), e, n))
            out_shape.append(n)
        axis += 1

    y = x
    if starts != [0] * x.ndim or limits != list(x.shape) or strides != [1] * x.ndim:
        y = lax_shapes.slice(y, tuple(starts), tuple(limits), tuple(strides))
    if tuple(out_shape) != tuple(y.shape):
        y = lax_shapes.reshape(y, tuple(out_shape))
    if reversed_axes:
        y = lax_shapes.rev(y, tuple(reversed_axes))
    if dynamic:
        y = _dynamic_index(y, dynamic)
    if advanced:
        y = _advanced(y, advanced, mode, fill_value, indices_are_sorted, unique_indices)
    return y


def _dynamic_index(y, dynamic):
    """``y`` at traced scalar indices on some axes (dropped): one dynamic_slice."""
    starts = [0] * y.ndim
    sizes = list(y.shape)
    for p, e in dynamic:
        if not dtypes.issubdtype(e.dtype, np.integer):
            raise IndexError("Indexer must have integer or boolean type, got indexer with "
                             f"type {e.dtype}")
        starts[p] = e
        sizes[p] = 1
    out = lax_slicing.dynamic_slice(y, starts, sizes)
    dropped = {p for p, _ in dynamic}
    return lax_shapes.reshape(out, tuple(n for i, n in enumerate(y.shape) if i not in dropped))


def _index_value(e, n, wrap_negative=True):
    """An integer index array as a default-int xjit value, negative indices wrapped
    once (unless ``wrap_negative`` is false: numpy's take with mode='clip')."""
    idx_dtype = dtypes.default_int_dtype()
    if not util.is_xjit_value(e):
        a = np.asarray(e).astype(np.int64)
        if wrap_negative:
            a = np.where(a < 0, a + n, a)
        info = np.iinfo(idx_dtype)
        return util.convert(np.clip(a, info.min, info.max), idx_dtype)
    a = util.convert(e, idx_dtype)
    if not wrap_negative:
        return a
    zero = util.broadcast_to(util.convert(0, idx_dtype), a.shape)
    nn = util.broadcast_to(util.convert(n, idx_dtype), a.shape)
    return lax_ew.select(lax_ew.lt(a, zero), lax_ew.add(a, nn), a)


def _advanced(y, advanced, mode=None, fill_value=None, indices_are_sorted=False,
              unique_indices=False, wrap_negative=True):
    """Gather ``y`` at integer index arrays on some axes (numpy's advanced indexing):
    one ``gather`` whose batch dimensions are the broadcast index shape, placed
    where numpy places them."""
    positions = [p for p, _, _ in advanced]
    sizes = [n for _, _, n in advanced]
    b_shape = tuple(util.broadcast_shapes(*(util.shape_of(e) for _, e, _ in advanced)))
    nb, m = len(b_shape), len(positions)
    rest = [i for i in range(y.ndim) if i not in positions]
    adjacent = positions == list(range(positions[0], positions[0] + m))
    p0 = positions[0] if adjacent else 0
    r_shape = [y.shape[i] for i in rest]
    out_shape = tuple(r_shape[:p0]) + b_shape + tuple(r_shape[p0:])
    if any(n == 0 for n in sizes) or util.size_of(b_shape) == 0:
        if util.size_of(b_shape) != 0:
            raise IndexError("index is out of bounds for an axis of size 0")
        return util.broadcast_to(util.convert(0, y.dtype, bool(y.weak_type)), out_shape)
    idxs = [util.broadcast_to(_index_value(e, n, wrap_negative), b_shape)
            for _, e, n in advanced]
    idx = lax_shapes.concatenate([lax_shapes.reshape(i, b_shape + (1,)) for i in idxs], nb)
    offset_dims = tuple(range(p0)) + tuple(range(p0 + nb, nb + len(rest)))
    dn = lax_slicing.GatherDimensionNumbers(offset_dims=offset_dims,
                                            collapsed_slice_dims=tuple(positions),
                                            start_index_map=tuple(positions))
    slice_sizes = tuple(1 if i in positions else y.shape[i] for i in range(y.ndim))
    if mode is None:
        mode = lax_slicing.GatherScatterMode.PROMISE_IN_BOUNDS
    if (wrap_negative and lax_slicing.GatherScatterMode.from_any(mode)
            == lax_slicing.GatherScatterMode.FILL_OR_DROP):
        # The fill mask from the raw indices (-n <= i < n), not the wrapped
        # ones: the wrap then has the gather as its only user, and the cpu
        # backend folds it into the gather's index reads (one pass less).
        out = lax_slicing.gather(y, idx, dn, slice_sizes, mode="clip",
                                 indices_are_sorted=indices_are_sorted,
                                 unique_indices=unique_indices)
        mask = None
        for _, e, n in advanced:
            raw = util.broadcast_to(_index_value(e, n, wrap_negative=False), b_shape)
            lo = util.broadcast_to(util.convert(-n, raw.dtype), b_shape)
            hi = util.broadcast_to(util.convert(n, raw.dtype), b_shape)
            ok = lax_ew.bitwise_and(lax_ew.ge(raw, lo), lax_ew.lt(raw, hi))
            mask = ok if mask is None else lax_ew.bitwise_and(mask, ok)
        mask = lax_shapes.broadcast_in_dim(mask, out_shape, tuple(range(p0, p0 + nb)))
        fill = lax_slicing._default_fill(y.dtype) if fill_value is None else fill_value
        fill_arr = util.broadcast_to(util.convert(fill, y.dtype, bool(y.weak_type)), out_shape)
        return lax_ew.select(mask, out, fill_arr)
    return lax_slicing.gather(y, idx, dn, slice_sizes, mode=mode, fill_value=fill_value,
                              indices_are_sorted=indices_are_sorted,
                              unique_indices=unique_indices)


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (flattened when None).

    As JAX: ``mode=None`` is ``'fill'`` (out-of-bounds indices give ``fill_value``,
    NaN for inexact types); ``'clip'`` clamps, ``'wrap'`` wraps; negative
    indices count from the end.

    Example:
        >>> jnp.take(jnp.array([10, 20, 30]), jnp.array([2, 0]))
        Array([30, 10], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    if mode not in _TAKE_MODES:
        raise ValueError(f"Invalid mode={mode!r} for jnp.take; expected one of "
                         f"{', '.join(map(repr, _TAKE_MODES))}")
    if mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    x = util.asarray_any(a)
    if axis is None:
        if x.ndim != 1:
            x = lax_shapes.reshape(x, (util.size_of(x.shape),))
        axis = 0
    ax = util.canonicalize_axis(axis, x.ndim)
    if mode == "wrap":
        indices = _wrapped(indices, max(x.shape[ax], 1))
        mode = "promise_in_bounds"
    elif mode is None:
        mode = "fill"
    wrap = mode != "clip"  # numpy: 'clip' clamps negative indices to 0
    idx = _as_index_array(indices)
    if not dtypes.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"take: indices must be integers, got {idx.dtype}")
    if util.shape_of(idx) == ():
        idx = util.broadcast_to(util.convert(idx, dtypes.default_int_dtype()), (1,)) \
            if util.is_xjit_value(idx) else np.reshape(idx, (1,))
        out_v = _advanced(x, [(ax, idx, x.shape[ax])], mode, fill_value, indices_are_sorted,
                          unique_indices, wrap)
        return lax_shapes.reshape(out_v, tuple(x.shape[:ax]) + tuple(x.shape[ax + 1:]))
    return _advanced(x, [(ax, idx, x.shape[ax])], mode, fill_value, indices_are_sorted,
                     unique_indices, wrap)


def take_along_axis(arr, indices, axis, mode=None, fill_value=None):
    """numpy's ``take_along_axis``: ``arr`` at ``indices`` along ``axis``, the other
    axes matched (broadcast) index for index; one gather with batching dims.
    ``mode=None`` is ``'fill'`` as in JAX; negative indices count from the end.

    Example:
        >>> jnp.take_along_axis(jnp.array([[10, 30, 20]]), jnp.array([[0, 2, 1]]), axis=1)
        Array([[10, 20, 30]], dtype=int32)
    """
    x = util.asarray_any(arr)
    idx = _as_index_array(indices)
    if not dtypes.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"take_along_axis: indices must be integers, got {idx.dtype}")
    if axis is None:
        if util.ndim_of(idx) != 1:
            raise ValueError("take_along_axis: when axis=None, indices must be 1-d, got "
                             f"shape {util.shape_of(idx)}")
        x = lax_shapes.reshape(x, (util.size_of(x.shape),))
        axis = 0
    if util.ndim_of(idx) != x.ndim:
        raise ValueError(f"take_along_axis: indices and arr must have the same number of "
                         f"dimensions; {util.ndim_of(idx)} vs. {x.ndim}")
    ax = util.canonicalize_axis(axis, x.ndim)
    ishape = util.shape_of(idx)
    bshape = []
    for d in range(x.ndim):
        if d == ax:
            continue
        try:
            bshape.append(util.broadcast_shapes((x.shape[d],), (ishape[d],))[0])
        except ValueError:
            raise ValueError(f"take_along_axis: shapes {tuple(x.shape)} and {ishape} are not "
                             "broadcast-compatible off the axis") from None
    xs = list(bshape)
    xs.insert(ax, x.shape[ax])
    is_ = list(bshape)
    is_.insert(ax, ishape[ax])
    x = util.broadcast_to(x, tuple(xs))
    n = x.shape[ax]
    iv = util.broadcast_to(_index_value(idx, n), tuple(is_))
    if mode is None:
        mode = "fill"
    if util.size_of(is_) == 0 or n == 0:
        if util.size_of(is_) != 0:
            raise IndexError("index is out of bounds for an axis of size 0")
        return util.broadcast_to(util.convert(0, x.dtype, bool(x.weak_type)), tuple(is_))
    iv = lax_shapes.reshape(iv, tuple(is_) + (1,))
    batch = tuple(d for d in range(x.ndim) if d != ax)
    dn = lax_slicing.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(ax,), start_index_map=(ax,),
        operand_batching_dims=batch, start_indices_batching_dims=batch)
    return lax_slicing.gather(x, iv, dn, (1,) * x.ndim, mode=mode, fill_value=fill_value)


def _wrapped(indices, n: int):
    """Integer ``indices`` modulo ``n`` (the result in [0, n), as numpy's mode='wrap')."""
    if not util.is_xjit_value(indices):
        return np.mod(np.asarray(indices), n)
    r = lax_ew.rem(indices, util.broadcast_to(util.convert(n, indices.dtype), indices.shape))
    zero = util.broadcast_to(util.convert(0, indices.dtype), indices.shape)
    nn = util.broadcast_to(util.convert(n, indices.dtype), indices.shape)
    return lax_ew.select(lax_ew.lt(r, zero), lax_ew.add(r, nn), r)


_TAKE_MODES = (None, "clip", "promise_in_bounds", "wrap", "fill", "raise")
