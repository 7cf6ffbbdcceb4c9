"""numpy's element-wise math beyond the ufunc core (elementwise.py), written
as JAX writes them: inverse hyperbolics, angle conversions, ``copysign``,
``heaviside``, ``logaddexp``/``logaddexp2``, ``sinc``, ``ldexp``, ``frexp``,
``modf``, ``fabs``, ``nan_to_num``, ``gcd``/``lcm``.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.logaddexp(0.0, 0.0)
    Array(0.6931472, dtype=float32, weak_type=True)
"""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.lax import elementwise as lax_ew
from xjit._src.numpy import util
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary


def _float_unary(name, fn):
    @api_boundary
    def op(x, /):
        util.check_arraylike(name, x)
        (x,) = util.promote_args_inexact(name, x)
        return fn(x)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"numpy's ``{name}``; integer inputs promote to the default float."
    return op


arcsinh = _float_unary("arcsinh", lax_ew.asinh)
arccosh = _float_unary("arccosh", lax_ew.acosh)
arctanh = _float_unary("arctanh", lax_ew.atanh)
asinh, acosh, atanh = arcsinh, arccosh, arctanh
deg2rad = _float_unary("deg2rad", lambda x: lax_ew.mul(x, np.pi / 180))
rad2deg = _float_unary("rad2deg", lambda x: lax_ew.mul(x, 180 / np.pi))
radians, degrees = deg2rad, rad2deg


@api_boundary
def fabs(x, /):
    """Absolute value of real ``x`` as a float (numpy's ``fabs``: complex is a TypeError)."""
    util.check_arraylike("fabs", x)
    (x,) = util.promote_args_inexact("fabs", x)
    if dtypes.kind(x.dtype) == "c":
        raise TypeError("ufunc 'fabs' does not support complex dtypes")
    return lax_ew.abs(x)


@api_boundary
def copysign(x1, x2, /):
    """``x1``'s magnitude with ``x2``'s sign bit (-0.0 and NaN signs included)."""
    a, b = util.promote_args_inexact("copysign", x1, x2)
    if dtypes.kind(a.dtype) == "c":
        raise TypeError("copysign does not support complex-valued inputs")
    return jnp.where(jnp.signbit(b), -lax_ew.abs(a), lax_ew.abs(a))


