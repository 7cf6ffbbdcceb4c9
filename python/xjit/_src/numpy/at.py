"""``x.at[idx]``: JAX's functional index updates, on ``lax.scatter``.

Any numpy index works: the update is a scatter into the flattened array at
the positions ``arange(x.size).reshape(x.shape)[idx]`` (a gather), so slices,
None, Ellipsis, boolean masks and integer arrays mean exactly what they mean
for ``x[idx]``. Two common forms take a direct route: static basic indices
with ``set`` become one ``dynamic_update_slice``, and integer arrays on
leading axes with full slices after them one scatter of whole windows (rows).
``mode`` is JAX's: by default out-of-bounds updates are dropped and ``get``
clamps; ``'clip'`` clamps; ``'drop'``/``'fill'`` drop (``get`` fills).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.zeros(4).at[jnp.array([1, 1, 3])].add(1.0)
    Array([0., 2., 0., 1.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.lax import slicing as lax_slicing
from xjit._src.numpy import indexing, util


class _IndexUpdateHelper:
    """The object ``x.at`` returns; ``x.at[idx]`` gives an ``_IndexUpdateRef``."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    """``x.at[idx]``: call ``set``, ``add``, ... to get the updated copy."""
    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None):
        """``x[idx]``; ``mode='fill'`` returns ``fill_value`` out of bounds."""
        return indexing.getitem(self.array, self.index, mode=mode, fill_value=fill_value,
                                indices_are_sorted=indices_are_sorted,
                                unique_indices=unique_indices)

    def _update(self, name, values, scatter, indices_are_sorted, unique_indices, mode):
        return _scatter_update(name, self.array, self.index, values, scatter,
                               indices_are_sorted, unique_indices, mode)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[idx] = values``."""
        return self._update("set", values, lax_slicing.scatter, indices_are_sorted,
                            unique_indices, mode)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[idx] += values`` (every duplicate index adds)."""
        return self._update("add", values, lax_slicing.scatter_add, indices_are_sorted,
                            unique_indices, mode)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[idx] -= values``."""
        return self._update("subtract", values, lax_slicing.scatter_sub, indices_are_sorted,
                            unique_indices, mode)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[idx] *= values``."""
        return self._update("multiply", values, lax_slicing.scatter_mul, indices_are_sorted,
                            unique_indices, mode)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[idx] /= values`` (JAX: ``x / ones.at[idx].multiply(values)``)."""
        from xjit._src.numpy import elementwise as np_ew
        x = util.asarray_any(self.array)
        ones = util.broadcast_to(util.convert(1, x.dtype), tuple(x.shape))
        return np_ew.divide(x, _scatter_update("divide", ones, self.index, values,
                                               lax_slicing.scatter_mul, indices_are_sorted,
                                               unique_indices, mode))

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[idx] **= values`` (JAX: ``x ** ones.at[idx].multiply(values)``)."""
        from xjit._src.numpy import elementwise as np_ew
        x = util.asarray_any(self.array)
        ones = util.broadcast_to(util.convert(1, x.dtype), tuple(x.shape))
        return np_ew.power(x, _scatter_update("power", ones, self.index, values,
                                              lax_slicing.scatter_mul, indices_are_sorted,
                                              unique_indices, mode))

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[idx] = minimum(x[idx], values)``."""
        return self._update("min", values, lax_slicing.scatter_min, indices_are_sorted,
                            unique_indices, mode)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[idx] = maximum(x[idx], values)``."""
        return self._update("max", values, lax_slicing.scatter_max, indices_are_sorted,
                            unique_indices, mode)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``func`` applied at ``idx`` (numpy's ``ufunc.at``): once per index."""
        x = util.asarray_any(self.array)
        pos = _positions(x, self.index, mode)
        flat = lax_shapes.reshape(x, (util.size_of(x.shape),))
        dn = lax_slicing.ScatterDimensionNumbers((), (0,), (0,))
        idx = lax_shapes.reshape(pos, tuple(pos.shape) + (1,))
        out = lax_slicing.scatter_apply(flat, idx, func, dn, update_shape=tuple(pos.shape),
                                        indices_are_sorted=indices_are_sorted,
                                        unique_indices=unique_indices)
        return lax_shapes.reshape(out, tuple(x.shape))


