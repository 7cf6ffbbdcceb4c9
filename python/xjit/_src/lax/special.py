"""Special functions of lax built from element-wise ops: erfc, erf_inv, lgamma,
digamma (JAX's names; XLA also expands these into element-wise math).

float16/bfloat16 inputs are computed in float32 and rounded back, as XLA does.

* ``erfc``: ``1 - erf(x)`` for ``|x| < 1``; above, Cephes' rational
  approximations times ``exp(-x**2)``, whose square is split so that the large
  part is exact (no cancellation in the tail).
* ``erf_inv``: Giles' single-precision polynomial (XLA's float32 algorithm);
  float64 refines it with Newton/Halley steps on ``erf``/``log(erfc)``.
* ``lgamma``/``digamma``: the Lanczos approximation (g = 7, 9 terms) with the
  reflection formula below 1/2, as XLA computes them.

Example:
    >>> from xjit import lax
    >>> lax.lgamma(np.float32(5.0))
    Array(3.1780548, dtype=float32)
"""
from __future__ import annotations

import math

import numpy as np

from xjit._src.lax import elementwise as ew
from xjit._src.lax import operands as ops
from xjit._src.traceback_util import api_boundary

_LOW_PRECISION = ("float16", "bfloat16")


def _float_operand(name: str, x):
    """``x`` as a float operand, and the dtype/weak flag its result must have."""
    ops.check_arraylike(name, x)
    dt = ops.dtype_of(x)
    ops.check_dtype(name, dt, "f", "floating")
    weak = ops.is_weak(x)
    if not isinstance(x, ops.VALUE_TYPES):
        x = ops.concrete_value(ops.as_operand(x, dt), weak)
    if dt.name in _LOW_PRECISION:
        x = ew._convert_element_type(x, np.float32, weak)
    return x, dt, weak


def _finish(y, dt, weak):
    return ew._convert_element_type(y, dt, weak)


def _horner(x, coefficients):
    """sum(c[i] * x**(n-1-i)): coefficients from the highest degree down."""
    p = ew._full_like(x, coefficients[0])
    for c in coefficients[1:]:
        p = ew.add(ew.mul(p, x), c)
    return p


def _is_f64(x) -> bool:
    return np.dtype(x.dtype) == np.float64


# ------------------------------------------------------------------------------ erfc

# Cephes ndtr.c: erfc(x) = exp(-x^2) P(x)/Q(x) on [1, 8), exp(-x^2) R(x)/S(x) above.
_ERFC_P = (2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
           4.86371970985681366614E1, 1.96520832956077098242E2, 5.26445194995477358631E2,
           9.34528527171957607540E2, 1.02755188689515710272E3, 5.57535335369399327526E2)
_ERFC_Q = (1.0, 1.32281951154744992508E1, 8.67072140885989742329E1, 3.54937778887819891062E2,
           9.75708501743205489753E2, 1.82390916687909736289E3, 2.24633760818710981792E3,
           1.65666309194161350182E3, 5.57535340817727675546E2)
_ERFC_R = (5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
           6.16021097993053585195E0, 7.40974269950448939160E0, 2.97886665372100240670E0)
_ERFC_S = (1.0, 2.26052863220117276590E0, 9.39603524938001434673E0, 1.20489539808096656605E1,
           1.70814450747565897222E1, 9.60896809063285878198E0, 3.36907645100081516050E0)


def _exp_neg_square(a):
    """exp(-a*a) for a >= 0: a = m + f with m a multiple of 1/128, so m*m is exact."""
    m = ew.div(ew.round(ew.mul(a, 128.0), ew.RoundingMethod.TO_NEAREST_EVEN), 128.0)
    f = ew.sub(a, m)
    rest = ew.add(ew.mul(ew.mul(2.0, m), f), ew.mul(f, f))
    return ew.mul(ew.exp(ew.neg(ew.mul(m, m))), ew.exp(ew.neg(rest)))


# float32 (and halves, computed in float32): Cephes' erfcf, as XLA expands
# chlo.erfc for JAX: x T(x^2) for erf below 1; above, exp(-x^2)/|x| times
# P(1/x^2) on [1, 2) or R(1/x^2) from 2, 0 where -x^2 < -88.72. One exp,
# no split square: a third of the float64 form's work.
_ERFC_F32_P = (2.326819970068386E-2, -1.387039388740657E-1, 3.687424674597105E-1,
               -5.824733027278666E-1, 6.210004621745983E-1, -4.944515323274145E-1,
               3.404879937665872E-1, -2.741127028184656E-1, 5.638259427386472E-1)
_ERFC_F32_R = (-1.047766399936249E+1, 1.297719955372516E+1, -7.495518717768503E+0,
               2.921019019210786E+0, -1.015265279202700E+0, 4.218463358204948E-1,
               -2.820767439740514E-1, 5.641895067754075E-1)
