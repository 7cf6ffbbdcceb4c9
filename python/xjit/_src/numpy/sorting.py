"""Sorting and searching in xjit.numpy: sort, argsort, lexsort, partition,
argpartition, searchsorted, nonzero, argwhere, flatnonzero, with JAX's
semantics (NaNs sort last; -0.0 ties with 0.0; stable by default).

Most is built on ``lax.sort``: a compaction (nonzero with ``size=``) is a
stable sort of (not mask, positions), an inverse permutation is an argsort of
the permutation. searchsorted's default 'scan' is JAX's binary search (a
gather a level).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.argsort(jnp.array([3, 1, 2]))
    Array([1, 2, 0], dtype=int32)
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import core, dtypes
from xjit._src.errors import ConcretizationTypeError
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import reductions as lax_red
from xjit._src.lax import shapes as lax_shapes
from xjit._src.lax import sorting as lax_sort
from xjit._src.numpy import shape_ops, util


def _arr(name: str, a):
    util.check_arraylike(name, a)
    return util.asarray_any(a)


def _int_dtype() -> np.dtype:
    return dtypes.default_int_dtype()


def _flatten(x):
    return lax_shapes.reshape(x, (util.size_of(x.shape),)) if x.ndim != 1 else x


def _static_int(name: str, what: str, v) -> int:
    if isinstance(v, core.Tracer):
        raise ConcretizationTypeError(v, f"The {what} argument of jnp.{name} must be static.")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"jnp.{name}: {what} must be an integer, got {v!r}") from None


def _check_kind_order(name: str, kind, order) -> None:
    if kind is not None:
        raise TypeError(f"'kind' argument to {name} is not supported. Use stable=True or "
                        f"stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """A sorted copy of ``a`` along ``axis`` (flattened when None); NaNs last.
    ``descending`` reverses the ascending order (as JAX does).

    Example:
        >>> jnp.sort(jnp.array([2., jnp.nan, 1.]))
        Array([ 1.,  2., nan], dtype=float32)
    """
    _check_kind_order("sort", kind, order)
    x = _arr("sort", a)
    if axis is None:
        x, axis = _flatten(x), 0
    if x.ndim == 0:
        raise ValueError("sort: axis 0 is out of bounds for array of dimension 0")
    d = util.canonicalize_axis(axis, x.ndim)
    out = lax_sort.sort(x, dimension=d, is_stable=bool(stable))
    return lax_shapes.rev(out, (d,)) if descending else out


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False, dtype=None):
    """Indices that sort ``a`` along ``axis`` (flattened when None). A stable
    descending argsort keeps equal elements in their original order.

    Example:
        >>> jnp.argsort(jnp.array([1, 3, 1]), descending=True)
        Array([1, 0, 2], dtype=int32)
    """
    _check_kind_order("argsort", kind, order)
    x = _arr("argsort", a)
    if axis is None:
        x, axis = _flatten(x), 0
    if x.ndim == 0:
        raise ValueError("argsort: axis 0 is out of bounds for array of dimension 0")
    d = util.canonicalize_axis(axis, x.ndim)
    idt = util.requested_dtype(dtype) or _int_dtype()
    if not dtypes.issubdtype(idt, np.integer):
        raise TypeError(f"argsort: dtype must be an integer type, got {idt}")
    iota = lax_shapes.broadcasted_iota(idt, x.shape, d)
    if descending and stable:
        x, iota = lax_shapes.rev(x, (d,)), lax_shapes.rev(iota, (d,))
    _, idx = lax_sort.sort_key_val(x, iota, dimension=d, is_stable=bool(stable))
    return lax_shapes.rev(idx, (d,)) if descending else idx


def lexsort(keys, axis=-1):
    """Indices sorting by several keys: the last key is the primary one.

    Example:
        >>> jnp.lexsort((jnp.array([1, 0, 1]), jnp.array([0, 0, 1])))
        Array([1, 0, 2], dtype=int32)
    """
    if isinstance(keys, (tuple, list)):
        arrays = [_arr("lexsort", k) for k in keys]
    else:
        k = _arr("lexsort", keys)
        arrays = [k[i] for i in range(k.shape[0])] if k.ndim else [k]
    if not arrays:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({tuple(k.shape) for k in arrays}) > 1:
        raise ValueError("all keys need to be the same shape")
    shape = tuple(arrays[0].shape)
    if not shape:
        return util.convert(0, _int_dtype())
    d = util.canonicalize_axis(axis, len(shape))
    iota = lax_shapes.broadcasted_iota(_int_dtype(), shape, d)
    out = lax_sort.sort((*arrays[::-1], iota), dimension=d, num_keys=len(arrays))
    return out[-1]


def _top_k_last(x, k: int):
    return lax_sort.top_k(x, k)


def _neg_for_partition(x):
    # JAX's trick keeps 0 the smallest unsigned value: -(x + 1) ordered as -x would be.
    if dtypes.issubdtype(x.dtype, np.unsignedinteger):
        one = util.convert(1, x.dtype)
        return lax_ew.neg(lax_ew.add(x, util.broadcast_to(one, x.shape)))
    return lax_ew.neg(x)


def _partition_args(name, a, kth, axis):
    x = _arr(name, a)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise NotImplementedError(f"jnp.{name} for complex dtype is not implemented.")
    if x.ndim == 0:
        raise ValueError(f"{name}: axis {axis} is out of bounds for array of dimension 0")
    ax = util.canonicalize_axis(axis, x.ndim)
    kth = util.canonicalize_axis(_static_int(name, "kth", kth), x.shape[ax])
    return shape_ops.swapaxes(x, ax, -1), ax, kth


def partition(a, kth, axis=-1):
    """``a`` rearranged along ``axis`` so that position ``kth`` holds the value a
    full sort would put there, smaller ones before it (sorted) and larger ones
    after (in descending order, as JAX's top_k-based implementation leaves them).

    Example:
        >>> jnp.partition(jnp.array([3, 1, 2, 5, 4]), 2)[2]
        Array(3, dtype=int32)
    """
    x, ax, kth = _partition_args("partition", a, kth, axis)
    n = x.shape[-1]
    neg = _neg_for_partition(x)
    bottom = _top_k_last(neg, kth + 1)[0]
    if dtypes.issubdtype(x.dtype, np.unsignedinteger):
        one = util.convert(1, x.dtype)
        bottom = lax_ew.sub(lax_ew.neg(bottom), util.broadcast_to(one, bottom.shape))
    else:
        bottom = lax_ew.neg(bottom)
    top = _top_k_last(x, n - kth - 1)[0]
    out = lax_shapes.concatenate([bottom, top], x.ndim - 1)
    return shape_ops.swapaxes(out, -1, ax)


def argpartition(a, kth, axis=-1):
    """Indices that partition ``a`` around ``kth`` (see ``partition``): the
    ``kth + 1`` smallest first (in order), then the others by increasing index.

    Example:
        >>> jnp.argpartition(jnp.array([3, 1, 2, 5, 4]), 1)[:2]
        Array([1, 2], dtype=int32)
    """
    x, ax, kth = _partition_args("argpartition", a, kth, axis)
    n = x.shape[-1]
    order = _top_k_last(_neg_for_partition(x), n)[1]   # ascending, ties by index
    bottom = lax_shapes.slice_in_dim(order, 0, kth + 1, axis=x.ndim - 1)
    # JAX takes the rest by a top_k of a 0/1 proxy: the indices not in bottom,
    # increasing. rank[i] (position of i in `order`) <= kth marks bottom.
    iota = lax_shapes.broadcasted_iota(np.int32, order.shape, x.ndim - 1)
    _, rank = lax_sort.sort_key_val(order, iota, dimension=x.ndim - 1)
    kth_c = util.broadcast_to(util.convert(kth, np.int32), rank.shape)
    in_bottom = lax_ew.le(rank, kth_c)
    _, rest = lax_sort.sort_key_val(in_bottom, iota, dimension=x.ndim - 1)
    top = lax_shapes.slice_in_dim(rest, 0, n - kth - 1, axis=x.ndim - 1)
    out = lax_shapes.concatenate([bottom, top], x.ndim - 1)
    return shape_ops.swapaxes(out, -1, ax)


# ------------------------------------------------------------------- searchsorted

_SEARCH_METHODS = ("scan", "scan_unrolled", "sort", "compare_all")


def _rank(x):
    """Position of each element of 1-d ``x`` in its stable sort."""
    iota = lax_shapes.iota(np.int32, x.shape[0])
    _, perm = lax_sort.sort_key_val(x, iota)
    _, rank = lax_sort.sort_key_val(perm, iota)
    return rank


def _binary_search(a, q, side: str, unrolled: bool, take):
    """JAX's 'scan' method: every query's binary search, one level at a time
    for all queries (a gather of a[mid] and a compare in the sort's order),
    ceil(log2(n + 1)) levels; the answer is the final upper bound."""
    from xjit._src.lax import loops
    n = a.shape[0]
    levels = int(np.ceil(np.log2(n + 1)))
    i32, u32 = np.dtype(np.int32), np.dtype(np.uint32)
    one = util.broadcast_to(util.convert(1, u32), q.shape)

    def level(_, state):
        low, high = state
        # The sum as unsigned: low + high may pass 2**31 - 1 for long arrays;
        # halved by a shift (a division is one per element).
        total = lax_ew.add(lax_ew.convert_element_type(low, u32),
                           lax_ew.convert_element_type(high, u32))
        mid = lax_ew.convert_element_type(lax_ew.shift_right_logical(total, one), i32)
        at_mid = take(a, mid, mode="promise_in_bounds")
        # left: q <= a[mid] puts the answer at or before mid; right: q < a[mid].
        go_left = _total_lt(q, at_mid, or_equal=side == "left")
        return (lax_ew.select(go_left, low, mid), lax_ew.select(go_left, mid, high))

    state = (util.broadcast_to(util.convert(0, i32), q.shape),
             util.broadcast_to(util.convert(n, i32), q.shape))
    if unrolled:
        for k in range(levels):
            state = level(k, state)
    else:
        state = loops.fori_loop(0, levels, level, state)
    return state[1]


def _total_lt(x, y, or_equal: bool):
    # The sort comparator's order (NaN last, -0.0 == 0.0) element-wise.
    out = lax_sort.lt_comparator(1, [x.dtype])(x, y)
    if or_equal:
        out = lax_ew.bitwise_not(lax_sort.lt_comparator(1, [x.dtype])(y, x))
    return out


def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Indices where the elements of ``v`` would be inserted into sorted 1-d
    ``a`` to keep it sorted (``side='left'``: before equal entries; ``'right'``:
    after). Every method gives the same int32 result (the sort's order: NaNs
    last, -0.0 ties with 0.0); 'scan' (a loop) and 'scan_unrolled' search
    every query one level at a time as JAX does, 'sort' co-sorts queries and
    entries, 'compare_all' compares every pair (docs/semantics.md).

    Example:
        >>> jnp.searchsorted(jnp.array([1, 2, 3]), jnp.array([2, 5]))
        Array([1, 3], dtype=int32)
    """
    util.check_arraylike("searchsorted", a, v)
    if side not in ("left", "right"):
        raise ValueError(f"{side!r} is an invalid value for keyword 'side'. "
                         f"Expected one of ['left', 'right'].")
    if method not in _SEARCH_METHODS:
        raise ValueError(f"method={method!r} not recognized; expected one of "
                         f"{list(_SEARCH_METHODS)}")
    a = util.asarray_any(a)
    if a.ndim != 1:
        raise ValueError("a should be 1-dimensional")
    a, q = util.promote_dtypes(a, v)
    from xjit._src.numpy import indexing
    if sorter is not None:
        a = indexing.take(a, sorter, mode="promise_in_bounds")  # one gather
    out_dt = np.dtype(np.int32)
    qshape = tuple(q.shape)
    qsize = util.size_of(qshape)
    n = a.shape[0]
    if n == 0 or qsize == 0:
        return util.convert(np.zeros(qshape, out_dt), out_dt)
    qf = lax_shapes.reshape(q, (qsize,))
    if method == "compare_all":
        aa = lax_shapes.broadcast_in_dim(a, (n, qsize), (0,))
        qq = lax_shapes.broadcast_in_dim(qf, (n, qsize), (1,))
        hit = _total_lt(aa, qq, or_equal=side == "right")
        out = lax_red.reduce_sum(lax_ew.convert_element_type(hit, out_dt), (0,))
    elif method in ("scan", "scan_unrolled"):
        out = _binary_search(a, qf, side, unrolled=method == "scan_unrolled",
                             take=indexing.take)
    else:
        if side == "left":
            index = lax_shapes.slice_in_dim(_rank(lax_shapes.concatenate([qf, a], 0)), 0, qsize)
        else:
            index = lax_shapes.slice_in_dim(_rank(lax_shapes.concatenate([a, qf], 0)), n,
                                            n + qsize)
        out = lax_ew.sub(index, _rank(qf))
    return lax_shapes.reshape(out, qshape)


# ---------------------------------------------------------------------- nonzero

def compress_front(mask, operands, size: int):
    """The entries of 1-d ``operands`` where 1-d bool ``mask`` holds, in order,
    then the others, cut or zero-padded to ``size``: a stable sort by ``~mask``."""
    n = mask.shape[0]
    keys = lax_ew.bitwise_not(mask)
    out = lax_sort.sort((keys, *operands), num_keys=1)[1:]
    res = []
    for o in out:
        if size <= n:
            o = lax_shapes.slice_in_dim(o, 0, size)
        else:
            zero = util.convert(0, o.dtype)
            o = lax_shapes.pad(o, zero, [(0, size - n, 0)])
        res.append(o)
    return res


def _nonzero_mask(x):
    if x.dtype == np.bool_:
        return x
    zero = util.broadcast_to(util.convert(0, x.dtype), x.shape)
    return lax_ew.ne(x, zero)


def _fill_tuple(fill_value, ndim):
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * ndim
    if len(fills) != ndim or any(np.shape(f) != () for f in fills):
        raise ValueError(f"fill_value must be a scalar or a tuple of length {ndim}; "
                         f"got {fill_value}")
    return fills


def nonzero(a, *, size=None, fill_value=None):
    """Indices of the nonzero elements, one int array per axis. Under jit give
    ``size`` (the result is cut or padded to it, padding with ``fill_value``,
    0 by default); without it the input must be concrete.

    Example:
        >>> jnp.nonzero(jnp.array([0, 3, 0, 4]), size=3, fill_value=-1)
        (Array([ 1,  3, -1], dtype=int32),)
    """
    x = _arr("nonzero", a)
    if x.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. "
                         "Use jnp.atleast_1d(scalar).nonzero() instead.")
    idt = _int_dtype()
    if size is None:
        if util.is_tracer(x):
            raise ConcretizationTypeError(
                x, "The size argument of jnp.nonzero must be statically specified to use "
                   "jnp.nonzero within JAX transformations.")
        if fill_value is not None:
            _fill_tuple(fill_value, x.ndim)
        return tuple(util.convert(r.astype(idt), idt) for r in np.nonzero(np.asarray(x)))
    size = _static_int("nonzero", "size", size)
    if size < 0:
        raise ValueError(f"nonzero: size must be >= 0, got {size}")
    fills = None if fill_value is None else _fill_tuple(fill_value, x.ndim)
    n = util.size_of(x.shape)
    if n == 0 or size == 0:  # JAX returns zeros here, whatever fill_value says
        return tuple(util.convert(np.zeros(size, idt), idt) for _ in range(x.ndim))
    mask = _flatten(_nonzero_mask(x))
    iota = lax_shapes.iota(idt, n)
    (flat,) = compress_front(mask, [iota], size)
    outs = []
    strides = [int(np.prod(x.shape[d + 1:], dtype=np.int64)) for d in range(x.ndim)]
    for stride, dim in zip(strides, x.shape):
        v = flat
        if stride != 1:
            v = lax_ew.div(v, util.broadcast_to(util.convert(stride, idt), (size,)))
        if x.ndim > 1:
            v = lax_ew.rem(v, util.broadcast_to(util.convert(dim, idt), (size,)))
        outs.append(v)
    count = lax_red.reduce_sum(lax_ew.convert_element_type(mask, idt), (0,))
    valid = lax_ew.lt(lax_shapes.iota(idt, size), util.broadcast_to(count, (size,)))
    zero = util.broadcast_to(util.convert(0, idt), (size,))
    res = []
    for i, v in enumerate(outs):
        fill = zero if fills is None else util.broadcast_to(util.convert(fills[i], idt), (size,))
        res.append(lax_ew.select(valid, v, fill))
    return tuple(res)


def flatnonzero(a, *, size=None, fill_value=None):
    """Indices of the nonzero elements of ``ravel(a)``.

    Example:
        >>> jnp.flatnonzero(jnp.array([[0, 1], [1, 0]]))
        Array([1, 2], dtype=int32)
    """
    x = _arr("flatnonzero", a)
    return nonzero(lax_shapes.reshape(x, (util.size_of(x.shape),)), size=size,
                   fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """Indices of the nonzero elements as an ``(N, a.ndim)`` array.

    Example:
        >>> jnp.argwhere(jnp.array([[0, 1], [1, 0]]))
        Array([[0, 1],
               [1, 0]], dtype=int32)
    """
    x = _arr("argwhere", a)
    ndim = x.ndim
    if ndim == 0:
        x = lax_shapes.reshape(x, (1,))
    cols = nonzero(x, size=size, fill_value=fill_value)
    rows = cols[0].shape[0]
    if ndim == 0:
        return util.convert(np.zeros((rows, 0), _int_dtype()), _int_dtype())
    stacked = [lax_shapes.reshape(c, (rows, 1)) for c in cols]
    return lax_shapes.concatenate(stacked, 1)
