"""``unique`` with JAX's semantics: sorted unique values (NaNs merged when
``equal_nan``), first-occurrence indices, the inverse and the counts; along
an axis, unique slices. With ``size=`` it runs under jit: the result is cut or
padded to ``size`` (padding with the smallest value, or ``fill_value``).

It is one lexicographic ``lax.sort`` of the (flattened) slices with their
positions, a mask of where a new value starts, and compactions by further
sorts (sorting.compress_front); without ``size`` the last steps run on the
host, which needs a concrete input, as in JAX.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.unique(jnp.array([3, 1, 3, 2]))
    Array([1, 2, 3], dtype=int32)
"""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.errors import ConcretizationTypeError
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import reductions as lax_red
from xjit._src.lax import shapes as lax_shapes
from xjit._src.lax import sorting as lax_sort
from xjit._src.numpy import cumulative, shape_ops, util
from xjit._src.numpy.sorting import _static_int, compress_front

_SIZE_HINT = ("When jnp.unique is used within jit, the size argument must be specified: "
              "the number of unique values is not known while tracing.")


def _sorted_rows(aux):
    """Rows of 2-d ``aux`` sorted lexicographically (stable), as columns, and the
    permutation: one sort with every column a key."""
    n, m = aux.shape
    cols = [lax_shapes.reshape(lax_shapes.slice_in_dim(aux, j, j + 1, axis=1), (n,))
            for j in range(m)]
    iota = lax_shapes.iota(dtypes.default_int_dtype(), n)
    out = lax_sort.sort((*cols, iota), num_keys=m)
    return list(out[:-1]), out[-1]


def _start_mask(cols, equal_nan: bool):
    """True where a sorted row differs from the one before it (and at 0)."""
    n = cols[0].shape[0]
    diff = None
    for c in cols:
        a = lax_shapes.slice_in_dim(c, 1, n)
        b = lax_shapes.slice_in_dim(c, 0, n - 1)
        ne = lax_ew.ne(a, b)
        if equal_nan and dtypes.issubdtype(c.dtype, np.inexact):
            both_nan = lax_ew.bitwise_and(lax_ew.ne(a, a), lax_ew.ne(b, b))
            ne = lax_ew.bitwise_and(ne, lax_ew.bitwise_not(both_nan))
        diff = ne if diff is None else lax_ew.bitwise_or(diff, ne)
    true = util.convert(np.ones(1, np.bool_), np.bool_)
    return lax_shapes.concatenate([true, diff], 0)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, size=None, fill_value=None, sorted=True):
    """Sorted unique elements of ``ar`` (unique slices along ``axis``).

    Example:
        >>> jnp.unique(jnp.array([3, 1, 3]), return_counts=True)
        (Array([1, 3], dtype=int32), Array([1, 2], dtype=int32))
    """
    del sorted  # always sorted, as in JAX
    util.check_arraylike("unique", ar)
    x = util.asarray_any(ar)
    if size is None:
        if util.is_tracer(x):
            raise ConcretizationTypeError(
                x, "The error arose for the first argument of jnp.unique(). " + _SIZE_HINT)
    else:
        size = _static_int("unique", "size", size)
        if size < 0:
            raise ValueError(f"unique: size must be >= 0, got {size}")
    in_shape = tuple(x.shape)
    if axis is None:
        x = lax_shapes.reshape(x, (util.size_of(in_shape),))
        ax = 0
    else:
        if x.ndim == 0:
            raise ValueError(f"unique: axis {axis} is out of bounds for array of dimension 0")
        ax = util.canonicalize_axis(axis, x.ndim)
    if x.shape[ax] == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    aux = shape_ops.moveaxis(x, ax, 0)
    rest = tuple(aux.shape[1:])
    n, m = aux.shape[0], util.size_of(rest)
    idt = dtypes.default_int_dtype()
    if dtypes.issubdtype(aux.dtype, np.complexfloating):
        # As JAX: a NaN in either part makes the whole value NaN.
        nan = util.broadcast_to(util.convert(np.nan, aux.dtype), aux.shape)
        aux = lax_ew.select(lax_ew.ne(aux, aux), nan, aux)
    if n == 0 or m == 0:
        return _unique_empty(x, ax, n, m, rest, return_index, return_inverse, return_counts,
                             size, fill_value, in_shape if axis is None else None)
    cols, perm = _sorted_rows(lax_shapes.reshape(aux, (n, m)))
    mask = _start_mask(cols, bool(equal_nan))
    if size is None:
        return _finish_host(cols, perm, mask, rest, ax, return_index, return_inverse,
                            return_counts, in_shape if axis is None else None, aux.dtype)
    return _finish_sized(cols, perm, mask, rest, ax, n, size, fill_value, return_index,
                         return_inverse, return_counts, in_shape if axis is None else None)


def _rows_to_values(cols, rows, rest, ax):
    """Columns of ``rows`` rows back to the value array with the unique axis at ``ax``."""
    stacked = lax_shapes.concatenate([lax_shapes.reshape(c, (rows, 1)) for c in cols], 1)
    out = lax_shapes.reshape(stacked, (rows, *rest))
    return shape_ops.moveaxis(out, 0, ax) if rest else out


