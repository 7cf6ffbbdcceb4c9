"""Indexing lax ops on StableHLO ``gather``, ``scatter``, ``dynamic_slice`` and
``dynamic_update_slice``, with JAX's names and signatures.

JAX's ``GatherScatterMode``: ``clip`` clamps the indices so every slice is in
bounds; ``fill``/``drop`` returns ``fill_value`` for a gathered slice that
would be out of bounds and drops an update window not wholly in bounds;
``promise_in_bounds`` trusts the indices (the ops then clamp gather starts and
skip scatter update elements outside, as the spec says). As in JAX,
``mode=None`` is ``promise_in_bounds`` for gather and ``fill`` for scatter. As in JAX, the index vector is
the last dimension of the indices.

Example:
    >>> from xjit import lax
    >>> x = np.arange(6, dtype=np.float32).reshape(3, 2)
    >>> dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
    ...                                 start_index_map=(0,))
    >>> lax.gather(x, np.array([[2], [0]]), dn, (1, 2))
    Array([[4., 5.],
           [0., 1.]], dtype=float32)
"""
from __future__ import annotations

import enum
from typing import Callable, NamedTuple, Sequence

import numpy as np

from xjit._src import core, dispatch, tracing
from xjit._src.dtypes import iinfo as _iinfo
from xjit._src.lax import elementwise as ew
from xjit._src.lax import operands as ops
from xjit._src.lax import shapes
from xjit._src.traceback_util import api_boundary


class GatherDimensionNumbers(NamedTuple):
    """Describes the dimension number arguments to :func:`gather` (as JAX's)."""
    offset_dims: tuple
    collapsed_slice_dims: tuple
    start_index_map: tuple
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()


class ScatterDimensionNumbers(NamedTuple):
    """Describes the dimension number arguments to :func:`scatter` (as JAX's)."""
    update_window_dims: Sequence[int]
    inserted_window_dims: Sequence[int]
    scatter_dims_to_operand_dims: Sequence[int]
    operand_batching_dims: Sequence[int] = ()
    scatter_indices_batching_dims: Sequence[int] = ()


class GatherScatterMode(enum.Enum):
    """How gather/scatter treat out-of-bounds indices (JAX's enum)."""
    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()

    @staticmethod
    def from_any(s) -> "GatherScatterMode":
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(f'Unknown gather mode "{s}"')


_region_counter = [0]


def _region_name() -> str:
    _region_counter[0] += 1
    return f"update_computation_{_region_counter[0]}"


def _refuse_capture(x) -> None:
    raise NotImplementedError(
        f"scatter update computations can't close over Tracers: got {x!r} from an "
        "enclosing trace.")


def _ints(name: str, what: str, values) -> tuple:
    try:
        return tuple(int(v) for v in values)
    except TypeError:
        raise TypeError(f"{name}: {what} must be a sequence of static Python ints, got "
                        f"{values!r}") from None


def _index_operand(name: str, indices):
    ops.check_arraylike(name, indices)
    dt = ops.dtype_of(indices)
    if ops.kind(dt) not in "iu":
        raise TypeError(f"{name}: indices must have an integer type, got {dt.name}")
    return ops.as_operand(indices)


def _full(shape: tuple, value, dt, weak: bool = False):
    """An array of ``shape`` filled with ``value``: a broadcast scalar inside a trace."""
    scalar = np.asarray(value).astype(dt)
    if core.current_trace() is None:
        return ops.filled(scalar, tuple(shape), weak)
    return ops.broadcast_to(ops.concrete_value(scalar, weak), tuple(shape))


def _default_fill(dt: np.dtype):
    k = ops.kind(dt)
    if k in "fc":
        return np.nan
    if k == "i":
        return _iinfo(dt).min
    if k == "u":
        return _iinfo(dt).max
    return True


def _in_bounds_mask(indices, operand_shape, dims_of_vector, window_sizes):
    """``all(0 <= indices[..., k] <= shape[d_k] - window[d_k])`` over the last axis."""
    ishape = ops.shape_of(indices)
    mask = None
    for k, d in enumerate(dims_of_vector):
        idx = shapes.slice_in_dim(indices, k, k + 1, axis=len(ishape) - 1)
        idx = shapes.reshape(idx, ishape[:-1])
        upper = operand_shape[d] - window_sizes[d]
        ok = ew.bitwise_and(ew.ge(idx, ew._full_like(idx, 0)),
                            ew.le(idx, ew._full_like(idx, upper)))
        mask = ok if mask is None else ew.bitwise_and(mask, ok)
    if mask is None:
        return _full(ishape[:-1], True, np.bool_)
    return mask


