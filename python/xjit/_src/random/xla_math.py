"""float32 log, log1p and erf_inv computed exactly as XLA's CPU backend does, so
that samplers built on them (normal, truncated_normal, exponential, gumbel, ...)
give JAX's bits.

XLA expands ``erf_inv`` into Giles' polynomial over ``log1p`` (the chlo
decomposition), ``log1p`` into a Cephes rational function below sqrt(2) - 1 and
``log(1 + x)`` above it, and ``log`` into the Cephes polynomial of its vector
library; LLVM then contracts each multiply-add into one fused multiply-add on
CPUs that have FMA. We evaluate the same operations in the same order, with a
fused multiply-add made of float64 operations (the product of two float32s is
exact in float64; the sum rounds once in float64 and once back to float32,
which differs from a true fma only when the float64 sum lands exactly halfway
between two float32s, about once in 2**29 operations).
XLA's CPU code flushes denormal inputs to zero; ``log`` does the same here.

Example:
    >>> erf_inv_f32(jnp.float32(0.5))  # bitwise XLA's
    Array(0.47693628, dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit._src import dispatch
from xjit._src.lax import elementwise as ew
from xjit._src.lax import shapes

_F32 = np.dtype("float32")


def _f32(v):
    return np.float32(v)


def _bits(h: int):
    return np.array(h, np.uint32).view(np.float32)[()]


def _full(x, c):
    return shapes.full(tuple(np.shape(x)), _f32(c), _F32)


def _to64(x):
    return dispatch.bind("convert", [x], {"dtype": "float64"})


def fma(a, b, c):
    """``a * b + c`` rounded once (see the module docstring); float32 arrays of one
    shape or float32 scalars (broadcast to the array's shape)."""
    shape = next((tuple(np.shape(v)) for v in (a, b, c) if np.ndim(v)), ())
    a, b, c = (shapes.full(shape, _f32(v), _F32) if isinstance(v, (float, np.generic, np.ndarray))
               else v for v in (a, b, c))
    prod = dispatch.bind("multiply", [_to64(a), _to64(b)])
    return dispatch.bind("convert", [dispatch.bind("add", [prod, _to64(c)])],
                         {"dtype": "float32"})


def _select(pred, x, y):
    return ew.select(pred, x, y)


def frexp_f32(x):
    """(m, e) with x = m * 2**e, m in [0.5, 1), for positive normal float32 ``x``, with
    exact power-of-two scalings only (no bit casts)."""
    y = x
    e = _full(x, 0)
    for k in (64, 32, 16, 8, 4, 2, 1):
        big = ew.ge(y, _f32(2.0 ** k))
        y = _select(big, ew.mul(y, _f32(2.0 ** -k)), y)
        e = _select(big, ew.add(e, _f32(k)), e)
    for k in (64, 32, 16, 8, 4, 2, 1):
        small = ew.lt(y, _f32(2.0 ** (1 - k)))
        y = _select(small, ew.mul(y, _f32(2.0 ** k)), y)
        e = _select(small, ew.sub(e, _f32(k)), e)
    return ew.mul(y, _f32(0.5)), ew.add(e, _f32(1))


def frexp_bits_f32(x):
    """``frexp_f32`` read from the bits: four integer ops instead of seventy
    selects and multiplies. Equal to ``frexp_f32`` for positive normal ``x``
    (``log_f32`` overrides its result at inf and NaN, where they differ). Only
    for values that carry no tangent: ``bitcast_convert`` has no JVP rule."""
    b = dispatch.bind("bitcast_convert", [x], {"shape": tuple(x.shape), "dtype": "uint32"},
                      weak_type=False)
    e = ew.sub(ew.convert_element_type(ew.shift_right_logical(b, np.uint32(23)), _F32),
               _f32(126))
    mb = ew.bitwise_or(ew.bitwise_and(b, np.uint32(0x807FFFFF)), np.uint32(0x3F000000))
    m = dispatch.bind("bitcast_convert", [mb], {"shape": tuple(x.shape), "dtype": "float32"},
                      weak_type=False)
    return m, e


_TINY = _f32(np.finfo(np.float32).tiny)


def log_f32(x, by_bits=False):
    """XLA CPU's float32 log (Cephes polynomial, fused multiply-adds).
    ``by_bits``: take the exponent from the bits (``frexp_bits_f32``; no tangent)."""
    m, e = (frexp_bits_f32 if by_bits else frexp_f32)(ew.max(x, _TINY))
    small = ew.lt(m, _bits(0x3F3504F3))  # sqrt(1/2)
    xx = ew.add(ew.sub(m, _f32(1)), _select(small, m, _full(m, 0)))
    e = ew.sub(e, _select(small, _full(e, 1), _full(e, 0)))
    x2 = ew.mul(xx, xx)
    x3 = ew.mul(x2, xx)
    y = fma(xx, _bits(0x3D9021BB), _bits(0xBDEBD1B8))
    y1 = fma(xx, _bits(0xBDFE5D4F), _bits(0x3E11E9BF))
    y2 = fma(xx, _bits(0x3E4CCEAC), _bits(0xBE7FFFFC))
    y = fma(y, xx, _bits(0x3DEF251A))
    y1 = fma(y1, xx, _bits(0xBE2AAE50))
    y2 = fma(y2, xx, _bits(0x3EAAAAAA))
    y = fma(y, x3, y1)
    y = fma(y, x3, y2)
    y = fma(y, x3, ew.mul(_bits(0xB95E8083), e))  # poly * x**3 + e * log(2)_lo
    r = fma(e, _bits(0x3F318000), ew.add(fma(_f32(-0.5), x2, xx), y))  # + e * log(2)_hi
    # Specials: NaN below zero and for NaN, -inf at (flushed) zero, inf at inf.
    r = _select(ew.lt(x, _TINY), _full(r, -np.inf), r)
    r = _select(ew.eq(x, _f32(np.inf)), _full(r, np.inf), r)
    invalid = ew.bitwise_or(ew.lt(x, _f32(0)), ew.ne(x, x))
    return _select(invalid, _full(r, np.nan), r)


_LOG1P_NUM = (4.5270000862445199635215E-5, 4.9854102823193375972212E-1,
              6.5787325942061044846969E0, 2.9911919328553073277375E1,
              6.0949667980987787057556E1, 5.7112963590585538103336E1,
              2.0039553499201281259648E1)
_LOG1P_DEN = (1., 1.5062909083469192043167E1, 8.3047565967967209469434E1,
              2.2176239823732856465394E2, 3.0909872225312059774938E2,
              2.1642788614495947685003E2, 6.0118660497603843919306E1)


def _poly(x, coefficients):
    p = _full(x, 0)
    for c in coefficients:
        p = fma(p, x, _f32(c))
    return p


def log1p_f32(x, by_bits=False):
    """XLA's float32 log1p: a Cephes rational function for |x| < sqrt(2) - 1, else log(1 + x)."""
    large = log_f32(ew.add(x, _f32(1)), by_bits)
    x2 = ew.mul(x, x)
    small = ew.div(_poly(x, _LOG1P_NUM), _poly(x, _LOG1P_DEN))
    small = ew.mul(ew.mul(x, x2), small)
    small = fma(_full(x2, -0.5), x2, small)
    small = ew.add(x, small)
    return _select(ew.lt(ew.abs(x), _f32(0.41421356237309504880)), small, large)


_ERFINV_LT5 = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
               -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_GE5 = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
               -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def erf_inv_f32(x, by_bits=False):
    """XLA's float32 erf_inv (Giles' single-precision polynomial); ``by_bits`` as
    for ``log_f32`` (for an ``x`` without tangent, such as normal's uniforms)."""
    w = ew.neg(log1p_f32(ew.mul(x, ew.neg(x)), by_bits))
    lt = ew.lt(w, _f32(5))
    w = _select(lt, ew.sub(w, _f32(2.5)), ew.sub(ew.sqrt(w), _f32(3)))
    coeff = lambda i: _select(lt, _full(w, _ERFINV_LT5[i]), _full(w, _ERFINV_GE5[i]))
    p = coeff(0)
    for i in range(1, 9):
        p = fma(p, w, coeff(i))
    r = ew.mul(p, x)
    return _select(ew.eq(ew.abs(x), _f32(1)), ew.mul(x, _f32(np.inf)), r)
