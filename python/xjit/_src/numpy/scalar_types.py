"""xjit.numpy's scalar types (``jnp.float32`` ...), which act like JAX's.

Each is a class that compares equal to the numpy scalar type, works wherever a
dtype is expected (it carries ``.dtype``), and when called makes a strongly typed
xjit array of that dtype.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.float16(1).dtype, np.dtype(jnp.float16)
    (dtype('float16'), dtype('float16'))
"""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.numpy import creation


class _ScalarMeta(type):
    def __hash__(cls):
        return hash(cls.dtype.type)

    def __eq__(cls, other):
        if other is cls:
            return True
        if isinstance(other, _ScalarMeta):
            return other.dtype == cls.dtype
        return other is cls.dtype.type

    def __ne__(cls, other):
        return not cls.__eq__(other)

    def __call__(cls, x):
        return creation.array(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.dtype.type)

    def __repr__(cls):
        return f"<class 'xjit.numpy.{cls.__name__}'>"


def _make(name: str, np_type) -> _ScalarMeta:
    return _ScalarMeta(name, (object,), {"dtype": np.dtype(np_type),
                                         "__doc__": f"The {np.dtype(np_type).name} scalar type."})


bool_ = _make("bool_", np.bool_)
int8, int16, int32, int64 = (_make(n, getattr(np, n)) for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_make(n, getattr(np, n))
                                 for n in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = (_make(n, getattr(np, n)) for n in ("float16", "float32", "float64"))
bfloat16 = _make("bfloat16", dtypes.bfloat16)
complex64, complex128 = _make("complex64", np.complex64), _make("complex128", np.complex128)
(int2, int4, uint2, uint4, float8_e3m4, float8_e4m3, float8_e4m3fn, float8_e4m3fnuz,
 float8_e4m3b11fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu, float4_e2m1fn, float6_e2m3fn,
 float6_e3m2fn) = (_make(n, getattr(dtypes, n)) for n in dtypes.NARROW_TYPE_NAMES)

# JAX's aliases: the default-width names follow x64 lazily in JAX; here they name
# the 64-bit types, and canonicalization narrows them when x64 is off.
int_ = int64
uint = uint64
float_ = float64
complex_ = complex128
single, double = float32, float64
half = float16
csingle, cdouble = complex64, complex128
