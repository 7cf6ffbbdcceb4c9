"""numpy indexing (``x[idx]``) for xjit arrays and tracers.

Basic indexing (ints, slices with any step, None, Ellipsis) lowers to one
``lax.slice``, ``lax.rev`` for negative steps and a ``lax.reshape``. Advanced
indexing (integer arrays, concrete boolean masks, traced integer scalars) follows
numpy's placement rules and is computed as a one-hot select and reduction, so it
works under jit; out-of-bounds array indices are clamped, as in JAX.

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
from xjit._src.lax import reductions as lax_reductions
from xjit._src.lax import shapes as lax_shapes
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


def getitem(x, idx):
    """``x[idx]`` with numpy semantics.

    Example:
        >>> jnp.arange(10)[-3:]
        Array([7, 8, 9], dtype=int32)
    """
    x = util.asarray_any(x)
    entries = _expand(idx, tuple(x.shape))
    has_array = any(not (e is None or isinstance(e, slice) or _is_int_scalar(e)) for e in entries)

    starts, limits, strides, reversed_axes = [], [], [], []
    out_shape = []          # shape after basic indexing (None axes included)
    advanced = []           # (position in out_shape, index array, axis size)
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
    if advanced:
        y = _advanced(y, advanced)
    return y


def _normalized_index(e, n):
    """An integer index array as an int32/int64 xjit value in [0, n) (clamped as JAX)."""
    idx_dtype = dtypes.default_int_dtype()
    if not util.is_xjit_value(e):
        a = np.asarray(e).astype(np.int64)
        a = np.where(a < 0, a + n, a)
        return util.convert(np.clip(a, 0, max(n - 1, 0)), idx_dtype)
    a = util.convert(e, idx_dtype)
    zero = util.broadcast_to(util.convert(0, idx_dtype), a.shape)
    nn = util.broadcast_to(util.convert(n, idx_dtype), a.shape)
    a = lax_ew.select(lax_ew.lt(a, zero), lax_ew.add(a, nn), a)
    hi = util.broadcast_to(util.convert(max(n - 1, 0), idx_dtype), a.shape)
    return lax_ew.clamp(zero, a, hi)


def _advanced(y, advanced):
    """Gather ``y`` at integer index arrays on some axes (numpy's advanced indexing)."""
    positions = [p for p, _, _ in advanced]
    sizes = [n for _, _, n in advanced]
    b_shape = util.broadcast_shapes(*(util.shape_of(e) for _, e, _ in advanced))
    idxs = [util.broadcast_to(_normalized_index(e, n), b_shape) for _, e, n in advanced]
    rest = [i for i in range(y.ndim) if i not in positions]
    r_shape = tuple(y.shape[i] for i in rest)
    yt = lax_shapes.transpose(y, tuple(rest + positions)) if rest + positions != list(range(y.ndim)) else y
    nb, nr, m = len(b_shape), len(r_shape), len(sizes)
    full = tuple(b_shape) + r_shape + tuple(sizes)
    mask = None
    idx_dtype = dtypes.default_int_dtype()
    for k, idx in enumerate(idxs):
        ib = lax_shapes.broadcast_in_dim(idx, full, tuple(range(nb)))
        io = lax_shapes.broadcasted_iota(idx_dtype, full, nb + nr + k)
        eq = lax_ew.eq(ib, io)
        mask = eq if mask is None else lax_ew.and_(mask, eq)
    yb = lax_shapes.broadcast_in_dim(yt, full, tuple(range(nb, nb + nr + m)))
    zero = util.broadcast_to(util.convert(0, y.dtype, bool(y.weak_type)), full)
    picked = lax_ew.select(mask, yb, zero)
    red_axes = tuple(range(nb + nr, nb + nr + m))
    if y.dtype == np.bool_:
        out = lax_reductions.reduce_or(picked, red_axes)
    else:
        out = lax_reductions.reduce_sum(picked, red_axes)
    adjacent = positions == list(range(positions[0], positions[0] + m))
    if adjacent and positions[0] != 0:
        p = positions[0]
        perm = list(range(nb, nb + p)) + list(range(nb)) + list(range(nb + p, nb + nr))
        out = lax_shapes.transpose(out, tuple(perm))
    return out


def take(a, indices, axis=None, mode=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (flattened when None); clamps.

    Example:
        >>> jnp.take(jnp.array([10, 20, 30]), jnp.array([2, 0]))
        Array([30, 10], dtype=int32)
    """
    if mode not in _TAKE_MODES:
        raise ValueError(f"Invalid mode={mode!r} for jnp.take; expected one of "
                         f"{', '.join(map(repr, _TAKE_MODES))}")
    if mode in ("fill", "raise"):
        raise NotImplementedError(f"jnp.take: mode={mode!r} is not supported; xjit clamps "
                                  "out-of-bounds indices (mode='clip') or wraps them "
                                  "(mode='wrap')")
    x = util.asarray_any(a)
    if axis is None:
        if x.ndim != 1:
            x = lax_shapes.reshape(x, (util.size_of(x.shape),))
        axis = 0
    ax = util.canonicalize_axis(axis, x.ndim)
    if mode == "wrap":
        indices = _wrapped(indices, max(x.shape[ax], 1))
    return getitem(x, (slice(None),) * ax + (indices,))


def _wrapped(indices, n: int):
    """Integer ``indices`` modulo ``n`` (the result in [0, n), as numpy's mode='wrap')."""
    if not util.is_xjit_value(indices):
        return np.mod(np.asarray(indices), n)
    r = lax_ew.rem(indices, util.broadcast_to(util.convert(n, indices.dtype), indices.shape))
    zero = util.broadcast_to(util.convert(0, indices.dtype), indices.shape)
    nn = util.broadcast_to(util.convert(n, indices.dtype), indices.shape)
    return lax_ew.select(lax_ew.lt(r, zero), lax_ew.add(r, nn), r)


_TAKE_MODES = (None, "clip", "promise_in_bounds", "wrap", "fill", "raise")
