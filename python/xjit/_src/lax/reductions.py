"""Reductions: the general variadic ``reduce`` with a traced body, the
monoid reductions (sum, prod, max, min, and, or) and argmax/argmin.

Example:
    >>> from xjit import lax
    >>> lax.reduce_sum(np.arange(6, dtype=np.float32).reshape(2, 3), (1,))
    Array([ 3., 12.], dtype=float32)
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from xjit import _xjit
from xjit._src import core, dispatch, tracing
from xjit._src.dtypes import extreme_value as _extreme
from xjit._src.dtypes import iinfo as _iinfo
from xjit._src.lax import elementwise as ew
from xjit._src.lax import operands as ops
from xjit._src.lax import shapes
from xjit._src.traceback_util import api_boundary

_region_counter = [0]


def _region_name() -> str:
    _region_counter[0] += 1
    return f"region_{_region_counter[0]}"


def _reduce_dims(name: str, dimensions, ndim: int) -> tuple:
    dims = tuple(int(d) for d in dimensions)
    for d in dims:
        if not 0 <= d < ndim:
            raise ValueError(f"{name}: dimension {d} is out of range for an operand of rank "
                             f"{ndim}")
    if len(set(dims)) != len(dims):
        raise ValueError(f"{name}: duplicate value in dimensions {dims}")
    return dims


def _refuse_capture(x) -> None:
    # A reduce body takes exactly (accumulators, values): no operand can carry a
    # captured value into it, so (as in JAX) it may not close over tracers.
    raise NotImplementedError(
        f"Reduction computations can't close over Tracers: the computation passed to "
        f"lax.reduce uses {x!r} from an enclosing trace. Pass it as an operand of the "
        f"reduction instead, or use a value known before tracing.")


def _bind_reduce(name, operands, inits, body: Callable, dims, region_key, weak):
    """Variadic reduce of numpy/Array/Tracer operands with scalar ``inits``."""
    dtypes = [x.dtype for x in operands]

    def build_region(mb):
        # Built only when the op is traced or compiled (not on an eager cache hit).
        avals = [core.ShapedArray((), d) for d in dtypes] * 2
        return tracing.trace_region(mb, _region_name(), avals, body, dtypes,
                                    on_capture=_refuse_capture).computation

    out = dispatch.bind("reduce", list(operands) + list(inits), {"dimensions": dims},
                        weak_type=weak, regions=[build_region], region_key=region_key)
    return out if isinstance(out, list) else [out]


@api_boundary
def reduce(operands, init_values, computation: Callable, dimensions: Sequence[int]):
    """Reduce ``operands`` over ``dimensions`` with ``computation``.

    ``operands`` and ``init_values`` are an array and a scalar, or matching
    pytrees of them (a variadic reduce). ``computation(acc, x)`` receives and
    returns values of that structure (rank-0 tracers) and must be associative
    and commutative; it is traced once into the op's body.

    Example:
        >>> lax.reduce(np.arange(4, dtype=np.float32), np.float32(0), lax.add, (0,))
        Array(6., dtype=float32)
    """
    flat_ops, tree = _xjit.tree_flatten(operands)
    flat_inits, init_tree = _xjit.tree_flatten(init_values)
    if tree != init_tree:
        raise TypeError(f"reduce: operands {tree} and init_values {init_tree} must have the "
                        f"same structure")
    if not flat_ops:
        raise TypeError("reduce requires at least one operand")
    ops.check_arraylike("reduce", *flat_ops, *flat_inits)
    monoid = _MONOIDS.get(computation) if len(flat_ops) == 1 else None
    if monoid is not None:
        init = flat_inits[0]
        if _is_identity(init, monoid, ops.dtype_of(flat_ops[0])):
            return tree.unflatten([_monoid_reduce(monoid, flat_ops[0], dimensions)])
    shape = ops.shape_of(flat_ops[0])
    dims = _reduce_dims("reduce", dimensions, len(shape))
    xs, inits = [], []
    for x, init in zip(flat_ops, flat_inits):
        if ops.shape_of(x) != shape:
            raise TypeError(f"reduce: operands must have the same shape, got "
                            f"{[ops.shape_of(o) for o in flat_ops]}")
        dt = ops.resolve_dtypes("reduce", (x, init))
        if ops.shape_of(init):
            raise TypeError(f"reduce: init_values must be scalars, got shape "
                            f"{ops.shape_of(init)}")
        xs.append(ops.as_operand(x, dt))
        inits.append(ops.as_operand(init, dt))
    n = len(xs)

    def body(*params):
        acc = tree.unflatten(list(params[:n]))
        val = tree.unflatten(list(params[n:]))
        return computation(acc, val)

    weak = [ops.is_weak(x) and ops.is_weak(i) for x, i in zip(flat_ops, flat_inits)]
    return tree.unflatten(_bind_reduce("reduce", xs, inits, body, dims, None, weak))


# ----------------------------------------------------------------- monoid reductions

def _identity(monoid: str, dt: np.dtype):
    """The monoid's identity as a read-only 0-d array of ``dt``: one object per
    (monoid, dtype), so a trace embeds it as one constant (Trace.constant)."""
    dt = np.dtype(dt)
    key = (monoid, dt)
    value = _IDENTITIES.get(key)
    if value is None:
        value = _IDENTITIES[key] = np.asarray(_make_identity(monoid, dt))
        value.setflags(write=False)
    return value


_IDENTITIES: dict = {}


def _make_identity(monoid: str, dt: np.dtype):
    k = ops.kind(dt)
    if monoid == "add" or monoid == "or":
        return np.zeros((), dt)
    if monoid == "multiply":
        return np.ones((), dt)
    if monoid == "and":
        return np.array(True) if k == "b" else np.array(-1).astype(dt)
    lowest = monoid == "maximum"
    if k == "b":
        return np.array(not lowest)
    if k == "f":
        return _extreme(dt, lowest)
    info = _iinfo(dt)
    return np.array(info.min if lowest else info.max).astype(dt)


def _is_identity(init, monoid, dt) -> bool:
    if isinstance(init, (ops.Tracer,)):
        return False
    try:
        value = np.asarray(init)
        ident = _identity(monoid, dt)
    except (TypeError, ValueError):
        return False
    return value.shape == () and bool(value == ident) and (
        not isinstance(init, ops.Array) or init.dtype == dt)


def _monoid_reduce(monoid: str, operand, axes):
    name = f"reduce_{monoid}"
    ops.check_arraylike(name, operand)
    x = ops.as_operand(operand)
    dims = _reduce_dims(name, axes, len(x.shape))
    dt = np.dtype(x.dtype)
    init = _identity(monoid, dt)
    op = _MONOID_OPS[monoid]
    out = _bind_reduce(name, [x], [init], op, dims, (monoid,), ops.is_weak(operand))
    return out[0]


@api_boundary
def reduce_sum(operand, axes: Sequence[int]):
    """Sum over ``axes``. Example: ``lax.reduce_sum(x, (0,))``."""
    return _monoid_reduce("add", operand, axes)


@api_boundary
def reduce_prod(operand, axes: Sequence[int]):
    """Product over ``axes``. Example: ``lax.reduce_prod(x, (0,))``."""
    return _monoid_reduce("multiply", operand, axes)


@api_boundary
def reduce_max(operand, axes: Sequence[int]):
    """Maximum over ``axes`` (NaN propagates). Example: ``lax.reduce_max(x, (0,))``."""
    return _monoid_reduce("maximum", operand, axes)


@api_boundary
def reduce_min(operand, axes: Sequence[int]):
    """Minimum over ``axes``. Example: ``lax.reduce_min(x, (0,))``."""
    return _monoid_reduce("minimum", operand, axes)


@api_boundary
def reduce_and(operand, axes: Sequence[int]):
    """Logical/bitwise and over ``axes``. Example: ``lax.reduce_and(mask, (0,))``."""
    ops.check_dtype("reduce_and", ops.dtype_of(operand), "biu", "bool, integer")
    return _monoid_reduce("and", operand, axes)


@api_boundary
def reduce_or(operand, axes: Sequence[int]):
    """Logical/bitwise or over ``axes``. Example: ``lax.reduce_or(mask, (0,))``."""
    ops.check_dtype("reduce_or", ops.dtype_of(operand), "biu", "bool, integer")
    return _monoid_reduce("or", operand, axes)


_MONOIDS = {ew.add: "add", ew.mul: "multiply", ew.max: "maximum", ew.min: "minimum",
            ew.bitwise_and: "and", ew.bitwise_or: "or"}
_MONOID_OPS = {name: op for op, name in _MONOIDS.items()}


# ------------------------------------------------------------------- argmax / argmin

def _argminmax(name: str, better: Callable, operand, axis: int, index_dtype):
    ops.check_arraylike(name, operand)
    x = ops.as_operand(operand)
    shape = tuple(x.shape)
    if not -len(shape) <= int(axis) < max(len(shape), 1):
        raise ValueError(f"{name}: axis {axis} is out of bounds for array of dimension "
                         f"{len(shape)}")
    axis = int(axis) % len(shape)
    if shape[axis] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    idt = dispatch.canonicalize_dtype(index_dtype)
    if ops.kind(idt) not in "iu":
        raise TypeError(f"{name}: index_dtype must be an integer type, got {idt.name}")
    dt = np.dtype(x.dtype)
    has_nan = ops.kind(dt) in "fc"
    lowest = name == "argmax"
    val_init = _identity("maximum" if lowest else "minimum", dt)
    idx_init = np.array(_iinfo(idt).max, idt)
    iota = shapes.broadcasted_iota(idt, shape, axis)

    def body(av, ai, cv, ci):
        # cur wins if strictly better, or (NaN wins) if it is NaN and acc is not.
        pick = better(cv, av)
        tie = ew.eq(cv, av)
        if has_nan:
            a_nan, c_nan = ew.ne(av, av), ew.ne(cv, cv)
            pick = ew.bitwise_or(ew.bitwise_and(c_nan, ew.bitwise_not(a_nan)),
                                 ew.bitwise_and(pick, ew.bitwise_not(a_nan)))
            tie = ew.bitwise_or(tie, ew.bitwise_and(a_nan, c_nan))
        pick_idx = ew.bitwise_or(pick, ew.bitwise_and(tie, ew.lt(ci, ai)))
        return ew.select(pick, cv, av), ew.select(pick_idx, ci, ai)

    _, idx = _bind_reduce(name, [x, iota], [val_init, idx_init], body, (axis,),
                          (name, dt.name, idt.name), [False, False])
    return idx


@api_boundary
def argmax(operand, axis: int, index_dtype):
    """Index of the first maximum along ``axis`` (a NaN counts as the maximum).

    Example:
        >>> lax.argmax(np.array([1., 3., 3.], np.float32), 0, np.int32)
        Array(1, dtype=int32)
    """
    return _argminmax("argmax", ew.gt, operand, axis, index_dtype)


@api_boundary
def argmin(operand, axis: int, index_dtype):
    """Index of the first minimum along ``axis`` (a NaN counts as the minimum).

    Example:
        >>> lax.argmin(np.array([2., 1., 1.], np.float32), 0, np.int32)
        Array(1, dtype=int32)
    """
    return _argminmax("argmin", ew.lt, operand, axis, index_dtype)
