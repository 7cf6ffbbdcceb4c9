"""Shared helpers of xjit.numpy: argument checks, dtype promotion, broadcasting, axes.

Every xjit.numpy function funnels its inputs through ``promote_args`` (or one of its
variants): it checks the inputs are array-like, computes JAX's result dtype and weak
flag, converts each input to exactly that (dtype, weak) and broadcasts them to the
numpy common shape.

Example:
    >>> x, y = promote_args("add", np.ones((2, 1), np.int8), 1)
    >>> (x.shape, y.shape, y.dtype)
    ((2, 1), (2, 1), dtype('int8'))
"""
from __future__ import annotations

import builtins
import operator
from typing import Any, Sequence

import numpy as np

from xjit import _xjit
from xjit._src import core, dispatch, dtypes
from xjit._src.config import config
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import operands as lax_operands
from xjit._src.lax import shapes as lax_shapes

try:
    from numpy.exceptions import AxisError
except ImportError:  # numpy < 1.25
    AxisError = np.AxisError

_PY_SCALARS = (bool, int, float, complex)
_XJIT_TYPES = (_xjit.Array, core.Tracer)
# Exact types that are array-like: a set lookup answers the common case before
# the isinstance chain (subclasses such as np.float32 still take that chain).
_ARRAYLIKE_TYPES = frozenset((*_PY_SCALARS, *_XJIT_TYPES, np.ndarray))
_PY_SCALAR_TYPES = frozenset(_PY_SCALARS)
_trace_state = core._state


# --------------------------------------------------------------------------- values

def is_xjit_value(x) -> bool:
    """True for xjit.Array and tracers (values lax operates on natively)."""
    return isinstance(x, _XJIT_TYPES)


def is_tracer(x) -> bool:
    return isinstance(x, core.Tracer)


def is_arraylike(x) -> bool:
    return (type(x) in _ARRAYLIKE_TYPES or isinstance(x, _PY_SCALARS)
            or isinstance(x, (np.ndarray, np.generic)) or is_xjit_value(x))


def check_arraylike(fun_name: str, *args) -> None:
    """Raise TypeError (as JAX does) if an argument is not an array or scalar.

    Example:
        >>> check_arraylike("add", 1, [2])
        Traceback (most recent call last):
        TypeError: add requires ndarray or scalar arguments, got <class 'list'> at position 1.
    """
    for pos, a in enumerate(args):
        if not is_arraylike(a):
            raise TypeError(f"{fun_name} requires ndarray or scalar arguments, "
                            f"got {type(a)} at position {pos}.")


def shape_of(x) -> tuple:
    if isinstance(x, _PY_SCALARS):
        return ()
    return tuple(x.shape)


def ndim_of(x) -> int:
    return len(shape_of(x))