def _clamp_indices(indices, operand_shape, dims_of_vector, window_sizes):
    """Clamps each index component so its window lies in bounds (mode='clip')."""
    ishape = ops.shape_of(indices)
    dt = ops.dtype_of(indices)
    upper = np.array([operand_shape[d] - window_sizes[d] for d in dims_of_vector], dt)
    upper = shapes.broadcast_in_dim(ops.concrete_value(upper), ishape, (len(ishape) - 1,))
    return ew.clamp(_full(ishape, 0, dt), indices, upper)


@api_boundary
def gather(operand, start_indices, dimension_numbers: GatherDimensionNumbers,
           slice_sizes: Sequence[int], *, unique_indices: bool = False,
           indices_are_sorted: bool = False, mode=None, fill_value=None):
    """JAX's ``lax.gather``: the StableHLO gather with the index vector in the
    last dimension of ``start_indices``.

    Example:
        >>> dn = lax.GatherDimensionNumbers((), (0,), (0,))
        >>> lax.gather(np.arange(4.0, dtype=np.float32), np.array([[3], [1]]), dn, (1,))
        Array([3., 1.], dtype=float32)
    """
    ops.check_arraylike("gather", operand)
    x = ops.as_operand(operand)
    idx = _index_operand("gather", start_indices)
    if not isinstance(dimension_numbers, GatherDimensionNumbers):
        raise TypeError("gather: dimension_numbers must be a GatherDimensionNumbers, got "
                        f"{type(dimension_numbers).__name__}")
    dn = dimension_numbers
    xshape, ishape = ops.shape_of(x), ops.shape_of(idx)
    if not ishape:
        raise TypeError("gather: start_indices must have rank >= 1 (the last dimension holds "
                        "the index vectors)")
    sizes = _ints("gather", "slice_sizes", slice_sizes)
    parsed_mode = GatherScatterMode.from_any(
        GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)
    attrs = {
        "offset_dims": _ints("gather", "offset_dims", dn.offset_dims),
        "collapsed_slice_dims": _ints("gather", "collapsed_slice_dims", dn.collapsed_slice_dims),
        "operand_batching_dims": _ints("gather", "operand_batching_dims",
                                       dn.operand_batching_dims),
        "start_indices_batching_dims": _ints("gather", "start_indices_batching_dims",
                                             dn.start_indices_batching_dims),
        "start_index_map": _ints("gather", "start_index_map", dn.start_index_map),
        "index_vector_dim": len(ishape) - 1,
        "slice_sizes": sizes,
        "indices_are_sorted": bool(indices_are_sorted),
    }
    # mode='clip' needs no ops of its own: the spec's gather clamps every
    # start index so its slice is in bounds (as JAX lowers it too).
    out = dispatch.bind("gather", [x, idx], attrs, weak_type=ops.is_weak(operand))
    if parsed_mode != GatherScatterMode.FILL_OR_DROP:
        return out
    dt = ops.dtype_of(x)
    fill = _default_fill(dt) if fill_value is None else fill_value
    mask = _in_bounds_mask(idx, xshape, attrs["start_index_map"], sizes)
    oshape = ops.shape_of(out)
    batch_dims = tuple(d for d in range(len(oshape)) if d not in attrs["offset_dims"])
    mask = shapes.broadcast_in_dim(mask, oshape, batch_dims)
    fill_arr = _full(oshape, fill, dt, ops.is_weak(operand))
    return ew.select(mask, out, fill_arr)


def _scatter_attrs(name: str, dn: ScatterDimensionNumbers, ishape: tuple,
                   indices_are_sorted: bool, unique_indices: bool) -> dict:
    if not isinstance(dn, ScatterDimensionNumbers):
        raise TypeError(f"{name}: dimension_numbers must be a ScatterDimensionNumbers, got "
                        f"{type(dn).__name__}")
    if not ishape:
        raise TypeError(f"{name}: scatter_indices must have rank >= 1 (the last dimension "
                        "holds the index vectors)")
    return {
        "update_window_dims": _ints(name, "update_window_dims", dn.update_window_dims),
        "inserted_window_dims": _ints(name, "inserted_window_dims", dn.inserted_window_dims),
        "input_batching_dims": _ints(name, "operand_batching_dims", dn.operand_batching_dims),
        "scatter_indices_batching_dims": _ints(name, "scatter_indices_batching_dims",
                                               dn.scatter_indices_batching_dims),
        "scatter_dims_to_operand_dims": _ints(name, "scatter_dims_to_operand_dims",
                                              dn.scatter_dims_to_operand_dims),
        "index_vector_dim": len(ishape) - 1,
        "indices_are_sorted": bool(indices_are_sorted),
        "unique_indices": bool(unique_indices),
    }


