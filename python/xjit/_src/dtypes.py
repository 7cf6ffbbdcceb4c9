"""JAX's dtype rules: the promotion lattice, weak types and 32-bit canonicalization.

The lattice is JAX's "standard" one (``jax._src.dtypes``)::

    bool -> i* -> u8 -> u16 -> u32 -> u64 -> f*
             \\-> i8 -> i16 -> i32 -> i64 -> f*     (u8 -> i16, u16 -> i32, u32 -> i64)
    f* -> bf16 -> f32;  f* -> f16 -> f32;  f32 -> f64 -> c128;  f32 -> c64 -> c128
    f* -> c* -> c64

``i*``, ``f*`` and ``c*`` are the *weak* types of Python scalars (and of weakly
typed arrays): they join the lattice below every concrete integer, float and
complex type, so ``int8 + 1`` stays ``int8`` and ``float16 + 1.0`` stays
``float16``.

Example:
    >>> from xjit._src import dtypes
    >>> dtypes.promote_types("uint8", "int8")
    dtype('int16')
    >>> dtypes.result_type(np.int32(1), 1.0, return_weak_type_flag=True)
    (dtype('float32'), True)
"""
from __future__ import annotations

import functools
from typing import Any

import ml_dtypes
import numpy as np

bfloat16 = ml_dtypes.bfloat16

# Narrow types (issue 10): ml_dtypes' numpy types, as JAX uses them. They take
# no implicit promotion with other types (TypePromotionError), only with weak
# Python scalars; xjit computes them in float32 / int8 (docs/semantics.md).
int2, int4, uint2, uint4 = ml_dtypes.int2, ml_dtypes.int4, ml_dtypes.uint2, ml_dtypes.uint4
float8_e3m4 = ml_dtypes.float8_e3m4
float8_e4m3 = ml_dtypes.float8_e4m3
float8_e4m3fn = ml_dtypes.float8_e4m3fn
float8_e4m3fnuz = ml_dtypes.float8_e4m3fnuz
float8_e4m3b11fnuz = ml_dtypes.float8_e4m3b11fnuz
float8_e5m2 = ml_dtypes.float8_e5m2
float8_e5m2fnuz = ml_dtypes.float8_e5m2fnuz
float8_e8m0fnu = ml_dtypes.float8_e8m0fnu
float4_e2m1fn = ml_dtypes.float4_e2m1fn
float6_e2m3fn = ml_dtypes.float6_e2m3fn
float6_e3m2fn = ml_dtypes.float6_e3m2fn

#: Names of the narrow types, as ``xjit.numpy`` exports them.
NARROW_TYPE_NAMES = ("int2", "int4", "uint2", "uint4", "float8_e3m4", "float8_e4m3",
                     "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2",
                     "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", "float6_e2m3fn",
                     "float6_e3m2fn")
_NARROW_SIGNED = [np.dtype(t) for t in (int2, int4)]
_NARROW_UNSIGNED = [np.dtype(t) for t in (uint2, uint4)]
_NARROW_FLOATS = [np.dtype(getattr(ml_dtypes, n)) for n in NARROW_TYPE_NAMES[4:]]
NARROW_DTYPES = frozenset(_NARROW_SIGNED + _NARROW_UNSIGNED + _NARROW_FLOATS)

bool_ = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128

_BOOL = np.dtype(np.bool_)
_SIGNED = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)]
_UNSIGNED = [np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)]
_FLOATS = [np.dtype(bfloat16)] + [np.dtype(t) for t in (np.float16, np.float32, np.float64)]
_COMPLEX = [np.dtype(np.complex64), np.dtype(np.complex128)]

# Custom (ml_dtypes) floating types whose numpy ``kind`` is 'V', not 'f'.
_CUSTOM_FLOATS = frozenset([np.dtype(bfloat16), *_NARROW_FLOATS])
# numpy's kind of every dtype whose own ``kind`` says otherwise.
_KINDS = {**{d: "f" for d in _CUSTOM_FLOATS}, **{d: "i" for d in _NARROW_SIGNED},
          **{d: "u" for d in _NARROW_UNSIGNED}}