def _positions(x, index, mode):
    """The flat positions ``x[index]`` reads; out of bounds: clamped for 'clip',
    else -1 (which every scatter drops)."""
    size = util.size_of(x.shape)
    idt = dtypes.default_int_dtype()
    iota = lax_shapes.reshape(lax_shapes.iota(idt, size), tuple(x.shape))
    parsed = lax_slicing.GatherScatterMode.from_any(mode)
    if parsed == lax_slicing.GatherScatterMode.CLIP:
        return indexing.getitem(iota, index, mode="clip")
    return indexing.getitem(iota, index, mode="fill", fill_value=-1)


def _basic_only(entries) -> bool:
    return all(e is None or (isinstance(e, slice) and e.step in (None, 1))
               or indexing._is_int_scalar(e) for e in entries)


def _scatter_update(name, x, index, values, scatter, indices_are_sorted, unique_indices, mode):
    x = util.asarray_any(x)
    util.check_arraylike(f"at[].{name}", values)
    y = util.convert(values, x.dtype, util.is_weak(x)) if util.dtype_of(values) != x.dtype \
        else util.asarray_any(values)
    entries = indexing._expand(index, tuple(x.shape))
    if scatter is lax_slicing.scatter and _basic_only(entries) and mode in (None, "drop",
                                                                           "fill",
                                                                           "promise_in_bounds"):
        out = _set_basic(x, entries, y)
        if out is not None:
            return out
    rows = _leading_arrays(x, entries)
    if rows is not None:
        return _scatter_rows(x, rows, y, scatter, indices_are_sorted, unique_indices, mode)
    pos = _positions(x, index, mode)
    try:
        y = util.broadcast_to(y, tuple(pos.shape))
    except ValueError:
        raise ValueError(f"at[].{name}: shape mismatch: values of shape "
                         f"{util.shape_of(values)} cannot be broadcast to the indexed shape "
                         f"{tuple(pos.shape)}") from None
    flat = lax_shapes.reshape(x, (util.size_of(x.shape),))
    dn = lax_slicing.ScatterDimensionNumbers((), (0,), (0,))
    idx = lax_shapes.reshape(pos, tuple(pos.shape) + (1,))
    out = scatter(flat, idx, y, dn, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices, mode="promise_in_bounds")
    return lax_shapes.reshape(out, tuple(x.shape))


def _set_basic(x, entries, y):
    """``x[ints and unit-step slices] = y`` as one dynamic_update_slice (None when
    an index is out of bounds: the general route then drops it, as JAX)."""
    starts, sizes, view = [], [], []
    axis = 0
    for e in entries:
        if e is None:
            view.append(1)
            continue
        n = x.shape[axis]
        if isinstance(e, slice):
            lo, hi, _ = e.indices(n)
            count = max(hi - lo, 0)
            starts.append(lo)
            sizes.append(count)
            view.append(count)
        else:
            i = int(e)
            if not -n <= i < n:
                return None
            starts.append(i + n if i < 0 else i)
            sizes.append(1)
        axis += 1
    try:
        y = util.broadcast_to(y, tuple(view))
    except ValueError:
        raise ValueError(f"at[].set: shape mismatch: values of shape {tuple(y.shape)} cannot "
                         f"be broadcast to the indexed shape {tuple(view)}") from None
    if util.size_of(sizes) == 0:
        return x
    y = lax_shapes.reshape(y, tuple(sizes))
    return lax_slicing.dynamic_update_slice(x, y, starts)