def size_of(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def default_device():
    return dispatch.default_device()


def put(value: np.ndarray, weak: bool = False):
    """Place a numpy array on the default device as an xjit.Array with that weak flag."""
    value = np.asarray(value)
    dt = dtypes.canonicalize_dtype(value.dtype)
    if value.dtype != dt:
        value = value.astype(dt)
    if not value.flags.c_contiguous:
        value = np.array(value, order="C")   # (np.ascontiguousarray makes 0-d arrays 1-d)
    return _xjit.device_put(value, default_device(), weak)


def convert(x, dtype, weak: bool = False):
    """``x`` converted to exactly (``dtype``, ``weak``); concrete inputs become Arrays.

    Example:
        >>> convert(1.0, np.float16).dtype
        dtype('float16')
    """
    dtype = np.dtype(dtype)
    if not is_xjit_value(x):
        if isinstance(x, _PY_SCALARS) and dtypes.issubdtype(dtype, np.integer):
            _check_int_fits(x, dtype)
        return put(np.asarray(x).astype(dtype), weak)
    if x.dtype == dtype and bool(getattr(x, "weak_type", False)) == weak:
        return x
    # lax's convert_element_type variant that also sets the weak-type flag.
    return lax_ew._convert_element_type(x, dtype, weak)


def _check_int_fits(x, dtype) -> None:
    if isinstance(x, int) and not isinstance(x, bool):
        info = dtypes.iinfo(dtype)
        if not (info.min <= x <= info.max):
            raise OverflowError(f"Python int {x} too large to convert to {dtype}")


def check_int_operand(x) -> None:
    """A Python int operand of a numpy function must fit the default integer type
    (int32, int64 with x64), whatever it is promoted to: JAX parses such operands
    as weakly typed ints and raises OverflowError."""
    if type(x) is int:
        _check_int_fits(x, dtypes.default_int_dtype())


def asarray_any(x):
    """``x`` as an xjit value, keeping its dtype/weak flag (Python scalars stay weak)."""
    if is_xjit_value(x):
        return x
    if isinstance(x, _PY_SCALARS):
        dt, weak = dtypes.result_type(x, return_weak_type_flag=True)
        return convert(x, dt, weak)
    if isinstance(x, (np.ndarray, np.generic)):
        return convert(x, dtypes.canonicalize_dtype(dtypes.dtype(x)), False)
    raise TypeError(f"expected an array or scalar, got {type(x)}")


# ----------------------------------------------------------------- promotion, broadcast

def broadcast_shapes(*shapes) -> tuple:
    """numpy's broadcast of shapes; ValueError on mismatch (JAX's message).

    Example:
        >>> broadcast_shapes((2, 1), (3,))
        (2, 3)
    """
    shapes = [tuple(s) for s in shapes]
    nd = builtins.max((len(s) for s in shapes), default=0)
    out = []
    for i in range(nd):
        dims = [s[i - nd + len(s)] for s in shapes if i - nd + len(s) >= 0]
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise ValueError("Incompatible shapes for broadcasting: "
                             + " and ".join(str(s) for s in shapes))
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_to(x, shape: Sequence[int]):
    """Broadcast an xjit value to ``shape`` with numpy's trailing-axis alignment."""
    shape = tuple(int(d) for d in shape)
    xs = shape_of(x)
    if xs == shape:
        return x
    if len(xs) > len(shape) or broadcast_shapes(xs, shape) != shape:
        raise ValueError(f"Incompatible shapes for broadcasting: {xs} and requested shape {shape}")
    x = asarray_any(x)
    nd = len(shape)
    return lax_shapes.broadcast_in_dim(x, shape, tuple(range(nd - len(xs), nd)))


def promote_dtypes(*args):
    """Convert every arg to JAX's common (dtype, weak) without broadcasting."""
    key = _dtype_key(args)
    common = _common_dtypes.get(key) if key is not None else None
    if common is None:
        common = dtypes.result_type(*args, return_weak_type_flag=True)
        if key is not None:
            if len(_common_dtypes) >= _PLANS_LIMIT:
                _common_dtypes.clear()
            _common_dtypes[key] = common
    dt, weak = common
    for a in args:
        check_int_operand(a)
    return [convert(a, dt, weak) for a in args]


def _same_tracers(args) -> bool:
    """Whether ``args`` are tracers sharing one aval (core.shaped_array): then
    promotion and broadcasting leave them as they are."""
    first = args[0]
    if first.__class__ is not core.Tracer:
        return False
    aval = first.aval
    for a in args:
        if a.__class__ is not core.Tracer or a.aval is not aval:
            return False
    return True


def promote_args(fun_name: str, *args):
    """Check, promote to the common dtype (JAX rules) and broadcast to one shape."""
    if args and _same_tracers(args):
        return args
    plan = _promotion_plan(args, False)
    if plan is not None:
        return _apply_plan(args, *plan)
    check_arraylike(fun_name, *args)
    shape = broadcast_shapes(*(shape_of(a) for a in args))
    return [broadcast_to(a, shape) for a in promote_dtypes(*args)]


def to_inexact(dt: np.dtype) -> np.dtype:
    """Integers and bool become the default float; inexact types stay."""
    if dtypes.is_inexact(dt):
        return dt
    return dtypes.default_float_dtype()


def promote_args_inexact(fun_name: str, *args):
    """Like promote_args, then integers/bools become the default float type."""
    if args and _same_tracers(args) and dtypes.kind(args[0].aval.dtype) in "fc":
        return args
    plan = _promotion_plan(args, True)
    if plan is not None:
        return _apply_plan(args, *plan)
    check_arraylike(fun_name, *args)
    dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dt = to_inexact(dt)
    shape = broadcast_shapes(*(shape_of(a) for a in args))
    for a in args:
        check_int_operand(a)
    return [broadcast_to(convert(a, dt, weak), shape) for a in args]


# ------------------------------------------------- memoized promotion (the hot path)
#
# Promotion and broadcasting depend only on each operand's (dtype, weak, shape), or
# on the type of a Python scalar, and on the x64 flag; programs use few distinct
# combinations, so the (dtype, weak, shape) result is computed once per combination.

_plans: dict = {}
_PLANS_LIMIT = 4096
# Scalars filled into at most this many elements are served from a small cache of
# device arrays; larger fills are broadcast on the device, as without the cache.
_FILL_CACHE_MAX_SIZE = 1 << 14


_common_dtypes: dict = {}


def _dtype_key(args, with_shapes: bool = False):
    """What JAX's promotion (and, ``with_shapes``, broadcasting) of ``args`` depends
    on: the x64 flag, and each Python scalar's type or xjit value's dtype, weak flag
    (and shape). None when an argument is anything else (not memoized)."""
    key = [config._values["jax_enable_x64"]]
    for a in args:
        t = type(a)
        if t in _PY_SCALAR_TYPES:
            key.append(t)
        elif isinstance(a, _XJIT_TYPES):
            key.append((a.dtype, a.weak_type, a.shape) if with_shapes else (a.dtype, a.weak_type))
        else:
            return None
    return tuple(key)


def _promotion_plan(args, inexact: bool):
    """(dtype, weak, shape) all ``args`` promote to, or None when an argument is
    not an xjit value or Python scalar (those take the general path)."""
    key = _dtype_key(args, with_shapes=True)
    if key is None:
        return None
    key = (inexact, key)
    plan = _plans.get(key)
    if plan is None:
        # Same order as the general path: shapes are checked before dtypes.
        shape = broadcast_shapes(*(shape_of(a) for a in args))
        dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
        if inexact:
            dt = to_inexact(dt)
        if len(_plans) >= _PLANS_LIMIT:
            _plans.clear()
        plan = _plans[key] = (dt, weak, shape)
    return plan


def _apply_plan(args, dt, weak, shape) -> list:
    """``args`` converted to (``dt``, ``weak``) and broadcast to ``shape``."""
    out = []
    for a in args:
        if type(a) in _PY_SCALAR_TYPES:
            a = _scalar_operand(a, dt, weak, shape)
        elif a.dtype != dt or a.weak_type != weak or a.shape != shape:
            a = broadcast_to(convert(a, dt, weak), shape)
        out.append(a)
    return out


def _scalar_operand(x, dt, weak, shape):
    """Python scalar ``x`` as a (``dt``, ``weak``) operand of ``shape``.

    Eagerly, a small filled array comes from a cache (no broadcast op is run);
    inside a trace the scalar becomes a graph constant and is broadcast there.
    """
    tracing = _trace_state.stack and not dispatch.compile_time_eval_active()
    if tracing:
        # The same scalar at the same type and shape is one graph value per
        # trace (`x * 0.5` in every layer: one constant and one broadcast).
        # Keyed first by the Python value (its checks passed when it was
        # stored); zero and NaN by the converted bits only (-0.0 == 0.0).
        cache = _trace_state.stack[-1].scalar_operands
        by_value = (dt, weak, shape, x.__class__, x) if x == x and x != 0 else None
        v = cache.get(by_value) if by_value is not None else None
        if v is not None:
            return v
    if dt.kind in "iu":
        _check_int_fits(x, dt)
    else:
        check_int_operand(x)
    value = np.asarray(x).astype(dt)
    if tracing:
        key = (dt, weak, shape, value.tobytes())
        v = cache.get(key)
        if v is None:
            c = lax_operands.concrete_value(value, weak)
            v = cache[key] = broadcast_to(c, shape) if shape else c
        if by_value is not None:
            cache[by_value] = v
        return v
    if size_of(shape) <= _FILL_CACHE_MAX_SIZE:
        return lax_operands.filled(value, shape, weak)
    return broadcast_to(put(value, weak), shape)


def real_dtype(dt: np.dtype) -> np.dtype:
    """float32 for complex64, float64 for complex128, identity otherwise."""
    dt = np.dtype(dt)
    if dt == np.complex64:
        return np.dtype(np.float32)
    if dt == np.complex128:
        return np.dtype(np.float64)
    return dt


def is_weak(x) -> bool:
    return dtypes.is_weakly_typed(x)


def dtype_of(x) -> np.dtype:
    """Canonical dtype of an array-like (Python scalars: default type of their kind)."""
    return dtypes.dtype(x, canonicalize=True)


# ------------------------------------------------------------------------------ axes

def canonicalize_axis(axis, ndim: int) -> int:
    """Normalize a possibly negative axis; numpy's AxisError (a ValueError) if out of range.

    Example:
        >>> canonicalize_axis(-1, 3)
        2
    """
    try:
        axis = operator.index(axis)
    except TypeError as err:
        raise TypeError(f"axis must be an integer, got {axis!r}") from err
    if not -ndim <= axis < ndim:
        raise AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis


def canonicalize_axes(axis, ndim: int) -> tuple:
    """``None`` -> all axes; int or tuple -> sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(canonicalize_axis(a, ndim) for a in axis)
    else:
        axes = (canonicalize_axis(axis, ndim),)
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return tuple(sorted(axes))


def canonical_shape(shape) -> tuple:
    """A shape argument (int or sequence of ints) as a tuple; TypeError otherwise."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        out = tuple(operator.index(d) for d in shape)
    except TypeError as err:
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {shape!r}.") from err
    if builtins.any(d < 0 for d in out):
        raise ValueError(f"negative dimensions are not allowed: {out}")
    return out


def requested_dtype(dtype) -> np.dtype | None:
    """A user dtype argument, canonicalized (None stays None)."""
    if dtype is None:
        return None
    return dtypes.canonicalize_dtype(dtypes.dtype(dtype))