#: Every dtype an xjit array may have.
SUPPORTED_DTYPES = frozenset([_BOOL, *_SIGNED, *_UNSIGNED, *_FLOATS, *_COMPLEX, *NARROW_DTYPES])


def kind(dt) -> str:
    """numpy's kind letter, with ml_dtypes' types in their family: 'b', 'i', 'u', 'f', 'c'.

    Example:
        >>> kind(bfloat16), kind(int4)
        ('f', 'i')
    """
    dt = np.dtype(dt)
    return _KINDS.get(dt, dt.kind)


def bit_width(dt) -> int:
    """Bits of one element (4 for int4, 6 for float6_e2m3fn; 8 per byte otherwise).

    Example:
        >>> bit_width(int4), bit_width(np.float32)
        (4, 32)
    """
    dt = np.dtype(dt)
    if dt in _KINDS and kind(dt) in "iu":
        return ml_dtypes.iinfo(dt).bits
    if dt in _CUSTOM_FLOATS:
        return ml_dtypes.finfo(dt).bits
    return 8 * dt.itemsize


def extreme_value(dt, lowest: bool) -> np.ndarray:
    """The identity of max (``lowest``) or min over float dtype ``dt``: -inf/inf,
    or the most negative/positive finite value for types without infinities
    (float8_e4m3fn, the FNUZ types, float4/float6), as JAX uses.

    Example:
        >>> float(extreme_value(float8_e4m3fn, True))
        -448.0
    """
    dt = np.dtype(dt)
    with np.errstate(all="ignore"):
        inf = np.array(-np.inf if lowest else np.inf).astype(dt)
    if np.isinf(inf.astype(np.float64)):
        return inf
    info = ml_dtypes.finfo(dt)
    return np.array(info.min if lowest else info.max, dt)


class TypePromotionError(ValueError):
    """No implicit promotion joins these dtypes (JAX's ``jax.dtypes.TypePromotionError``)."""

# The weak types are the Python scalar types themselves, as in JAX.
_WEAK_TYPES = (int, float, complex)

#: dtype of each Python scalar type before canonicalization.
python_scalar_dtypes = {
    bool: np.dtype(np.bool_),
    int: np.dtype(np.int64),
    float: np.dtype(np.float64),
    complex: np.dtype(np.complex128),
}

# Lattice nodes are strings: dtype names, plus "i*", "f*", "c*" for the weak types.
# (Strings avoid numpy's ``np.dtype('float64') == float`` being True.)
_LATTICE_EDGES: dict[str, list[str]] = {
    "bool": ["i*"],
    "i*": ["uint8", "uint2", "uint4", "int8", "int2", "int4"],
    "uint2": [], "uint4": [], "int2": [], "int4": [],
    "uint8": ["int16", "uint16"], "uint16": ["int32", "uint32"],
    "uint32": ["int64", "uint64"], "uint64": ["f*"],
    "int8": ["int16"], "int16": ["int32"], "int32": ["int64"], "int64": ["f*"],
    "f*": [*NARROW_TYPE_NAMES[4:], "bfloat16", "float16", "c*"],
    **{n: [] for n in NARROW_TYPE_NAMES[4:]},
    "bfloat16": ["float32"], "float16": ["float32"], "float32": ["float64", "complex64"],
    "float64": ["complex128"],
    "c*": ["complex64"], "complex64": ["complex128"], "complex128": [],
}
_WEAK_NODES = {"i*": np.dtype(np.int64), "f*": np.dtype(np.float64),
               "c*": np.dtype(np.complex128)}


@functools.lru_cache(maxsize=None)
def _upper_bounds(node: str) -> frozenset:
    """All nodes >= ``node`` (reflexive, transitive)."""
    out = {node}
    for succ in _LATTICE_EDGES[node]:
        out |= _upper_bounds(succ)
    return frozenset(out)


