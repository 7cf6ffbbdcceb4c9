"""Shape manipulation in xjit.numpy: reshape, transpose, concatenate, stack, flip, ...

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.reshape(jnp.arange(6), (2, -1)).shape
    (2, 3)
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from xjit._src import dtypes
from xjit._src.errors import ConcretizationTypeError
from xjit._src.lax import cumulative as lax_cumulative
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import reductions as lax_reductions
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import indexing
from xjit._src.numpy import util


def _arr(name, a):
    util.check_arraylike(name, a)
    return util.asarray_any(a)


def shape(a):
    """The shape of an array-like, as a tuple.

    Example:
        >>> jnp.shape(jnp.zeros((2, 3)))
        (2, 3)
    """
    return util.shape_of(a) if util.is_arraylike(a) else np.shape(a)


def ndim(a):
    """Number of dimensions.

    Example:
        >>> jnp.ndim(1.0)
        0
    """
    return len(shape(a))


def size(a, axis=None):
    """Number of elements (along ``axis`` if given).

    Example:
        >>> jnp.size(jnp.zeros((2, 3)))
        6
    """
    s = shape(a)
    if axis is None:
        return util.size_of(s)
    return s[util.canonicalize_axis(axis, len(s))]


def _resolve_shape(newshape, total: int) -> tuple:
    if isinstance(newshape, (int, np.integer)):
        newshape = (newshape,)
    try:
        newshape = tuple(operator.index(d) for d in newshape)
    except TypeError as err:
        raise TypeError(f"reshape new sizes must be integers, got {newshape!r}") from err
    unknown = [i for i, d in enumerate(newshape) if d == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    if builtins.any(d < -1 for d in newshape):
        raise ValueError(f"negative dimensions are not allowed in reshape: {newshape}")
    if unknown:
        known = util.size_of(d for d in newshape if d != -1)
        if known == 0 or total % known:
            raise TypeError(f"cannot reshape array of size {total} into shape {newshape}")
        newshape = tuple(total // known if d == -1 else d for d in newshape)
    if util.size_of(newshape) != total:
        raise TypeError(f"cannot reshape array of size {total} into shape {newshape}")
    return newshape


def reshape(a, shape=None, order="C", *, newshape=None):
    """Give ``a`` a new shape with the same number of elements (one -1 is inferred).

    Raises TypeError when the sizes differ, as JAX does.

    Example:
        >>> jnp.reshape(jnp.arange(6), (3, -1))
        Array([[0, 1],
               [2, 3],
               [4, 5]], dtype=int32)
    """
    if shape is None:
        shape = newshape
    if shape is None:
        raise TypeError("reshape() missing the 'shape' argument")
    x = _arr("reshape", a)
    new = _resolve_shape(shape, util.size_of(x.shape))
    if order == "F":
        rev = tuple(range(x.ndim))[::-1]
        xt = lax_shapes.transpose(x, rev) if x.ndim > 1 else x
        y = lax_shapes.reshape(xt, new[::-1])
        return lax_shapes.transpose(y, tuple(range(len(new)))[::-1]) if len(new) > 1 else y
    if order not in ("C", "A"):
        raise ValueError(f"Unexpected value for 'order' argument: {order}.")
    if tuple(x.shape) == new:
        return x
    return lax_shapes.reshape(x, new)


def ravel(a, order="C"):
    """Flatten to one dimension.

    Example:
        >>> jnp.ravel(jnp.ones((2, 2))).shape
        (4,)
    """
    return reshape(a, (-1,), order=order)


def transpose(a, axes=None):
    """Permute the axes (reverse them when ``axes`` is None).

    Example:
        >>> jnp.transpose(jnp.zeros((2, 3, 4)), (2, 0, 1)).shape
        (4, 2, 3)
    """
    x = _arr("transpose", a)
    if axes is None:
        perm = tuple(range(x.ndim))[::-1]
    else:
        perm = tuple(util.canonicalize_axis(i, x.ndim) for i in axes)
        if sorted(perm) != list(range(x.ndim)):
            raise ValueError(f"axes {tuple(axes)} don't match array of dimension {x.ndim}")
    if perm == tuple(range(x.ndim)):
        return x
    return lax_shapes.transpose(x, perm)


def permute_dims(a, axes):
    """Array API name of ``transpose`` with explicit axes.

    Example:
        >>> jnp.permute_dims(jnp.zeros((2, 3)), (1, 0)).shape
        (3, 2)
    """
    return transpose(a, axes)


def matrix_transpose(x):
    """Swap the last two axes.

    Example:
        >>> jnp.matrix_transpose(jnp.zeros((5, 2, 3))).shape
        (5, 3, 2)
    """
    x = _arr("matrix_transpose", x)
    if x.ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={x.ndim}")
    return swapaxes(x, -1, -2)


def swapaxes(a, axis1, axis2):
    """Interchange two axes.

    Example:
        >>> jnp.swapaxes(jnp.zeros((2, 3, 4)), 0, 2).shape
        (4, 3, 2)
    """
    x = _arr("swapaxes", a)
    i, j = util.canonicalize_axis(axis1, x.ndim), util.canonicalize_axis(axis2, x.ndim)
    perm = list(range(x.ndim))
    perm[i], perm[j] = perm[j], perm[i]
    return transpose(x, perm)


def moveaxis(a, source, destination):
    """Move axes ``source`` to positions ``destination``, keeping the others' order.

    Example:
        >>> jnp.moveaxis(jnp.zeros((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
    """
    x = _arr("moveaxis", a)
    src = [source] if isinstance(source, (int, np.integer)) else list(source)
    dst = [destination] if isinstance(destination, (int, np.integer)) else list(destination)
    if len(src) != len(dst):
        raise ValueError("Inconsistent number of elements: {} vs {}".format(len(src), len(dst)))
    src = [util.canonicalize_axis(s, x.ndim) for s in src]
    dst = [util.canonicalize_axis(d, x.ndim) for d in dst]
    order = [i for i in range(x.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, order)


def squeeze(a, axis=None):
    """Remove axes of length one (all of them, or those in ``axis``).

    Example:
        >>> jnp.squeeze(jnp.zeros((1, 3, 1))).shape
        (3,)
    """
    x = _arr("squeeze", a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        axes = util.canonicalize_axes(axis, x.ndim)
        for i in axes:
            if x.shape[i] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not equal "
                                 f"to one, got shape={x.shape} and dimensions={axes}")
    new = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    return x if new == tuple(x.shape) else lax_shapes.reshape(x, new)


def expand_dims(a, axis):
    """Insert length-one axes at positions ``axis`` (int or tuple) of the result.

    Example:
        >>> jnp.expand_dims(jnp.zeros((2, 3)), (0, -1)).shape
        (1, 2, 3, 1)
    """
    x = _arr("expand_dims", a)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out_nd = x.ndim + len(axes)
    axes = util.canonicalize_axes(axes, out_nd)
    it = iter(x.shape)
    new = tuple(1 if i in axes else next(it) for i in range(out_nd))
    return lax_shapes.reshape(x, new)


def broadcast_to(array, shape):
    """Broadcast to ``shape`` with numpy's rules (ValueError if impossible).

    Example:
        >>> jnp.broadcast_to(jnp.arange(3), (2, 3)).shape
        (2, 3)
    """
    util.check_arraylike("broadcast_to", array)
    shape = util.canonical_shape(shape)
    return util.broadcast_to(util.asarray_any(array), shape)


def broadcast_shapes(*shapes):
    """The shape that ``shapes`` broadcast to.

    Example:
        >>> jnp.broadcast_shapes((2, 1), (1, 3))
        (2, 3)
    """
    return util.broadcast_shapes(*(util.canonical_shape(s) for s in shapes))


def broadcast_arrays(*args):
    """Broadcast all arguments to their common shape.

    Example:
        >>> [a.shape for a in jnp.broadcast_arrays(jnp.zeros(3), jnp.zeros((2, 1)))]
        [(2, 3), (2, 3)]
    """
    util.check_arraylike("broadcast_arrays", *args)
    shp = util.broadcast_shapes(*(util.shape_of(a) for a in args))
    return [util.broadcast_to(util.asarray_any(a), shp) for a in args]


def _concat_inputs(name, arrays):
    if not isinstance(arrays, (list, tuple)) and not util.is_xjit_value(arrays) \
            and not isinstance(arrays, np.ndarray):
        raise TypeError(f"{name} requires a sequence of arrays")
    arrays = list(arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    util.check_arraylike(name, *arrays)
    return arrays


def concatenate(arrays, axis=0, dtype=None):
    """Join arrays along an existing axis (``axis=None`` flattens them first).

    Example:
        >>> jnp.concatenate([jnp.zeros((1, 2)), jnp.ones((2, 2))]).shape
        (3, 2)
    """
    arrays = _concat_inputs("concatenate", arrays)
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    if dtype is not None:
        dt = util.requested_dtype(dtype)
        arrays = [util.convert(a, dt) for a in arrays]
    else:
        arrays = util.promote_dtypes(*arrays)
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    for a in arrays[1:]:
        if a.ndim != nd:
            raise ValueError("All input arrays must have the same number of dimensions, got "
                             f"shapes {[tuple(x.shape) for x in arrays]}")
    ax = util.canonicalize_axis(axis, nd)
    for a in arrays[1:]:
        if builtins.any(a.shape[i] != arrays[0].shape[i] for i in range(nd) if i != ax):
            raise ValueError("All input array dimensions other than the concatenation axis must "
                             f"match exactly, got shapes {[tuple(x.shape) for x in arrays]}")
    if len(arrays) == 1:
        return arrays[0]
    return lax_shapes.concatenate(arrays, ax)


concat = concatenate


def stack(arrays, axis=0, out=None, dtype=None):
    """Join arrays along a new axis.

    Example:
        >>> jnp.stack([jnp.zeros(3), jnp.ones(3)], axis=1).shape
        (3, 2)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    arrays = _concat_inputs("stack", arrays)
    shapes = {util.shape_of(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError("All input arrays must have the same shape.")
    nd = util.ndim_of(arrays[0]) + 1
    ax = util.canonicalize_axis(axis, nd)
    return concatenate([expand_dims(a, ax) for a in arrays], axis=ax, dtype=dtype)


def atleast_1d(*arys):
    """View inputs as arrays with at least one dimension.

    Example:
        >>> jnp.atleast_1d(1.0).shape
        (1,)
    """
    out = [(reshape(a, (1,)) if util.ndim_of(a) == 0 else util.asarray_any(a)) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    """View inputs as arrays with at least two dimensions.

    Example:
        >>> jnp.atleast_2d(jnp.arange(3)).shape
        (1, 3)
    """
    out = []
    for a in arys:
        a = util.asarray_any(a)
        out.append(reshape(a, (1,) * (2 - a.ndim) + tuple(a.shape)) if a.ndim < 2 else a)
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys):
    """View inputs as arrays with at least three dimensions.

    Example:
        >>> jnp.atleast_3d(jnp.arange(3)).shape
        (1, 3, 1)
    """
    out = []
    for a in arys:
        a = util.asarray_any(a)
        if a.ndim == 0:
            a = reshape(a, (1, 1, 1))
        elif a.ndim == 1:
            a = reshape(a, (1, a.shape[0], 1))
        elif a.ndim == 2:
            a = reshape(a, tuple(a.shape) + (1,))
        out.append(a)
    return out[0] if len(out) == 1 else out


def hstack(tup, dtype=None):
    """Stack along axis 1 (axis 0 for 1-D inputs).

    Example:
        >>> jnp.hstack([jnp.zeros(2), jnp.ones(3)]).shape
        (5,)
    """
    arrs = [atleast_1d(a) for a in _concat_inputs("hstack", tup)]
    return concatenate(arrs, axis=0 if arrs[0].ndim == 1 else 1, dtype=dtype)


def vstack(tup, dtype=None):
    """Stack along axis 0 after making inputs at least 2-D.

    Example:
        >>> jnp.vstack([jnp.zeros(2), jnp.ones(2)]).shape
        (2, 2)
    """
    return concatenate([atleast_2d(a) for a in _concat_inputs("vstack", tup)], axis=0, dtype=dtype)


row_stack = vstack


def dstack(tup, dtype=None):
    """Stack along axis 2 after making inputs at least 3-D.

    Example:
        >>> jnp.dstack([jnp.zeros(2), jnp.ones(2)]).shape
        (1, 2, 2)
    """
    return concatenate([atleast_3d(a) for a in _concat_inputs("dstack", tup)], axis=2, dtype=dtype)


def column_stack(tup):
    """Stack 1-D inputs as columns of a 2-D array.

    Example:
        >>> jnp.column_stack([jnp.zeros(2), jnp.ones(2)]).shape
        (2, 2)
    """
    arrs = []
    for a in _concat_inputs("column_stack", tup):
        a = util.asarray_any(a)
        arrs.append(reshape(a, (-1, 1)) if a.ndim < 2 else a)
    return concatenate(arrs, axis=1)


def flip(m, axis=None):
    """Reverse the order of elements along ``axis`` (all axes when None).

    Example:
        >>> jnp.flip(jnp.arange(3))
        Array([2, 1, 0], dtype=int32)
    """
    x = _arr("flip", m)
    axes = util.canonicalize_axes(axis, x.ndim)
    return lax_shapes.rev(x, axes) if axes else x


def fliplr(m):
    """Reverse along axis 1.

    Example:
        >>> jnp.fliplr(jnp.array([[1, 2]]))
        Array([[2, 1]], dtype=int32)
    """
    return flip(m, 1)


def flipud(m):
    """Reverse along axis 0.

    Example:
        >>> jnp.flipud(jnp.array([[1], [2]]))
        Array([[2],
               [1]], dtype=int32)
    """
    return flip(m, 0)


def _split_points(n, indices_or_sections, strict):
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        if strict and n % k:
            raise ValueError("array split does not result in an equal division")
        base, extra = divmod(n, k)
        sizes = [base + 1] * extra + [base] * (k - extra)
        points, acc = [], 0
        for s in sizes[:-1]:
            acc += s
            points.append(acc)
        return points
    return [builtins.min(builtins.max(int(i) + (n if int(i) < 0 else 0), 0), n)
            for i in indices_or_sections]


def _split(name, ary, indices_or_sections, axis, strict):
    x = _arr(name, ary)
    ax = util.canonicalize_axis(axis, x.ndim)
    n = x.shape[ax]
    bounds = [0] + _split_points(n, indices_or_sections, strict) + [n]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        hi = builtins.max(lo, hi)
        start = [0] * x.ndim
        limit = list(x.shape)
        start[ax], limit[ax] = lo, hi
        out.append(lax_shapes.slice(x, tuple(start), tuple(limit)))
    return out


def split(ary, indices_or_sections, axis=0):
    """Split into equal sections, or at the given indices, along ``axis``.

    Example:
        >>> [a.shape for a in jnp.split(jnp.arange(6), 3)]
        [(2,), (2,), (2,)]
    """
    return _split("split", ary, indices_or_sections, axis, True)


def array_split(ary, indices_or_sections, axis=0):
    """Like ``split`` but allows unequal sections.

    Example:
        >>> [a.shape for a in jnp.array_split(jnp.arange(5), 2)]
        [(3,), (2,)]
    """
    return _split("array_split", ary, indices_or_sections, axis, False)


def astype(x, dtype, /, *, copy=False, device=None):
    """``x`` converted to ``dtype`` (a strong type).

    Example:
        >>> jnp.astype(jnp.arange(3), jnp.float32).dtype
        dtype('float32')
    """
    util.check_arraylike("astype", x)
    return util.convert(util.asarray_any(x), util.requested_dtype(dtype), False)


def result_type(*args):
    """The dtype of combining ``args`` with JAX's promotion rules.

    Example:
        >>> jnp.result_type(jnp.int8, 1.0)
        dtype('float32')
    """
    return dtypes.result_type(*args)


def promote_types(a, b):
    """The smallest dtype both promote to (JAX's lattice).

    Example:
        >>> jnp.promote_types(jnp.uint8, jnp.int8)
        dtype('int16')
    """
    return dtypes.promote_types(a, b)


def can_cast(from_, to, casting="safe"):
    """numpy's ``can_cast`` on dtypes (bfloat16 under JAX's lattice for 'safe').

    Example:
        >>> jnp.can_cast(jnp.int8, jnp.int32)
        True
    """
    src = dtypes.dtype(from_)
    dst = dtypes.dtype(to)
    if casting == "safe" and (src in dtypes._CUSTOM_FLOATS or dst in dtypes._CUSTOM_FLOATS):
        return src == dst or dtypes.promote_types(src, dst) == dst
    return bool(np.can_cast(src, dst, casting=casting))


def isscalar(element):
    """True for Python scalars, numpy scalars and 0-d xjit arrays.

    Example:
        >>> jnp.isscalar(1.0), jnp.isscalar(jnp.zeros(2))
        (True, False)
    """
    if isinstance(element, (bool, int, float, complex, np.generic)):
        return True
    return util.is_xjit_value(element) and element.ndim == 0


def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """Repeat each element ``repeats`` times (an int, or per-element counts).

    Traced counts (under jit) need a static ``total_repeat_length``; given it, the
    result is cut to that length, or filled up by repeating the last element, as
    in JAX.

    Example:
        >>> jnp.repeat(jnp.array([1, 2]), 2)
        Array([1, 1, 2, 2], dtype=int32)
    """
    x = _arr("repeat", a)
    if axis is None:
        x = ravel(x)
        axis = 0
    ax = util.canonicalize_axis(axis, x.ndim)
    if total_repeat_length is not None:
        total_repeat_length = operator.index(total_repeat_length)
        if total_repeat_length < 0:
            raise ValueError(f"total_repeat_length must be non-negative, got "
                             f"{total_repeat_length}")
    traced = util.is_tracer(repeats) or (
        isinstance(repeats, (list, tuple)) and any(util.is_tracer(r) for r in repeats))
    if traced and total_repeat_length is None:
        raise ConcretizationTypeError(
            "When jit-compiling jnp.repeat, the total number of repeats must be static. To "
            "fix this, either specify a static value for `repeats`, or pass a static value "
            "to `total_repeat_length`.")
    if not traced:
        counts = np.asarray(repeats)
        if not (counts.dtype.kind in "iu" or counts.dtype == np.bool_):
            raise TypeError(f"repeat: repeats must be integers, got dtype {counts.dtype}")
        if np.any(counts < 0):
            raise ValueError("repeats may not contain negative values.")
        if counts.ndim == 0 and total_repeat_length is None:
            r = int(counts)
            expanded = expand_dims(x, ax + 1)
            target = tuple(x.shape[:ax + 1]) + (r,) + tuple(x.shape[ax + 1:])
            return reshape(util.broadcast_to(expanded, target),
                           tuple(x.shape[:ax]) + (x.shape[ax] * r,) + tuple(x.shape[ax + 1:]))
        counts = np.broadcast_to(counts.ravel(), (x.shape[ax],)) if counts.size == 1 else \
            counts.ravel()
        if counts.shape[0] != x.shape[ax]:
            raise ValueError(f"repeat: {counts.shape[0]} repeats for an axis of length "
                             f"{x.shape[ax]}")
        total = int(counts.sum()) if total_repeat_length is None else total_repeat_length
        if x.shape[ax] == 0 or total == 0:
            return lax_shapes.slice_in_dim(x, 0, 0, 1, ax) if x.shape[ax] else x
        starts = np.cumsum(counts) - counts
        # Output position j takes the last element whose block starts at or before j.
        idx = (starts[None, :] <= np.arange(total)[:, None]).sum(axis=1) - 1
        return indexing.getitem(x, (slice(None),) * ax + (idx,))
    counts = util.asarray_any(repeats) if not isinstance(repeats, (list, tuple)) else \
        stack([util.asarray_any(r) for r in repeats])
    if not dtypes.issubdtype(counts.dtype, np.integer):
        raise TypeError(f"repeat: repeats must be integers, got dtype {counts.dtype}")
    counts = util.broadcast_to(ravel(counts), (x.shape[ax],))
    if x.shape[ax] == 0 or total_repeat_length == 0:
        return lax_shapes.slice_in_dim(x, 0, 0, 1, ax) if x.shape[ax] else x
    idx_dtype = dtypes.default_int_dtype()
    counts = util.convert(counts, idx_dtype)
    ends = lax_cumulative.cumsum(counts)
    starts = lax_ew.sub(ends, counts)
    n, total = x.shape[ax], total_repeat_length
    positions = lax_shapes.broadcasted_iota(idx_dtype, (total, n), 0)
    started = lax_ew.le(lax_shapes.broadcast_in_dim(starts, (total, n), (1,)), positions)
    idx = lax_ew.sub(lax_reductions.reduce_sum(util.convert(started, idx_dtype), (1,)),
                     util.convert(1, idx_dtype))
    return indexing.getitem(x, (slice(None),) * ax + (idx,))


def tile(A, reps):
    """Repeat the whole array ``reps`` times along each axis.

    Example:
        >>> jnp.tile(jnp.array([1, 2]), 2)
        Array([1, 2, 1, 2], dtype=int32)
    """
    x = _arr("tile", A)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    nd = max(x.ndim, len(reps))
    reps = (1,) * (nd - len(reps)) + reps
    x = reshape(x, (1,) * (nd - x.ndim) + tuple(x.shape))
    interleaved = []
    for r, d in zip(reps, x.shape):
        interleaved += [r, d]
    dims = tuple(range(1, 2 * nd, 2))
    y = lax_shapes.broadcast_in_dim(x, tuple(interleaved), dims)
    return reshape(y, tuple(r * d for r, d in zip(reps, x.shape)))