_ERF_F32_T = (7.853861353153693E-5, -8.010193625184903E-4, 5.188327685732524E-3,
              -2.685381193529856E-2, 1.128358514861418E-1, -3.761262582423300E-1,
              1.128379165726710E+0)


def _erfc_f32(x):
    a = ew.abs(x)
    x2 = ew.mul(x, x)
    z = ew.neg(x2)
    inv_x2 = ew.div(1.0, x2)
    scale = ew.mul(ew.exp(z), ew.div(1.0, a))
    poly = ew.select(ew.lt(a, 2.0), _horner(inv_x2, _ERFC_F32_P), _horner(inv_x2, _ERFC_F32_R))
    tail = ew.mul(scale, poly)
    tail = ew.select(ew.lt(z, -88.72283905206835), ew._full_like(tail, 0.0), tail)
    tail = ew.select(ew.lt(x, 0.0), ew.sub(2.0, tail), tail)
    small = ew.sub(1.0, ew.mul(x, _horner(x2, _ERF_F32_T)))
    return ew.select(ew.lt(a, 1.0), small, tail)


def _erfc(x):
    if np.dtype(x.dtype) == np.float32:
        return _erfc_f32(x)
    a = ew.abs(x)
    # Keep the rational branches in [1, 30], where they are used: below 1 the result
    # is 1 - erf(x); from 30 (float64 underflow at 27.3) they give exactly 0.
    a_tail = ew.clamp(1.0, a, 30.0)
    mid = ew.div(_horner(a_tail, _ERFC_P), _horner(a_tail, _ERFC_Q))
    far = ew.div(_horner(a_tail, _ERFC_R), _horner(a_tail, _ERFC_S))
    tail = ew.mul(_exp_neg_square(a_tail), ew.select(ew.lt(a_tail, 8.0), mid, far))
    tail = ew.select(ew.lt(x, 0.0), ew.sub(2.0, tail), tail)
    return ew.select(ew.lt(a, 1.0), ew.sub(1.0, ew.erf(x)), tail)


@api_boundary
def erfc(x):
    """Element-wise complementary error function ``1 - erf(x)``, accurate in the tail.

    Example:
        >>> lax.erfc(np.float32(3.0))
        Array(2.2090497e-05, dtype=float32)
    """
    x, dt, weak = _float_operand("erfc", x)
    return _finish(_erfc(x), dt, weak)


# --------------------------------------------------------------------------- erf_inv

# Giles, "Approximating the erfinv function" (GPU Computing Gems), single precision.
_ERFINV_SMALL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                 0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_LARGE = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                 0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _erf_inv_giles(y):
    w = ew.neg(ew.log1p(ew.neg(ew.mul(y, y))))
    small = ew.lt(w, 5.0)
    # Both branches are evaluated; keep sqrt's argument finite where it is unused.
    ws = ew.sub(w, 2.5)
    wl = ew.sub(ew.sqrt(ew.max(w, ew._full_like(w, 5.0))), 3.0)
    p = ew.select(small, _horner(ws, _ERFINV_SMALL), _horner(wl, _ERFINV_LARGE))
    return ew.mul(p, y)


def _erf_inv_refined(y):
    """float64: refine Giles' start for |y|. Near 1, Newton steps on
    log(erfc(x)) = log(1 - |y|) (smooth where erfc is tiny, and 1 - |y| is exact);
    elsewhere Halley steps on erf(x) = |y|."""
    a = ew.abs(y)
    x = ew.abs(_erf_inv_giles(a))
    x = ew.select(ew.lt(a, 1.0), x, ew._full_like(x, 1.0))   # keep the steps finite
    near_one = ew.gt(a, 0.5)
    log_one_minus_a = ew.log(ew.sub(1.0, a))
    for _ in range(4):
        slope = ew.mul(_TWO_OVER_SQRT_PI, ew.exp(ew.neg(ew.mul(x, x))))
        e = _erfc(x)
        tail_step = ew.div(ew.mul(ew.sub(ew.log(e), log_one_minus_a), e), slope)
        f = ew.sub(ew.erf(x), a)
        halley_step = ew.neg(ew.div(f, ew.add(slope, ew.mul(x, f))))
        x = ew.add(x, ew.select(near_one, tail_step, halley_step))
    return ew.mul(ew.sign(y), x)


@api_boundary
def erf_inv(x):
    """Element-wise inverse error function on [-1, 1] (±inf at ±1, NaN outside).

    Example:
        >>> lax.erf_inv(np.float32(0.5))
        Array(0.47693628, dtype=float32)
    """
    y, dt, weak = _float_operand("erf_inv", x)
    r = _erf_inv_refined(y) if _is_f64(y) else _erf_inv_giles(y)
    a = ew.abs(y)
    inf = ew.mul(y, math.inf)
    r = ew.select(ew.eq(a, 1.0), inf, r)
    r = ew.select(ew.gt(a, 1.0), ew._full_like(r, math.nan), r)
    return _finish(r, dt, weak)