@api_boundary
def heaviside(x1, x2, /):
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0`` (NaN stays NaN)."""
    a, b = util.promote_args_inexact("heaviside", x1, x2)
    zero = jnp.zeros_like(a)
    return jnp.where(a < 0, zero, jnp.where(a > 0, jnp.ones_like(a), jnp.where(a == 0, b, a)))


@api_boundary
def logaddexp(x1, x2, /):
    """``log(exp(x1) + exp(x2))`` without overflow (JAX's form)."""
    a, b = util.promote_args_inexact("logaddexp", x1, x2)
    amax = jnp.maximum(a, b)
    delta = a - b
    both_inf = jnp.isinf(a) & (a == b)  # inf - inf is NaN: the sum is then the infinity
    out = amax + jnp.log1p(jnp.exp(-jnp.abs(delta)))
    return jnp.where(jnp.isnan(delta) & ~both_inf, a + b, jnp.where(both_inf, amax, out))


@api_boundary
def logaddexp2(x1, x2, /):
    """``log2(2**x1 + 2**x2)`` without overflow."""
    a, b = util.promote_args_inexact("logaddexp2", x1, x2)
    ln2 = np.log(2)
    return logaddexp(a * ln2, b * ln2) / ln2


@api_boundary
def sinc(x, /):
    """``sin(pi x) / (pi x)``, 1 at 0 (numpy's normalised sinc)."""
    (x,) = util.promote_args_inexact("sinc", x)
    eq_zero = x == 0
    safe = jnp.where(eq_zero, jnp.ones_like(x), x)
    pi_x = safe * np.pi
    return jnp.where(eq_zero, jnp.ones_like(x), jnp.sin(pi_x) / pi_x)


def _float_layout(dt):
    """(integer type of the same width, mantissa bits, exponent bias) of float ``dt``."""
    info = dtypes.finfo(dt)
    ints = {16: np.int16, 32: np.int32, 64: np.int64}
    return ints[info.bits], int(info.nmant), int(info.maxexp) - 1


def _pow2(k, dt):
    """2**k exactly, for integer k within the normal exponents of ``dt``."""
    from xjit._src.lax import bits
    int_t, nmant, bias = _float_layout(dt)
    return bits.bitcast_convert_type(
        jnp.left_shift((k + bias).astype(int_t), jnp.asarray(nmant, int_t)), dt)


@api_boundary
def ldexp(x1, x2, /):
    """``x1 * 2**x2`` for integer ``x2``, exactly (in three power-of-two steps,
    so that no step overflows or underflows where the result does not)."""
    util.check_arraylike("ldexp", x1, x2)
    if dtypes.kind(np.dtype(util.dtype_of(x2))) not in "iub":
        raise TypeError(f"ldexp: the exponent must be an integer, got {util.dtype_of(x2)}")
    (x,) = util.promote_args_inexact("ldexp", x1)
    if dtypes.kind(x.dtype) == "c":
        raise TypeError("ldexp does not support complex-valued inputs")
    _, _, bias = _float_layout(x.dtype)
    e = jnp.clip(jnp.asarray(x2).astype(np.int32), -3 * bias, 3 * bias)
    steps = [e // 3, e // 3]
    steps.append(e - steps[0] - steps[1])
    for k in steps:
        x = x * _pow2(k, x.dtype)
    return x


@api_boundary
def frexp(x, /):
    """``(mantissa, exponent)`` with ``x = mantissa * 2**exponent``, ``0.5 <=
    |mantissa| < 1`` (zero, infinities and NaN: themselves and 0), read off
    the bits."""
    from xjit._src.lax import bits
    (x,) = util.promote_args_inexact("frexp", x)
    if dtypes.kind(x.dtype) == "c":
        raise TypeError("frexp does not support complex-valued inputs")
    int_t, nmant, bias = _float_layout(x.dtype)
    info = dtypes.finfo(x.dtype)
    special = (x == 0) | ~jnp.isfinite(x)
    subnormal = (jnp.abs(x) < info.tiny) & ~special
    scaled = jnp.where(subnormal, x * float(2.0 ** (nmant + 1)), x)  # exact: normal now
    b = bits.bitcast_convert_type(scaled, int_t)
    exp_mask = (1 << (info.bits - 1 - nmant)) - 1
    field = jnp.right_shift(b, jnp.asarray(nmant, int_t)) & jnp.asarray(exp_mask, int_t)
    e = field.astype(np.int32) - (bias - 1) - jnp.where(subnormal, nmant + 1, 0)
    keep = ~jnp.left_shift(jnp.asarray(exp_mask, int_t), jnp.asarray(nmant, int_t))
    m_bits = (b & keep) | jnp.left_shift(jnp.asarray(bias - 1, int_t), jnp.asarray(nmant, int_t))
    m = bits.bitcast_convert_type(m_bits, x.dtype)
    return jnp.where(special, x, m), jnp.where(special, 0, e).astype(np.int32)


@api_boundary
def modf(x, /, out=None):
    """``(fractional, integral)`` parts of ``x``, both with ``x``'s sign."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    (x,) = util.promote_args_inexact("modf", x)
    whole = jnp.trunc(x)
    frac = jnp.where(jnp.isinf(x), jnp.zeros_like(x), x - whole)
    return jnp.where(jnp.signbit(x), -jnp.abs(frac), jnp.abs(frac)), whole


@api_boundary
def nan_to_num(x, copy: bool = True, nan=0.0, posinf=None, neginf=None):
    """NaN to ``nan``, infinities to ``posinf``/``neginf`` (default: the dtype's extremes)."""
    del copy
    util.check_arraylike("nan_to_num", x)
    x = jnp.asarray(x)
    k = dtypes.kind(x.dtype)
    if k in "biu":
        return x
    if k == "c":
        re = nan_to_num(jnp.real(x), nan=nan, posinf=posinf, neginf=neginf)
        im = nan_to_num(jnp.imag(x), nan=nan, posinf=posinf, neginf=neginf)
        return jax_complex(re, im, x.dtype)
    info = dtypes.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = jnp.where(jnp.isnan(x), jnp.asarray(nan, x.dtype), x)
    out = jnp.where(jnp.isposinf(out), jnp.asarray(posinf, x.dtype), out)
    return jnp.where(jnp.isneginf(out), jnp.asarray(neginf, x.dtype), out)


def jax_complex(re, im, dtype):
    return (re + 1j * im).astype(dtype)


def _int_args(name, x1, x2):
    a, b = util.promote_args(name, x1, x2)
    if dtypes.kind(a.dtype) not in "iu":
        raise ValueError(f"Arguments to jax.numpy.{name} must be integers.")
    return a, b


@api_boundary
def gcd(x1, x2, /):
    """Greatest common divisor of integers (non-negative; gcd(0, 0) = 0)."""
    from xjit._src.lax import control_flow
    a, b = _int_args("gcd", x1, x2)
    a, b = jnp.abs(a), jnp.abs(b)

    def cond(ab):
        return jnp.any(ab[1] != 0)

    def body(ab):
        x, y = ab
        nonzero = y != 0
        safe = jnp.where(nonzero, y, jnp.ones_like(y))
        return jnp.where(nonzero, y, x), jnp.where(nonzero, x % safe, jnp.zeros_like(y))
    return control_flow.while_loop(cond, body, (a, b))[0]


@api_boundary
def lcm(x1, x2, /):
    """Least common multiple of integers (non-negative; lcm with 0 is 0)."""
    a, b = _int_args("lcm", x1, x2)
    d = gcd(a, b)
    zero = d == 0
    return jnp.where(zero, jnp.zeros_like(d),
                     jnp.abs(a) * (jnp.abs(b) // jnp.where(zero, jnp.ones_like(d), d)))


@api_boundary
def nextafter(x1, x2, /):
    """The float after ``x1`` in the direction of ``x2`` (on the bits; from
    zero, the smallest subnormal with ``x2``'s sign)."""
    from xjit._src.lax import bits
    a, b = util.promote_args_inexact("nextafter", x1, x2)
    if dtypes.kind(a.dtype) == "c":
        raise TypeError("nextafter does not support complex-valued inputs")
    int_t, _, _ = _float_layout(a.dtype)
    ia = bits.bitcast_convert_type(a, int_t)
    one = jnp.asarray(1, int_t)
    # Away from zero when moving toward larger magnitude, else toward it.
    away = (b > a) == (a > 0)
    stepped = bits.bitcast_convert_type(jnp.where(away, ia + one, ia - one), a.dtype)
    tiny = bits.bitcast_convert_type(jnp.asarray(1, int_t), a.dtype)
    from_zero = jnp.where(b > 0, tiny, -tiny)
    out = jnp.where(a == 0, from_zero, stepped)
    out = jnp.where(a == b, b, out)
    return jnp.where(jnp.isnan(a) | jnp.isnan(b), a + b, out)


@api_boundary
def spacing(x, /):
    """The distance from ``x`` to the next float of larger magnitude (negative for negative ``x``)."""
    (x,) = util.promote_args_inexact("spacing", x)
    toward = jnp.where(x < 0, -jnp.inf, jnp.inf).astype(x.dtype)  # -0.0 counts as 0
    out = nextafter(x, toward) - x
    return jnp.where(jnp.isinf(x), jnp.asarray(jnp.nan, x.dtype), out)


@api_boundary
def bitwise_count(x, /):
    """The number of 1 bits in ``|x|`` of an integer array (numpy's popcount), as uint8."""
    util.check_arraylike("bitwise_count", x)
    x = jnp.asarray(x)
    if dtypes.kind(x.dtype) not in "biu":
        raise TypeError(f"bitwise_count requires integer arguments, got {x.dtype}")
    if dtypes.kind(x.dtype) == "i":
        x = jnp.abs(x)
    return lax_ew.population_count(x).astype(np.uint8)


def _bit_layout(a, axis, bitorder):
    """``a`` (flattened when ``axis`` is None), the axis, and each bit's shift in a byte."""
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    if axis is None:
        a, axis = jnp.ravel(a), 0
    shifts = jnp.arange(8, dtype=np.uint8)
    return a, util.canonicalize_axis(axis, a.ndim), shifts[::-1] if bitorder == "big" else shifts


@api_boundary
def unpackbits(a, axis=None, count=None, bitorder: str = "big"):
    """The bits of a uint8 array as 0/1 uint8s, 8 per byte along ``axis``
    (flattened when None); ``count`` keeps that many (negative: drops)."""
    util.check_arraylike("unpackbits", a)
    a = jnp.asarray(a)
    if a.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    a, axis, shifts = _bit_layout(a, axis, bitorder)
    bits_ = (jnp.expand_dims(a, -1) >> shifts) & np.uint8(1)
    bits_ = jnp.moveaxis(bits_, -1, axis + 1)
    shape = list(a.shape)
    shape[axis] *= 8
    out = bits_.reshape(shape)
    if count is not None:
        idx = [slice(None)] * out.ndim
        idx[axis] = slice(None, count)
        out = out[tuple(idx)]
        if count > shape[axis]:
            pad = [(0, 0)] * out.ndim
            pad[axis] = (0, count - shape[axis])
            out = jnp.pad(out, pad)
    return out


@api_boundary
def packbits(a, axis=None, bitorder: str = "big"):
    """Groups of 8 elements of a boolean/integer array (nonzero: 1) along
    ``axis`` packed into uint8s (the last group zero-padded)."""
    util.check_arraylike("packbits", a)
    a = jnp.asarray(a)
    if dtypes.kind(a.dtype) not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    a, axis, shifts = _bit_layout(a, axis, bitorder)
    a = jnp.moveaxis((a != 0).astype(np.uint8), axis, -1)
    n = a.shape[-1]
    pad = (-n) % 8
    if pad:
        a = jnp.pad(a, [(0, 0)] * (a.ndim - 1) + [(0, pad)])
    a = a.reshape(a.shape[:-1] + ((n + pad) // 8, 8))
    packed = jnp.sum(a << shifts, axis=-1, dtype=np.uint8)
    return jnp.moveaxis(packed, -1, axis)
