"""Shape and data-movement lax ops, and array creation (iota, full).

Example:
    >>> from xjit import lax
    >>> lax.reshape(np.arange(6, dtype=np.float32), (2, 3)).shape
    (2, 3)
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from xjit._src import core, dispatch
from xjit._src.lax import operands as ops
from xjit._src.lax.elementwise import _convert_element_type
from xjit._src.traceback_util import api_boundary

bind = dispatch.bind


def _operand(name, x):
    ops.check_arraylike(name, x)
    return ops.as_operand(x)


def _ints(name: str, what: str, values) -> tuple:
    try:
        return tuple(int(v) for v in values)
    except TypeError:
        raise TypeError(f"{name}: {what} must be a sequence of static Python ints, got "
                        f"{values!r}") from None


def _axis(name: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis


@api_boundary
def broadcast_in_dim(operand, shape: Sequence[int], broadcast_dimensions: Sequence[int]):
    """Broadcast ``operand`` to ``shape``; operand dim i maps to result dim
    ``broadcast_dimensions[i]``.

    Example:
        >>> lax.broadcast_in_dim(np.ones(3, np.float32), (2, 3), (1,)).shape
        (2, 3)
    """
    x = _operand("broadcast_in_dim", operand)
    shape = _ints("broadcast_in_dim", "shape", shape)
    dims = _ints("broadcast_in_dim", "broadcast_dimensions", broadcast_dimensions)
    if len(dims) != len(x.shape):
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must have length equal to "
                        f"operand ndim; got broadcast_dimensions {dims} for operand ndim "
                        f"{len(x.shape)}.")
    if tuple(x.shape) == shape and dims == tuple(range(len(shape))) and not isinstance(
            x, np.ndarray):
        return x
    return bind("broadcast_in_dim", [x], {"broadcast_dimensions": dims, "shape": shape,
                                           "dtype": core.dtype_name(x.dtype)},
                weak_type=ops.is_weak(operand))


@api_boundary
def broadcast(operand, sizes: Sequence[int]):
    """Add leading dimensions ``sizes`` to ``operand``.

    Example:
        >>> lax.broadcast(np.ones(3, np.float32), (2,)).shape
        (2, 3)
    """
    sizes = _ints("broadcast", "sizes", sizes)
    nd = len(ops.shape_of(operand))
    return broadcast_in_dim(operand, sizes + ops.shape_of(operand),
                            tuple(range(len(sizes), len(sizes) + nd)))


@api_boundary
def reshape(operand, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None):
    """Reshape (row-major) to ``new_sizes``, after transposing by ``dimensions``.

    Example:
        >>> lax.reshape(np.arange(6, dtype=np.int32), (3, 2)).shape
        (3, 2)
    """
    x = _operand("reshape", operand)
    new_sizes = _ints("reshape", "new_sizes", new_sizes)
    if dimensions is not None:
        dimensions = _ints("reshape", "dimensions", dimensions)
        if dimensions != tuple(range(len(x.shape))):
            x = transpose(x, dimensions)
    if tuple(x.shape) == new_sizes and not isinstance(x, np.ndarray):
        return x
    if math.prod(new_sizes) != math.prod(x.shape):
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} "
                        f"(of total size {math.prod(new_sizes)}) for shape "
                        f"{tuple(x.shape)} (of total size {math.prod(x.shape)}).")
    return bind("reshape", [x], {"shape": new_sizes, "dtype": core.dtype_name(x.dtype)},
                weak_type=ops.is_weak(operand))


@api_boundary
def transpose(operand, permutation: Sequence[int]):
    """Permute the dimensions: result dim i is operand dim ``permutation[i]``.

    Example:
        >>> lax.transpose(np.ones((2, 3), np.float32), (1, 0)).shape
        (3, 2)
    """
    x = _operand("transpose", operand)
    perm = _ints("transpose", "permutation", permutation)
    if sorted(perm) != list(range(len(x.shape))):
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, "
                        f"got permutation {perm} for operand shape {tuple(x.shape)}.")
    if perm == tuple(range(len(perm))) and not isinstance(x, np.ndarray):
        return x
    return bind("transpose", [x], {"permutation": perm}, weak_type=ops.is_weak(operand))


@api_boundary
def slice(operand, start_indices, limit_indices, strides=None):
    """The strided box [start, limit) of ``operand``.

    Example:
        >>> lax.slice(np.arange(5, dtype=np.int32), (1,), (4,))
        Array([1, 2, 3], dtype=int32)
    """
    x = _operand("slice", operand)
    start = _ints("slice", "start_indices", start_indices)
    limit = _ints("slice", "limit_indices", limit_indices)
    strides = (1,) * len(start) if strides is None else _ints("slice", "strides", strides)
    return bind("slice", [x], {"start_indices": start, "limit_indices": limit,
                               "strides": strides}, weak_type=ops.is_weak(operand))


@api_boundary
def slice_in_dim(operand, start_index, limit_index, stride: int = 1, axis: int = 0):
    """``operand[start:limit:stride]`` along ``axis`` (None and negatives as in Python).

    Example:
        >>> lax.slice_in_dim(np.arange(5, dtype=np.int32), 1, None, 2)
        Array([1, 3], dtype=int32)
    """
    shape = ops.shape_of(operand)
    axis = _axis("slice_in_dim", int(axis), len(shape))
    size = shape[axis]
    start = 0 if start_index is None else int(start_index)
    limit = size if limit_index is None else int(limit_index)
    start = start + size if start < 0 else start
    limit = limit + size if limit < 0 else limit
    starts = [0] * len(shape)
    limits = list(shape)
    strides = [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = start, limit, int(stride)
    return slice(operand, starts, limits, strides)


@api_boundary
def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    """Element ``index`` along ``axis`` (keeping that dim when ``keepdims``).

    Example:
        >>> lax.index_in_dim(np.arange(6, dtype=np.int32).reshape(2, 3), 1, 0, False)
        Array([3, 4, 5], dtype=int32)
    """
    shape = ops.shape_of(operand)
    axis = _axis("index_in_dim", int(axis), len(shape))
    size = shape[axis]
    index = int(index)
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    index = index + size if index < 0 else index
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


@api_boundary
def concatenate(operands: Sequence, dimension: int):
    """Join ``operands`` (same dtype, same shape but along ``dimension``).

    Example:
        >>> lax.concatenate([np.ones(2, np.float32), np.zeros(1, np.float32)], 0)
        Array([1., 1., 0.], dtype=float32)
    """
    operands = list(operands)
    if not operands:
        raise TypeError("concatenate requires a non-empty sequences of arrays")
    ops.check_arraylike("concatenate", *operands)
    dt = ops.resolve_dtypes("concatenate", operands)
    xs = [ops.as_operand(x, dt) for x in operands]
    if len(xs) == 1 and not isinstance(xs[0], np.ndarray):
        return xs[0]
    weak = all(ops.is_weak(x) for x in operands)
    return bind("concatenate", xs, {"dimension": int(dimension)}, weak_type=weak)


@api_boundary
def pad(operand, padding_value, padding_config):
    """Pad with ``padding_value``; ``padding_config`` holds (low, high, interior)
    per dimension (negative low/high remove elements).

    Example:
        >>> lax.pad(np.ones(2, np.float32), 0.0, [(1, 0, 1)])
        Array([0., 1., 0., 1.], dtype=float32)
    """
    ops.check_arraylike("pad", operand, padding_value)
    if ops.shape_of(padding_value):
        raise TypeError(f"pad: padding_value must be a scalar, got shape "
                        f"{ops.shape_of(padding_value)}")
    dt = ops.resolve_dtypes("pad", (operand, padding_value))
    config = [tuple(int(v) for v in c) for c in padding_config]
    if len(config) != len(ops.shape_of(operand)) or any(len(c) != 3 for c in config):
        raise ValueError(f"pad: padding_config must hold one (low, high, interior) triple "
                         f"per dimension of operand shape {ops.shape_of(operand)}, got "
                         f"{padding_config}")
    attrs = {"edge_padding_low": tuple(c[0] for c in config),
             "edge_padding_high": tuple(c[1] for c in config),
             "interior_padding": tuple(c[2] for c in config)}
    return bind("pad", [ops.as_operand(operand, dt), ops.as_operand(padding_value, dt)],
                attrs, weak_type=ops.is_weak(operand))


@api_boundary
def rev(operand, dimensions: Sequence[int]):
    """Reverse ``operand`` along ``dimensions``.

    Example:
        >>> lax.rev(np.arange(3, dtype=np.int32), (0,))
        Array([2, 1, 0], dtype=int32)
    """
    x = _operand("rev", operand)
    dims = _ints("rev", "dimensions", dimensions)
    return bind("reverse", [x], {"dimensions": dims}, weak_type=ops.is_weak(operand))


@api_boundary
def squeeze(array, dimensions: Sequence[int]):
    """Remove the size-1 ``dimensions``.

    Example:
        >>> lax.squeeze(np.ones((1, 3), np.float32), (0,)).shape
        (3,)
    """
    shape = ops.shape_of(array)
    dims = {_axis("squeeze", d, len(shape)) for d in _ints("squeeze", "dimensions",
                                                            dimensions)}
    if any(shape[d] != 1 for d in dims):
        raise ValueError(f"cannot select an axis to squeeze out which has size not equal to "
                         f"one, got shape={shape} and dimensions={tuple(dimensions)}")
    return reshape(array, tuple(s for i, s in enumerate(shape) if i not in dims))


@api_boundary
def expand_dims(array, dimensions: Sequence[int]):
    """Insert size-1 dimensions at positions ``dimensions`` of the result.

    Example:
        >>> lax.expand_dims(np.ones(3, np.float32), (0,)).shape
        (1, 3)
    """
    shape = list(ops.shape_of(array))
    ndim_out = len(shape) + len(dimensions)
    dims = [_axis("expand_dims", d, ndim_out)
            for d in _ints("expand_dims", "dimensions", dimensions)]
    if len(set(dims)) != len(dims):  # JAX's check, after normalizing negative axes
        raise ValueError(f"repeated axis in lax.expand_dims: {tuple(dimensions)}")
    dims.sort()
    for d in dims:
        shape.insert(d, 1)
    return reshape(array, tuple(shape))


# ------------------------------------------------------------------------- creation

@api_boundary
def broadcasted_iota(dtype, shape: Sequence[int], dimension: int):
    """Array of ``shape`` whose values count 0, 1, ... along ``dimension``.

    Example:
        >>> lax.broadcasted_iota(np.int32, (2, 3), 1)
        Array([[0, 1, 2],
               [0, 1, 2]], dtype=int32)
    """
    dt = dispatch.canonicalize_dtype(dtype)
    shape = _ints("broadcasted_iota", "shape", shape)
    dimension = _axis("broadcasted_iota", int(dimension), len(shape))
    return bind("iota", [], {"iota_dimension": dimension, "shape": shape, "dtype": dt.name})


@api_boundary
def iota(dtype, size: int):
    """``[0, 1, ..., size - 1]`` of ``dtype``.

    Example:
        >>> lax.iota(np.int32, 3)
        Array([0, 1, 2], dtype=int32)
    """
    return broadcasted_iota(dtype, (int(size),), 0)


@api_boundary
def full(shape: Sequence[int], fill_value, dtype=None):
    """Array of ``shape`` filled with scalar ``fill_value``.

    Weakly typed when ``dtype`` is None and ``fill_value`` is a Python scalar.

    Example:
        >>> lax.full((2,), 1.5)
        Array([1.5, 1.5], dtype=float32, weak_type=True)
    """
    shape = _ints("full", "shape", shape)
    if ops.shape_of(fill_value):
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                        f"{ops.shape_of(fill_value)}.")
    weak = dtype is None and ops.is_weak(fill_value)
    dt = ops.dtype_of(fill_value) if dtype is None else dispatch.canonicalize_dtype(dtype)
    if isinstance(fill_value, (ops.Array, ops.Tracer)):
        value = _convert_element_type(fill_value, dt, weak)
        return broadcast_in_dim(value, shape, ())
    scalar = np.asarray(fill_value)
    if ops.kind(scalar.dtype) == "c" and ops.kind(dt) != "c":
        scalar = scalar.real
    scalar = scalar.astype(dt)
    if dispatch.core.current_trace() is None:
        return ops.concrete_value(np.full(shape, scalar, dt), weak)
    return broadcast_in_dim(ops.concrete_value(scalar, weak), shape, ())


@api_boundary
def full_like(x, fill_value, dtype=None, shape=None):
    """Array with the shape (or ``shape``) and dtype (or ``dtype``) of ``x``.

    Example:
        >>> lax.full_like(np.ones(2, np.int32), 7)
        Array([7, 7], dtype=int32)
    """
    dt = ops.dtype_of(x) if dtype is None else dispatch.canonicalize_dtype(dtype)
    out = full(ops.shape_of(x) if shape is None else shape, fill_value, dt)
    if dtype is None and ops.is_weak(x):
        out = _convert_element_type(out, dt, True)
    return out


@api_boundary
def zeros_like_array(x):
    """Zeros with the shape and dtype of ``x``. Example: ``lax.zeros_like_array(x)``."""
    return full_like(x, 0)