# ---------------------------------------------------------------- lgamma, digamma

_LANCZOS_G = 7.0
_LANCZOS_BASE = 0.99999999999980993227684700473478
_LANCZOS = (676.520368121885098567009190444019, -1259.13921672240287047156078755283,
            771.3234287776530788486528258894, -176.61502916214059906584551354,
            12.507343278686904814458936853, -0.13857109526572011689554707,
            9.984369578019570859563e-6, 1.50563273514931155834e-7)
_LOG_PI = math.log(math.pi)
_LOG_SQRT_2PI = (math.log(2.0) + math.log(math.pi)) / 2.0
_LOG_G_HALF = math.log(_LANCZOS_G + 0.5)


def _lanczos_argument(x):
    """(reflect, z, t, log t): z = -x where x < 1/2 (reflected), x - 1 otherwise."""
    reflect = ew.lt(x, 0.5)
    z = ew.select(reflect, ew.neg(x), ew.sub(x, 1.0))
    t = ew.add(z, _LANCZOS_G + 0.5)
    # log(g + 1/2 + z) as log(g + 1/2) + log1p(z / (g + 1/2)): exact constant, accurate rest.
    log_t = ew.add(_LOG_G_HALF, ew.log1p(ew.div(z, _LANCZOS_G + 0.5)))
    return reflect, z, t, log_t


def _lgamma(x):
    reflect, z, t, log_t = _lanczos_argument(x)
    series = ew._full_like(x, _LANCZOS_BASE)
    for i, c in enumerate(_LANCZOS):
        series = ew.add(series, ew.div(c, ew.add(z, float(i + 1))))
    # (z + 1/2) log t - t, written so that t never overflows on its own.
    log_y = ew.add(ew.add(_LOG_SQRT_2PI, ew.mul(ew.sub(ew.add(z, 0.5), ew.div(t, log_t)), log_t)),
                   ew.log(series))
    # Reflection: lgamma(x) = log(pi) - lgamma(1 - x) - log|sin(pi x)|, with sin taken of
    # the fractional part folded into [0, 1/2] (exactly 0 at the poles).
    abs_x = ew.abs(x)
    frac = ew.sub(abs_x, ew.floor(abs_x))
    frac = ew.select(ew.gt(frac, 0.5), ew.sub(1.0, frac), frac)
    log_sin = ew.log(ew.sin(ew.mul(math.pi, frac)))
    reflection = ew.select(ew.is_finite(log_sin), ew.sub(ew.sub(_LOG_PI, log_sin), log_y),
                           ew.neg(log_sin))
    result = ew.select(reflect, reflection, log_y)
    return ew.select(ew.eq(abs_x, math.inf), ew._full_like(x, math.inf), result)


@api_boundary
def lgamma(x):
    """Element-wise ``log|Gamma(x)|`` (+inf at the poles and at ±inf).

    Example:
        >>> lax.lgamma(np.float32(0.5))
        Array(0.5723653, dtype=float32)
    """
    x, dt, weak = _float_operand("lgamma", x)
    return _finish(_lgamma(x), dt, weak)


def _digamma(x):
    reflect, z, t, log_t = _lanczos_argument(x)
    num = ew._full_like(x, 0.0)
    denom = ew._full_like(x, _LANCZOS_BASE)
    for i, c in enumerate(_LANCZOS):
        zi = ew.add(z, float(i + 1))
        num = ew.sub(num, ew.div(c, ew.mul(zi, zi)))
        denom = ew.add(denom, ew.div(c, zi))
    y = ew.sub(ew.add(log_t, ew.div(num, denom)), ew.div(_LANCZOS_G, t))
    # Reflection: psi(x) = psi(1 - x) - pi cot(pi x), with x moved into [-1/2, 1/2].
    reduced = ew.add(x, ew.abs(ew.floor(ew.add(x, 0.5))))
    angle = ew.mul(math.pi, reduced)
    reflection = ew.sub(y, ew.div(ew.mul(math.pi, ew.cos(angle)), ew.sin(angle)))
    result = ew.select(reflect, reflection, y)
    pole = ew.bitwise_and(ew.le(x, 0.0), ew.eq(x, ew.floor(x)))
    return ew.select(pole, ew._full_like(x, math.nan), result)


@api_boundary
def digamma(x):
    """Element-wise digamma ``psi(x) = d/dx log Gamma(x)`` (NaN at 0 and negative integers).

    Example:
        >>> lax.digamma(np.float32(1.0))
        Array(-0.5772154, dtype=float32)
    """
    x, dt, weak = _float_operand("digamma", x)
    return _finish(_digamma(x), dt, weak)