@functools.lru_cache(maxsize=None)
def _least_upper_bound(*nodes: str) -> str:
    """The least upper bound of lattice nodes."""
    bounds = frozenset.intersection(*(_upper_bounds(n) for n in nodes))
    for cand in bounds:
        if bounds <= _upper_bounds(cand):
            return cand
    # Only the narrow types, leaves of the lattice, lack one (as in JAX).
    names = tuple(_node_dtype(n).name for n in nodes)
    narrow = [n for n in nodes if n in NARROW_TYPE_NAMES]
    what = ("8-bit floats" if any(n.startswith("float8") for n in narrow) else
            "sub-byte floats" if any(n.startswith("float") for n in narrow) else
            "2-bit and 4-bit integers")
    raise TypePromotionError(
        f"Input dtypes {names} have no available implicit dtype promotion path. To avoid "
        f"unintended promotion, {what} do not support implicit promotion. If you'd like your "
        "inputs to be promoted to another type, you can do so explicitly using e.g. "
        "x.astype('float32')")


def _node_dtype(node: str) -> np.dtype:
    return _WEAK_NODES[node] if node in _WEAK_NODES else np.dtype(node)


def x64_enabled() -> bool:
    """Whether 64-bit types are enabled (``jax_enable_x64``).

    Example:
        >>> x64_enabled()
        False
    """
    if not _config_values:
        try:
            from xjit._src.config import config
        except ImportError:
            return False
        _config_values.append(config._values)
    return bool(_config_values[0]["jax_enable_x64"])


# The config's flag dict, looked up once: x64_enabled is on every promotion's path.
_config_values: list = []


# 64-bit types and what they become with x64 off (shared with dispatch's hot path).
CANONICAL_32 = {
    np.dtype(np.int64): np.dtype(np.int32),
    np.dtype(np.uint64): np.dtype(np.uint32),
    np.dtype(np.float64): np.dtype(np.float32),
    np.dtype(np.complex128): np.dtype(np.complex64),
}


def canonicalize_dtype(dtype_like) -> np.dtype:
    """The dtype xjit stores for ``dtype_like``: 64-bit types become 32-bit unless x64.

    Example:
        >>> canonicalize_dtype(np.float64)  # with x64 off
        dtype('float32')
    """
    dt = np.dtype(dtype_like)
    if not dt.isnative:
        dt = dt.newbyteorder("=")
    if dt not in SUPPORTED_DTYPES:
        raise TypeError(f"dtype {dt} is not a valid xjit array type. "
                        "Only arrays of numeric types are supported.")
    if x64_enabled():
        return dt
    return CANONICAL_32.get(dt, dt)


def _to_np_dtype(x) -> np.dtype:
    """Interpret ``x`` as a dtype specifier (dtype, scalar type, or dtype name)."""
    if isinstance(x, type) and x in python_scalar_dtypes:
        return python_scalar_dtypes[x]
    try:
        return np.dtype(x)
    except TypeError as err:
        raise TypeError(f"Cannot interpret {x!r} as a data type") from err


def dtype(x: Any, *, canonicalize: bool = False) -> np.dtype:
    """The dtype of a value or dtype specifier, as JAX's ``dtypes.dtype``.

    Python scalars have 64-bit dtypes (canonicalized to 32 bits if ``canonicalize``).

    Example:
        >>> dtype(1.0)
        dtype('float64')
        >>> dtype(1.0, canonicalize=True)   # x64 off
        dtype('float32')
    """
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    if isinstance(x, type) and x in python_scalar_dtypes:
        dt = python_scalar_dtypes[x]
    elif type(x) in python_scalar_dtypes:
        dt = python_scalar_dtypes[type(x)]
    elif isinstance(x, (np.dtype, str)) or isinstance(x, type):
        dt = _to_np_dtype(x)
    elif hasattr(x, "dtype") and not isinstance(x, type):
        dt = np.dtype(x.dtype)
    else:
        try:
            dt = np.result_type(x)
        except TypeError as err:
            raise TypeError(f"Cannot determine dtype of {x}") from err
    if not dt.isnative:  # '>f4' data is float32 too (converted when it is copied in)
        dt = dt.newbyteorder("=")
    if dt not in SUPPORTED_DTYPES:
        raise TypeError(f"Value '{x}' with dtype {dt} is not a valid xjit array type. "
                        "Only arrays of numeric types are supported.")
    return canonicalize_dtype(dt) if canonicalize else dt