def _inverse(perm, mask, idt):
    # inv[perm[i]] = (number of starts up to i) - 1, un-permuted by sorting on perm.
    group = lax_ew.sub(cumulative.cumsum(lax_ew.convert_element_type(mask, idt)),
                       util.broadcast_to(util.convert(1, idt), mask.shape))
    _, inv = lax_sort.sort_key_val(perm, group)
    return inv


def _finish_host(cols, perm, mask, rest, ax, return_index, return_inverse, return_counts,
                 flat_shape, dtype):
    idt = dtypes.default_int_dtype()
    hmask = np.asarray(mask)
    starts = np.nonzero(hmask)[0]
    hcols = [np.asarray(c)[starts] for c in cols]
    k = len(starts)
    values = np.stack(hcols, 1).reshape((k, *rest)) if hcols else np.zeros((k, *rest))
    values = np.moveaxis(values, 0, ax) if rest else values
    ret = [util.convert(values.astype(dtype), dtype)]
    if return_index:
        ret.append(util.convert(np.asarray(perm)[starts].astype(idt), idt))
    if return_inverse:
        inv = _inverse(perm, mask, idt)
        ret.append(lax_shapes.reshape(inv, flat_shape) if flat_shape is not None else inv)
    if return_counts:
        ret.append(util.convert(np.diff(np.append(starts, hmask.size)).astype(idt), idt))
    return ret[0] if len(ret) == 1 else tuple(ret)


def _finish_sized(cols, perm, mask, rest, ax, n, size, fill_value, return_index,
                  return_inverse, return_counts, flat_shape):
    idt = dtypes.default_int_dtype()
    iota = lax_shapes.iota(idt, n)
    outs = compress_front(mask, [*cols, perm, iota], size + 1)
    ucols, uperm, ustart = outs[:-2], outs[-2], outs[-1]
    count = lax_red.reduce_sum(lax_ew.convert_element_type(mask, idt), (0,))
    positions = lax_shapes.iota(idt, size + 1)
    valid_all = lax_ew.lt(positions, util.broadcast_to(count, (size + 1,)))
    valid = lax_shapes.slice_in_dim(valid_all, 0, size)
    values = []
    for uc, c in zip(ucols, cols):
        uc = lax_shapes.slice_in_dim(uc, 0, size)
        if fill_value is None:  # JAX pads with element 0 of the sorted values
            fill = lax_shapes.broadcast_in_dim(lax_shapes.slice_in_dim(c, 0, 1), (size,), (0,))
        else:
            fill = util.broadcast_to(util.convert(np.asarray(fill_value).astype(c.dtype)
                                                  if not util.is_xjit_value(fill_value)
                                                  else fill_value, c.dtype), (size,))
        values.append(lax_ew.select(valid, uc, fill))
    ret = [_rows_to_values(values, size, rest, ax)]
    if return_index:
        up = lax_shapes.slice_in_dim(uperm, 0, size)
        first = lax_shapes.broadcast_in_dim(lax_shapes.slice_in_dim(perm, 0, 1), (size,), (0,))
        ret.append(lax_ew.select(valid, up, first))
    if return_inverse:
        inv = _inverse(perm, mask, idt)
        ret.append(lax_shapes.reshape(inv, flat_shape) if flat_shape is not None else inv)
    if return_counts:
        # Start positions, then n where there is no next start: their differences.
        nn = util.broadcast_to(util.convert(n, idt), (size + 1,))
        ends = lax_ew.select(valid_all, ustart, nn)
        counts = lax_ew.sub(lax_shapes.slice_in_dim(ends, 1, size + 1),
                            lax_shapes.slice_in_dim(ends, 0, size))
        ret.append(counts)
    return ret[0] if len(ret) == 1 else tuple(ret)


def _unique_empty(x, ax, n, m, rest, return_index, return_inverse, return_counts, size,
                  fill_value, flat_shape):
    # Zero rows (or rows of zero elements): at most one unique (empty) slice.
    idt = dtypes.default_int_dtype()
    rows = (1 if n else 0) if size is None else size
    shape = (rows, *rest)
    if size and fill_value is not None:
        values = np.full(shape, np.asarray(fill_value).astype(x.dtype), x.dtype)
    else:
        values = np.zeros(shape, x.dtype)
    values = np.moveaxis(values, 0, ax) if rest else values
    ret = [util.convert(values, x.dtype)]
    if return_index:
        ret.append(util.convert(np.zeros(rows if n else 0, idt), idt))
    if return_inverse:
        inv = np.zeros(n, idt)
        ret.append(util.convert(inv.reshape(flat_shape) if flat_shape is not None else inv, idt))
    if return_counts:
        ret.append(util.convert(np.full(1, n, idt) if n else np.zeros(0, idt), idt))
    return ret[0] if len(ret) == 1 else tuple(ret)