def _scatter_window_sizes(attrs: dict, xshape: tuple, ushape: tuple) -> list:
    """The update window's extent along each operand dim (1 where inserted/batched)."""
    sizes = [1] * len(xshape)
    window = [d for d in range(len(xshape))
              if d not in attrs["inserted_window_dims"] and d not in attrs["input_batching_dims"]]
    uw = attrs["update_window_dims"]
    for k, d in enumerate(window):
        if k < len(uw) and uw[k] < len(ushape):
            sizes[d] = ushape[uw[k]]
    return sizes


def _scatter(name: str, operand, scatter_indices, updates, body: Callable, body_key,
             dimension_numbers, indices_are_sorted, unique_indices, mode):
    ops.check_arraylike(name, operand, updates)
    x = ops.as_operand(operand)
    dt = ops.dtype_of(x)
    idx = _index_operand(name, scatter_indices)
    u = updates
    if ops.dtype_of(u) != dt:
        if ops.is_python_scalar(u) or ops.is_weak(u):
            u = ew._convert_element_type(ops.as_operand(u), dt, ops.is_weak(operand))
        else:
            raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                            f"{dt.name}, {ops.dtype_of(u).name}.")
    u = ops.as_operand(u, dt)
    xshape, ishape, ushape = ops.shape_of(x), ops.shape_of(idx), ops.shape_of(u)
    attrs = _scatter_attrs(name, dimension_numbers, ishape, indices_are_sorted, unique_indices)
    parsed_mode = GatherScatterMode.from_any(mode)
    if parsed_mode == GatherScatterMode.CLIP and all(
            0 <= d < len(xshape) for d in attrs["scatter_dims_to_operand_dims"]):
        window = _scatter_window_sizes(attrs, xshape, ushape)
        idx = _clamp_indices(idx, xshape, attrs["scatter_dims_to_operand_dims"], window)
    elif parsed_mode == GatherScatterMode.FILL_OR_DROP and all(
            0 <= d < len(xshape) for d in attrs["scatter_dims_to_operand_dims"]):
        # JAX (XLA) drops a whole update window that is not entirely in bounds;
        # the op itself skips element by element. Push such windows fully out.
        window = _scatter_window_sizes(attrs, xshape, ushape)
        mask = _in_bounds_mask(idx, xshape, attrs["scatter_dims_to_operand_dims"], window)
        mask = shapes.broadcast_in_dim(mask, ishape, tuple(range(len(ishape) - 1)))
        big = _iinfo(ops.dtype_of(idx)).max
        idx = ew.select(mask, idx, _full(ishape, big, ops.dtype_of(idx)))

    def build_region(mb):
        avals = [core.ShapedArray((), dt), core.ShapedArray((), dt)]
        return tracing.trace_region(mb, _region_name(), avals, body, [dt],
                                    on_capture=_refuse_capture).computation

    key = None if body_key is None else (body_key, dt.name)
    weak = ops.is_weak(operand)
    return dispatch.bind("scatter", [x, idx, u], attrs, weak_type=weak, regions=[build_region],
                         region_key=key)