def is_weakly_typed(x: Any) -> bool:
    """Whether ``x`` is weakly typed: a Python int/float/complex, or a weak array/tracer.

    Example:
        >>> is_weakly_typed(1.0), is_weakly_typed(np.float32(1)), is_weakly_typed(True)
        (True, False, False)
    """
    if type(x) in _WEAK_TYPES:
        return True
    return bool(getattr(x, "weak_type", False)) if not isinstance(x, type) else False


def python_scalar_dtype(x: Any) -> np.dtype:
    """The canonical dtype a Python scalar (or scalar type) becomes in xjit.

    Example:
        >>> python_scalar_dtype(3)   # x64 off
        dtype('int32')
    """
    typ = x if isinstance(x, type) else type(x)
    if typ not in python_scalar_dtypes:
        raise TypeError(f"{x!r} is not a Python scalar")
    return canonicalize_dtype(python_scalar_dtypes[typ])


# numpy computes ``dtype.name`` in Python (a few microseconds); tracing asks
# for it on most ops, so each dtype's name is looked up once.
_NAME_OF_DTYPE: dict = {}


def dtype_name(dt) -> str:
    """``np.dtype(dt).name``, cached.

    Example:
        >>> dtype_name(np.dtype("float32"))
        'float32'
    """
    name = _NAME_OF_DTYPE.get(dt)
    if name is None:
        name = _NAME_OF_DTYPE[dt] = np.dtype(dt).name
    return name


def _jax_type(dt: np.dtype, weak: bool) -> str:
    """The lattice node of a (dtype, weak) pair."""
    if weak and dt != _BOOL:
        k = kind(dt)
        if k == "f":
            return "f*"
        if k in "iu":
            return "i*"
        if k == "c":
            return "c*"
    return dtype_name(dt)


def _dtype_and_weak(arg) -> tuple[np.dtype, bool]:
    weak = any(arg is t for t in _WEAK_TYPES) or is_weakly_typed(arg)
    return dtype(arg), weak


def _default_for(dt: np.dtype) -> np.dtype:
    """Default (64-bit, pre-canonicalization) dtype of dt's kind, for weak results."""
    return {"b": _BOOL, "i": np.dtype(np.int64), "u": np.dtype(np.uint64),
            "f": np.dtype(np.float64), "c": np.dtype(np.complex128)}[kind(dt)]


def _lattice_result_type(*args) -> tuple[np.dtype, bool]:
    pairs = [_dtype_and_weak(a) for a in args]
    dts = [p[0] for p in pairs]
    weaks = [p[1] for p in pairs]
    if len(dts) == 1:
        out, weak = dts[0], weaks[0]
    elif all(weaks) and all(d == dts[0] for d in dts):
        out, weak = dts[0], True
    elif all(weaks):
        out = _node_dtype(_least_upper_bound(*sorted({_jax_type(d, False) for d in dts})))
        weak = True
    else:
        node = _least_upper_bound(*sorted({_jax_type(d, w) for d, w in zip(dts, weaks)}))
        weak = node in _WEAK_NODES
        out = _node_dtype(node)
    weak = weak and out != _BOOL
    return out, weak