def _leading_arrays(x, entries):
    """The integer index arrays when ``entries`` is arrays on the leading axes
    followed by full slices (``x[i]``, ``x[i, j]``, ``x[i, :]``), else None."""
    arrays = []
    k = 0
    while k < len(entries) and not (entries[k] is None or isinstance(entries[k], slice)
                                    or indexing._is_int_scalar(entries[k])
                                    or indexing._is_traced_scalar(entries[k])):
        arrays.append(entries[k])
        k += 1
    if not arrays:
        return None
    for e in entries[k:]:
        if not (isinstance(e, slice) and e == slice(None)):
            return None
    for a in arrays:
        if not dtypes.issubdtype(a.dtype, np.integer):
            return None
    return arrays


def _scatter_rows(x, arrays, y, scatter, indices_are_sorted, unique_indices, mode):
    m = len(arrays)
    b_shape = tuple(util.broadcast_shapes(*(util.shape_of(a) for a in arrays)))
    idxs = [util.broadcast_to(indexing._index_value(a, x.shape[k]), b_shape)
            for k, a in enumerate(arrays)]
    window = tuple(x.shape[m:])
    target = b_shape + window
    try:
        y = util.broadcast_to(y, target)
    except ValueError:
        raise ValueError(f"at[]: shape mismatch: values of shape {tuple(y.shape)} cannot be "
                         f"broadcast to the indexed shape {target}") from None
    nb = len(b_shape)
    idx = lax_shapes.concatenate([lax_shapes.reshape(i, b_shape + (1,)) for i in idxs], nb)
    dn = lax_slicing.ScatterDimensionNumbers(
        update_window_dims=tuple(range(nb, nb + len(window))),
        inserted_window_dims=tuple(range(m)), scatter_dims_to_operand_dims=tuple(range(m)))
    if mode is None:
        mode = "promise_in_bounds"
    return scatter(x, idx, y, dn, indices_are_sorted=indices_are_sorted,
                   unique_indices=unique_indices, mode=mode)


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """numpy's ``put_along_axis`` (a new array: ``inplace=False`` is required, as JAX).

    Example:
        >>> jnp.put_along_axis(jnp.zeros((1, 3)), jnp.array([[2]]), 5.0, axis=1,
        ...                    inplace=False)
        Array([[0., 0., 5.]], dtype=float32)
    """
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because "
                         "JAX arrays are immutable. Pass inplace=False to instead return an "
                         "updated array.")
    x = util.asarray_any(arr)
    idx = indexing._as_index_array(indices)
    if not dtypes.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"put_along_axis: indices must be integers, got {idx.dtype}")
    original_shape = tuple(x.shape)
    if axis is None:
        x = lax_shapes.reshape(x, (util.size_of(x.shape),))
        axis = 0
    if util.ndim_of(idx) != x.ndim:
        raise ValueError(f"put_along_axis: indices and arr must have the same number of "
                         f"dimensions; {util.ndim_of(idx)} vs. {x.ndim}")
    ax = util.canonicalize_axis(axis, x.ndim)
    ishape = util.shape_of(idx)
    full = []
    for d in range(x.ndim):
        if d == ax:
            full.append(ishape[d])
        elif ishape[d] in (1, x.shape[d]):
            full.append(x.shape[d])
        else:
            raise ValueError(f"put_along_axis: indices of shape {ishape} do not broadcast to "
                             f"arr of shape {tuple(x.shape)} off the axis")
    iv = util.broadcast_to(indexing._index_value(idx, x.shape[ax]), tuple(full))
    index = []
    for d in range(x.ndim):
        if d == ax:
            index.append(iv)
        else:
            shape = [1] * x.ndim
            shape[d] = x.shape[d]
            index.append(np.arange(x.shape[d]).reshape(shape))
    out = _IndexUpdateRef(x, tuple(index)).set(values, mode=mode)
    return lax_shapes.reshape(out, original_shape)