def _make_scatter(name: str, combine, doc: str):
    @api_boundary
    def fn(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
           indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
        return _scatter(name, operand, scatter_indices, updates, combine, (name,),
                        dimension_numbers, indices_are_sorted, unique_indices, mode)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


scatter = _make_scatter("scatter", lambda x, y: y, """JAX's ``lax.scatter``: overwrites
    the slices of ``operand`` at ``scatter_indices`` with ``updates``.

    Example:
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter(np.zeros(3, np.float32), np.array([[1]]), np.ones(1, np.float32), dn)
        Array([0., 1., 0.], dtype=float32)
    """)
scatter_add = _make_scatter("scatter_add", ew.add, """JAX's ``lax.scatter_add``: adds
    ``updates`` into the slices at ``scatter_indices`` (duplicates accumulate).

    Example:
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_add(np.zeros(3, np.float32), np.array([[1], [1]]),
        ...                 np.ones(2, np.float32), dn)
        Array([0., 2., 0.], dtype=float32)
    """)
scatter_sub = _make_scatter("scatter_sub", ew.sub, """JAX's ``lax.scatter_sub``.

    Example:
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_sub(np.zeros(2, np.float32), np.array([[0]]), np.ones(1, np.float32), dn)
        Array([-1.,  0.], dtype=float32)
    """)
scatter_mul = _make_scatter("scatter_mul", ew.mul, """JAX's ``lax.scatter_mul``.

    Example:
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_mul(np.full(2, 3, np.float32), np.array([[0]]),
        ...                 np.full(1, 2, np.float32), dn)
        Array([6., 3.], dtype=float32)
    """)
scatter_min = _make_scatter("scatter_min", ew.min, """JAX's ``lax.scatter_min``.

    Example:
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_min(np.ones(2, np.float32), np.array([[0]]), np.zeros(1, np.float32), dn)
        Array([0., 1.], dtype=float32)
    """)
scatter_max = _make_scatter("scatter_max", ew.max, """JAX's ``lax.scatter_max``.

    Example:
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_max(np.zeros(2, np.float32), np.array([[0]]), np.ones(1, np.float32), dn)
        Array([1., 0.], dtype=float32)
    """)


@api_boundary
def scatter_apply(operand, scatter_indices, func: Callable, dimension_numbers:
                  ScatterDimensionNumbers, *, update_shape: Sequence[int] = (),
                  indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
    """JAX's ``lax.scatter_apply``: ``func`` applied to the elements of
    ``operand`` at ``scatter_indices`` (once per index, duplicates repeat it).

    Example:
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_apply(np.ones(3, np.float32), np.array([[2]]), lambda v: v * 5, dn,
        ...                   update_shape=(1,))
        Array([1., 1., 5.], dtype=float32)
    """
    ops.check_arraylike("scatter_apply", operand)
    if not callable(func):
        raise TypeError(f"scatter_apply: func must be callable, got {type(func).__name__}")
    dt = ops.dtype_of(operand)
    unused = _full(_ints("scatter_apply", "update_shape", update_shape), 0, dt)
    return _scatter("scatter_apply", operand, scatter_indices, unused,
                    lambda x, _: func(x), None, dimension_numbers, indices_are_sorted,
                    unique_indices, mode)


# ----------------------------------------------------------------- dynamic slices

def _start_indices(name: str, start_indices, shape: tuple) -> list:
    """0-d integer start indices of one dtype, negative ones counted from the end (JAX)."""
    if isinstance(start_indices, (np.ndarray, core.Tracer)) or hasattr(start_indices, "shape") \
            and not isinstance(start_indices, (list, tuple)):
        sshape = ops.shape_of(start_indices)
        if len(sshape) != 1:
            raise TypeError(f"{name}: start_indices must be a sequence of scalars or a 1-d "
                            f"array, got shape {sshape}")
        start_indices = [shapes.reshape(shapes.slice_in_dim(start_indices, i, i + 1), ())
                         for i in range(sshape[0])]
    starts = list(start_indices)
    if len(starts) != len(shape):
        raise TypeError(f"{name}: length of start_indices ({len(starts)}) must equal the "
                        f"operand's rank {len(shape)}")
    dts = []
    for s in starts:
        ops.check_arraylike(name, s)
        if ops.shape_of(s) != ():
            raise TypeError(f"{name}: start indices must be scalars, got shape "
                            f"{ops.shape_of(s)}")
        dt = ops.dtype_of(s)
        if ops.kind(dt) not in "iu":
            raise TypeError(f"{name}: start indices must have an integer type, got {dt.name}")
        dts.append(dt)
    fixed = [d for d, s in zip(dts, starts) if not ops.is_python_scalar(s)]
    common = fixed[0] if fixed and all(d == fixed[0] for d in fixed) else np.dtype(np.int32)
    if fixed and any(d.itemsize == 8 for d in fixed):
        common = dispatch.canonicalize_dtype(np.int64)
    out = []
    for s, size in zip(starts, shape):
        if ops.is_python_scalar(s) or isinstance(s, (np.ndarray, np.generic)):
            v = int(s)
            out.append(np.asarray(v + size if v < 0 else v, common))
            continue
        s = ew._convert_element_type(s, common) if ops.dtype_of(s) != common else s
        if ops.kind(common) == "i":
            s = ew.select(ew.lt(s, ew._full_like(s, 0)), ew.add(s, ew._full_like(s, size)), s)
        out.append(s)
    return out


@api_boundary
def dynamic_slice(operand, start_indices, slice_sizes: Sequence[int]):
    """JAX's ``lax.dynamic_slice``: a slice at traced start indices, clamped so
    it lies in bounds (negative indices count from the end).

    Example:
        >>> lax.dynamic_slice(np.arange(5, dtype=np.float32), (3,), (2,))
        Array([3., 4.], dtype=float32)
    """
    ops.check_arraylike("dynamic_slice", operand)
    x = ops.as_operand(operand)
    shape = ops.shape_of(x)
    sizes = _ints("dynamic_slice", "slice_sizes", slice_sizes)
    starts = _start_indices("dynamic_slice", start_indices, shape)
    return dispatch.bind("dynamic_slice", [x] + starts, {"slice_sizes": sizes},
                         weak_type=ops.is_weak(operand))


@api_boundary
def dynamic_update_slice(operand, update, start_indices):
    """JAX's ``lax.dynamic_update_slice``: ``operand`` with ``update`` written
    at traced start indices (clamped so the update fits).

    Example:
        >>> lax.dynamic_update_slice(np.zeros(4, np.float32), np.ones(2, np.float32), (1,))
        Array([0., 1., 1., 0.], dtype=float32)
    """
    ops.check_arraylike("dynamic_update_slice", operand, update)
    x = ops.as_operand(operand)
    dt = ops.dtype_of(x)
    if ops.dtype_of(update) != dt:
        raise TypeError(f"lax.dynamic_update_slice requires arguments to have the same dtypes, "
                        f"got {dt.name}, {ops.dtype_of(update).name}.")
    u = ops.as_operand(update, dt)
    starts = _start_indices("dynamic_update_slice", start_indices, ops.shape_of(x))
    return dispatch.bind("dynamic_update_slice", [x, u] + starts, {},
                         weak_type=ops.is_weak(operand))


def _axis(name, axis, ndim):
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


@api_boundary
def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0):
    """``dynamic_slice`` along one axis.

    Example:
        >>> lax.dynamic_slice_in_dim(np.arange(4, dtype=np.int32), 1, 2)
        Array([1, 2], dtype=int32)
    """
    shape = ops.shape_of(operand)
    axis = _axis("dynamic_slice_in_dim", int(axis), len(shape))
    starts = [0] * len(shape)
    starts[axis] = start_index
    sizes = list(shape)
    sizes[axis] = int(slice_size)
    return dynamic_slice(operand, starts, sizes)


@api_boundary
def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True):
    """``dynamic_slice_in_dim`` of size 1, the axis dropped unless ``keepdims``.

    Example:
        >>> lax.dynamic_index_in_dim(np.arange(4, dtype=np.int32), 2, keepdims=False)
        Array(2, dtype=int32)
    """
    shape = ops.shape_of(operand)
    axis = _axis("dynamic_index_in_dim", int(axis), len(shape))
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    if keepdims:
        return out
    return shapes.reshape(out, shape[:axis] + shape[axis + 1:])


@api_boundary
def dynamic_update_slice_in_dim(operand, update, start_index, axis: int):
    """``dynamic_update_slice`` with a start along one axis (0 elsewhere).

    Example:
        >>> lax.dynamic_update_slice_in_dim(np.zeros(3, np.float32), np.ones(1, np.float32), 2, 0)
        Array([0., 0., 1.], dtype=float32)
    """
    shape = ops.shape_of(operand)
    axis = _axis("dynamic_update_slice_in_dim", int(axis), len(shape))
    starts = [0] * len(shape)
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts)


@api_boundary
def dynamic_update_index_in_dim(operand, update, index, axis: int):
    """``dynamic_update_slice_in_dim`` of one index; ``update`` may lack the axis.

    Example:
        >>> lax.dynamic_update_index_in_dim(np.zeros((2, 2), np.float32),
        ...                                 np.ones(2, np.float32), 1, 0)
        Array([[0., 0.],
               [1., 1.]], dtype=float32)
    """
    shape = ops.shape_of(operand)
    axis = _axis("dynamic_update_index_in_dim", int(axis), len(shape))
    ushape = ops.shape_of(update)
    if len(ushape) == len(shape) - 1:
        update = shapes.expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis)