def result_type(*args: Any, return_weak_type_flag: bool = False):
    """The dtype of combining ``args`` (values or dtypes) under JAX's promotion rules.

    Weakly typed operands (Python scalars, weak arrays) do not widen strong ones.
    The result is canonicalized (32-bit unless x64). ``None`` counts as float.

    Example:
        >>> result_type(np.int8, 1)
        dtype('int8')
        >>> result_type(np.float16, np.dtype(bfloat16))
        dtype('float32')
    """
    if len(args) == 0:
        raise ValueError("at least one array or dtype is required")
    out, weak = _lattice_result_type(*(np.dtype(np.float64) if a is None else a for a in args))
    if weak:
        out = canonicalize_dtype(_default_for(out))
    else:
        out = canonicalize_dtype(out)
    return (out, weak) if return_weak_type_flag else out


def promote_types(a, b) -> np.dtype:
    """The smallest dtype both ``a`` and ``b`` safely promote to (JAX's lattice; no
    canonicalization, so ``promote_types(int64, uint64)`` is float64 as in JAX).

    Example:
        >>> promote_types(np.uint8, np.int8)
        dtype('int16')
    """
    nodes = []
    for x in (a, b):
        weak = {int: "i*", float: "f*", complex: "c*"}
        if isinstance(x, type) and x in weak:
            nodes.append(weak[x])
            continue
        dt = _to_np_dtype(x)
        if dt not in SUPPORTED_DTYPES:
            raise TypeError(f"dtype {dt} is not a valid xjit array type")
        nodes.append(dt.name)
    return _node_dtype(_least_upper_bound(*sorted(set(nodes))))


def issubdtype(a, b) -> bool:
    """``numpy.issubdtype`` that also places bfloat16 under ``numpy.floating``.

    Example:
        >>> issubdtype(bfloat16, np.floating)
        True
    """
    if a is None:
        return False
    if not isinstance(a, (np.dtype, type, str)):
        a = dtype(a)
    a_dt = _to_np_dtype(a)
    if a_dt in _KINDS and kind(a_dt) in "iu":
        if isinstance(b, type) and issubclass(b, np.generic):
            family = np.signedinteger if kind(a_dt) == "i" else np.unsignedinteger
            return b in (family, np.integer, np.number, np.generic) or b is a_dt.type
        try:
            return _to_np_dtype(b) == a_dt
        except TypeError:
            return False
    if a_dt in _CUSTOM_FLOATS:
        if isinstance(b, type) and issubclass(b, np.generic) and b in (
                np.floating, np.inexact, np.number, np.generic):
            return True
        try:
            return _to_np_dtype(b) == a_dt
        except TypeError:
            return False
    if isinstance(b, (np.dtype, str)) or (isinstance(b, type) and b in python_scalar_dtypes):
        b = _to_np_dtype(b).type
    if b is bfloat16:
        return False
    return bool(np.issubdtype(a_dt, b))


def is_inexact(dt) -> bool:
    """True for floating (incl. bfloat16) and complex dtypes."""
    return issubdtype(dt, np.inexact)


def finfo(dt):
    """Machine limits of a floating type (bfloat16 included), like ``jnp.finfo``.

    Example:
        >>> float(finfo(bfloat16).eps)
        0.0078125
    """
    return ml_dtypes.finfo(_to_np_dtype(dtype(dt) if not isinstance(dt, (type, str, np.dtype)) else dt))


def iinfo(dt):
    """Machine limits of an integer type, like ``jnp.iinfo``.

    Example:
        >>> int(iinfo(np.int8).max)
        127
    """
    return ml_dtypes.iinfo(_to_np_dtype(dtype(dt) if not isinstance(dt, (type, str, np.dtype)) else dt))


def default_int_dtype() -> np.dtype:
    """int32, or int64 with x64."""
    return canonicalize_dtype(np.int64)


def default_float_dtype() -> np.dtype:
    """float32, or float64 with x64."""
    return canonicalize_dtype(np.float64)
