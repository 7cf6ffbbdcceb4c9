"""Operand handling shared by the lax modules: dtypes, shapes, weak types,
conversion of Python scalars and numpy arrays, and implicit broadcasting of
rank-0 / size-1 operands the way JAX's lax allows it.

Example:
    >>> dtype_of(1.0), is_weak(1.0)
    (dtype('float32'), True)
"""
from __future__ import annotations

import numpy as np

from xjit import _xjit
from xjit._src import core, dispatch, dtypes

Array = _xjit.Array
Tracer = core.Tracer
PY_SCALARS = (bool, int, float, complex)
_VALUE_TYPES = VALUE_TYPES = (Array, Tracer)
_KINDS: dict = {}


def is_python_scalar(x) -> bool:
    return isinstance(x, PY_SCALARS)


def check_arraylike(name: str, *args) -> None:
    """TypeError unless every argument is an array or scalar."""
    for pos, x in enumerate(args):
        if not isinstance(x, (Array, Tracer, np.ndarray, np.generic, *PY_SCALARS)):
            raise TypeError(f"lax.{name} requires ndarray or scalar arguments, got "
                            f"{type(x)} at position {pos}.")


def dtype_of(x) -> np.dtype:
    """The (canonical) dtype ``x`` has as a lax operand."""
    if isinstance(x, _VALUE_TYPES):
        return x.dtype
    if isinstance(x, PY_SCALARS):
        return dispatch.python_scalar_dtype(x)
    return dispatch.canonicalize_dtype(np.asarray(x).dtype)


def shape_of(x) -> tuple:
    if isinstance(x, PY_SCALARS):
        return ()
    return tuple(np.shape(x)) if not isinstance(x, _VALUE_TYPES) else tuple(x.shape)


def is_weak(x) -> bool:
    """JAX's weak type: Python scalars (not bool) and weakly typed arrays."""
    if isinstance(x, _VALUE_TYPES):
        return bool(x.weak_type)
    return isinstance(x, PY_SCALARS) and not isinstance(x, bool)


def kind(dtype) -> str:
    """numpy kind letter, with ml_dtypes' types in their family (bfloat16 is 'f')."""
    k = _KINDS.get(dtype)
    if k is None:
        k = _KINDS[dtype] = dtypes.kind(dtype)
    return k


def scalar_fits(x, dtype) -> bool:
    """Whether Python scalar ``x`` may take ``dtype`` (an int may become a float...)."""
    k = kind(dtype)
    if isinstance(x, bool):
        return True
    if isinstance(x, int):
        return k in "iufc"
    if isinstance(x, float):
        return k in "fc"
    return k == "c"


def as_operand(x, dtype=None):
    """``x`` ready for ``dispatch.bind``: Tracer/Array as is, others as numpy."""
    if isinstance(x, _VALUE_TYPES):
        return x
    return dispatch.to_numpy_operand(x, dtype)


def concrete_value(value: np.ndarray, weak: bool = False):
    """A concrete numpy value as an lax result: a Tracer constant inside a
    trace, otherwise an Array on the default device."""
    value = np.asarray(value, order="C")
    trace = None if dispatch.compile_time_eval_active() else core.current_trace()
    if trace is not None:
        return core.tracer_from_value(trace, trace.constant(value), weak,
                                      value if trace.concrete else None)
    return _xjit.device_put(value, dispatch.default_device(), weak)


def resolve_dtypes(name: str, args) -> np.dtype:
    """The common dtype of lax operands: Python scalars take the others' dtype.

    Raises JAX's TypeError when the array operands' dtypes differ.
    """
    fixed = [dtype_of(x) for x in args if not is_python_scalar(x)]
    if not fixed:
        fixed = [dtype_of(x) for x in args]
    first = fixed[0]
    if any(d != first for d in fixed[1:]) or any(
            is_python_scalar(x) and not scalar_fits(x, first) for x in args):
        got = ", ".join(dtype_of(x).name if is_python_scalar(x) and not scalar_fits(x, first)
                        else (first.name if is_python_scalar(x) else dtype_of(x).name)
                        for x in args)
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got {got}.")
    return first


def check_dtype(name: str, dtype: np.dtype, accepted: str, what: str) -> None:
    """TypeError unless ``dtype``'s kind is in ``accepted`` (letters of b,i,u,f,c)."""
    if kind(dtype) not in accepted:
        raise TypeError(f"{name} does not accept dtype {np.dtype(dtype).name}. "
                        f"Accepted dtypes are subtypes of {what}.")


def broadcast_shapes(name: str, shapes) -> tuple:
    """lax's broadcasting: rank-0 operands broadcast, equal ranks broadcast size-1 dims."""
    ranked = [s for s in shapes if s]
    if not ranked:
        return ()
    if len({len(s) for s in ranked}) != 1:
        raise TypeError(f"{name}: arrays must have same number of dimensions, got "
                        f"{', '.join(map(str, ranked))}.")
    out = []
    for dims in zip(*ranked):
        big = {d for d in dims if d != 1}
        if len(big) > 1:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{', '.join(map(str, ranked))}.")
        out.append(big.pop() if big else 1)
    return tuple(out)


def broadcast_to(x, shape: tuple):
    """Operand ``x`` (Tracer, Array or numpy) broadcast to ``shape`` (lax rules)."""
    xs = tuple(x.shape)
    if xs == shape:
        return x
    if isinstance(x, np.ndarray) and core.current_trace() is None:
        if not xs:
            return filled(x, shape)
        return np.asarray(np.broadcast_to(x, shape), order="C")
    dims = tuple(range(len(shape))) if xs else ()
    if xs and any(a != 1 and a != b for a, b in zip(xs, shape)):
        raise TypeError(f"cannot broadcast {xs} to {shape}")
    return dispatch.bind("broadcast_in_dim", [x], {
        "broadcast_dimensions": dims, "shape": tuple(shape), "dtype": core.dtype_name(x.dtype)},
        weak_type=is_weak(x))


# Eager code such as ``x * 2.0`` in a loop fills the same scalar into the same
# shape again and again; arrays are immutable, so the filled array is shared.
_filled_cache: dict = {}
_FILLED_CACHE_SIZE = 256


def filled(scalar: np.ndarray, shape: tuple, weak: bool = False):
    """An Array of ``shape`` on the default device filled with 0-d ``scalar`` (cached)."""
    key = (scalar.dtype, scalar.tobytes(), shape, weak, dispatch.default_backend())
    out = _filled_cache.get(key)
    if out is None:
        if len(_filled_cache) >= _FILLED_CACHE_SIZE:
            _filled_cache.pop(next(iter(_filled_cache)))
        out = _filled_cache[key] = _xjit.device_put(
            np.full(shape, scalar, scalar.dtype), dispatch.default_device(), weak)
    return out
