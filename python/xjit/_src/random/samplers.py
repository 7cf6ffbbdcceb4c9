"""``xjit.random``'s functions: JAX's signatures, checks and algorithms, so that the
same key, shape and dtype give JAX's values (see docs/semantics.md, "xjit.random").

Each public function checks its arguments in Python and calls a jitted kernel
with the shape and dtype static, as JAX does: an eager call compiles once per
signature and runs as one fused program.

Example:
    >>> k = keys_mod.PRNGKey(0)
    >>> uniform(k, (2,))
    Array([0.947667 , 0.9785799], dtype=float32)
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial

import numpy as np

from xjit._src import config as config_mod
from xjit._src import dispatch, dtypes
from xjit._src.api import jit
from xjit._src.lax import control_flow
from xjit._src.lax import elementwise as ew
from xjit._src.lax import reductions
from xjit._src.lax import shapes
from xjit._src.random import keys as keys_mod
from xjit._src.random import threefry, xla_math
from xjit._src.random.keys import check_prng_key, return_keys
from xjit._src.traceback_util import api_boundary

UINT_DTYPES = threefry.UINT_DTYPES


# ------------------------------------------------------------------------ utilities

def _canonical_shape(shape) -> tuple:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        out = tuple(int(operator_index(d)) for d in shape)
    except TypeError:
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got "
                        f"{shape}.") from None
    if any(d < 0 for d in out):
        raise ValueError(f"Shapes must be 1D sequences of non-negative integers, got {shape}")
    return out


def operator_index(d):
    import operator
    if hasattr(d, "_trace"):
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got {d}")
    return operator.index(d)


def _user_dtype(dtype, default):
    dt = np.dtype(default if dtype is None else dtypes.dtype(dtype))
    return dispatch.canonicalize_dtype(dt)


def _is_float(dt) -> bool:
    return np.dtype(dt).name == "bfloat16" or np.issubdtype(np.dtype(dt), np.floating)


def _finfo(dt):
    return dtypes.finfo(dt)


def _check_shape(name: str, shape: tuple, *param_shapes) -> None:
    if param_shapes:
        try:
            shape_ = np.broadcast_shapes(shape, *param_shapes)
        except ValueError:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes="
                             f"{[tuple(shape), *map(tuple, param_shapes)]}") from None
        if shape != shape_:
            raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape "
                             f"argument, and the result of broadcasting the shapes must equal "
                             f"the shape argument, but got result {shape_} for shape argument "
                             f"{shape}.")


def _shape_of(x) -> tuple:
    return tuple(np.shape(x)) if not hasattr(x, "shape") else tuple(x.shape)


def _convert(x, dtype):
    return ew.convert_element_type(x, dtype)


def _bcast(x, shape):
    return threefry.broadcast_to(x, tuple(shape))


def _to_rank(x, rank: int):
    nd = len(_shape_of(x))
    return shapes.reshape(x, (1,) * (rank - nd) + _shape_of(x)) if nd < rank else x


def _split(keydata, num=2):
    shape = tuple(num) if isinstance(num, Sequence) else (num,)
    return threefry.split(keydata, shape)


def _key_at(keys, i):
    """Key ``i`` of a ``[n, 2]`` key array."""
    return shapes.reshape(shapes.slice_in_dim(keys, i, i + 1, axis=0), (2,))


def _is_f32(dtype) -> bool:
    return np.dtype(dtype) == np.float32


def _log(x):
    return xla_math.log_f32(x) if _is_f32(x.dtype) else ew.log(x)


def _log1p(x):
    return xla_math.log1p_f32(x) if _is_f32(x.dtype) else ew.log1p(x)


def _erf_inv(x, by_bits=False):
    """erf_inv as XLA computes it; ``by_bits`` for an ``x`` that carries no
    tangent (xla_math.log_f32)."""
    if _is_f32(x.dtype):
        return xla_math.erf_inv_f32(x, by_bits)
    if np.dtype(x.dtype).itemsize < 4:  # XLA evaluates half types in float32
        return _convert(xla_math.erf_inv_f32(_convert(x, np.float32), by_bits), x.dtype)
    return _erf_inv_f64(x)


_ERFINV64_LT625 = (-3.6444120640178196996e-21, -1.685059138182016589e-19,
                   1.2858480715256400167e-18, 1.115787767802518096e-17,
                   -1.333171662854620906e-16, 2.0972767875968561637e-17,
                   6.6376381343583238325e-15, -4.0545662729752068639e-14,
                   -8.1519341976054721522e-14, 2.6335093153082322977e-12,
                   -1.2975133253453532498e-11, -5.4154120542946279317e-11,
                   1.051212273321532285e-09, -4.1126339803469836976e-09,
                   -2.9070369957882005086e-08, 4.2347877827932403518e-07,
                   -1.3654692000834678645e-06, -1.3882523362786468719e-05,
                   0.0001867342080340571352, -0.00074070253416626697512,
                   -0.0060336708714301490533, 0.24015818242558961693, 1.6536545626831027356)
_ERFINV64_LT16 = (2.2137376921775787049e-09, 9.0756561938885390979e-08,
                  -2.7517406297064545428e-07, 1.8239629214389227755e-08,
                  1.5027403968909827627e-06, -4.013867526981545969e-06,
                  2.9234449089955446044e-06, 1.2475304481671778723e-05,
                  -4.7318229009055733981e-05, 6.8284851459573175448e-05,
                  2.4031110387097893999e-05, -0.0003550375203628474796,
                  0.00095328937973738049703, -0.0016882755560235047313,
                  0.0024914420961078508066, -0.0037512085075692412107,
                  0.005370914553590063617, 1.0052589676941592334, 3.0838856104922207635)
_ERFINV64_GT16 = (-2.7109920616438573243e-11, -2.5556418169965252055e-10,
                  1.5076572693500548083e-09, -3.7894654401267369937e-09,
                  7.6157012080783393804e-09, -1.4960026627149240478e-08,
                  2.9147953450901080826e-08, -6.7711997758452339498e-08,
                  2.2900482228026654717e-07, -9.9298272942317002539e-07,
                  4.5260625972231537039e-06, -1.9681778105531670567e-05,
                  7.5995277030017761139e-05, -0.00021503011930044477347,
                  -0.00013871931833623122026, 1.0103004648645343977, 4.8499064014085844221)


def _erf_inv_f64(x):
    """Giles' double-precision erf_inv (as XLA's), on xjit's own log1p and sqrt."""
    w = ew.neg(ew.log1p(ew.mul(x, ew.neg(x))))

    def horner(coeffs, t):
        p = shapes.full_like(t, coeffs[0])
        for c in coeffs[1:]:
            p = ew.add(ew.mul(p, t), c)
        return p
    lt625 = ew.lt(w, 6.25)
    lt16 = ew.lt(w, 16.0)
    p1 = horner(_ERFINV64_LT625, ew.sub(w, 3.125))
    sw = ew.sqrt(w)
    p2 = horner(_ERFINV64_LT16, ew.sub(sw, 3.25))
    p3 = horner(_ERFINV64_GT16, ew.sub(sw, 5.0))
    p = ew.select(lt625, p1, ew.select(lt16, p2, p3))
    r = ew.mul(p, x)
    return ew.select(ew.eq(ew.abs(x), 1.0), ew.mul(x, np.inf), r)


def _madd(a, b, c):
    """``a * b + c`` as XLA's CPU code computes it: one fused multiply-add for float32."""
    if _is_f32(getattr(a, "dtype", None) or np.float32):
        return xla_math.fma(a, b, c)
    return ew.add(ew.mul(a, b), c)


def _check_float_dtype(fn: str, dtype, kinds="a float"):
    if not _is_float(dtype):
        raise ValueError(f"dtype argument to `{fn}` must be {kinds} dtype, got {dtype}")


# ------------------------------------------------------------------------ key functions

@api_boundary
def split(key, num=2):
    """``num`` new keys (an int or a shape): ``k1, k2 = split(key)``."""
    data, typed = check_prng_key("split", key)
    shape = tuple(num) if isinstance(num, Sequence) else (num,)
    return return_keys(typed, _split_jit(data, tuple(int(d) for d in shape)))


@partial(jit, static_argnums=(1,))
def _split_jit(data, shape):
    return threefry.split(data, shape)


@api_boundary
def fold_in(key, data):
    """A new key from ``key`` and a 32-bit integer: ``fold_in(key, step)``."""
    kd, typed = check_prng_key("fold_in", key)
    if np.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {np.shape(data)} != (). Use jax.vmap for batching.")
    msg = keys_mod._as_array(data) if not isinstance(data, int) else \
        np.asarray(data & 0xFFFFFFFF, np.uint32)
    return return_keys(typed, _fold_in_jit(kd, msg))


@jit
def _fold_in_jit(kd, msg):
    return threefry.fold_in(kd, msg)


@api_boundary
def bits(key, shape=(), dtype=None):
    """Uniform random bits as unsigned integers: ``bits(key, (3,), jnp.uint8)``."""
    kd, _ = check_prng_key("bits", key)
    dtype = _user_dtype(dtype, np.uint64 if config_mod.x64_enabled() else np.uint32)
    if not np.issubdtype(dtype, np.unsignedinteger):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    return _bits_jit(kd, np.dtype(dtype).itemsize * 8, _canonical_shape(shape))


@partial(jit, static_argnums=(1, 2))
def _bits_jit(kd, bit_width, shape):
    return threefry.random_bits(kd, bit_width, shape)


# ------------------------------------------------------------------------ uniform and friends

@api_boundary
def uniform(key, shape=(), dtype=None, minval=0., maxval=1.):
    """Uniform floats in ``[minval, maxval)``: ``uniform(key, (2, 3))``."""
    kd, _ = check_prng_key("uniform", key)
    dtype = _user_dtype(dtype, float)
    shape = _canonical_shape(shape)
    _check_float_dtype("uniform", dtype)
    return _uniform(kd, minval, maxval, shape, np.dtype(dtype))


def _uniform_impl(kd, minval, maxval, shape, dtype):
    _check_shape("uniform", shape)
    minval = _to_rank(_convert(minval, dtype), len(shape))
    maxval = _to_rank(_convert(maxval, dtype), len(shape))
    fi = _finfo(dtype)
    nbits, nmant = fi.bits, fi.nmant
    if nbits not in (8, 16, 32, 64):
        raise TypeError(f"uniform only accepts 8-, 16-, 32-, or 64-bit dtypesgot {dtype}.")
    rng_bits = 8 if nmant < 8 else nbits
    b = threefry.random_bits(kd, rng_bits, shape)
    uint_dtype = UINT_DTYPES[nbits]
    if rng_bits != nbits:
        b = _convert(b, uint_dtype)
    # JAX ors the mantissa bits into 1.0 and subtracts 1; m * 2**-nmant is the same value.
    mant = ew.shift_right_logical(b, uint_dtype.type(rng_bits - nmant))
    floats = ew.mul(dispatch.bind("convert", [mant], {"dtype": np.dtype(dtype).name}),
                    np.array(2.0 ** -nmant, dtype))
    span = ew.sub(maxval, minval)
    if _is_f32(dtype):  # XLA contracts floats * span + minval into one fma
        out = xla_math.fma(floats, _bcast(span, shape), _bcast(minval, shape))
    else:
        out = ew.add(ew.mul(floats, span), minval)
    return ew.max(minval, shapes.reshape(out, shape)) if shape else ew.max(minval, out)


_uniform = jit(_uniform_impl, static_argnums=(3, 4))


def _uniform_in_trace(kd, shape, dtype, minval=0., maxval=1.):
    return _uniform_impl(kd, minval, maxval, tuple(shape), np.dtype(dtype))


@api_boundary
def normal(key, shape=(), dtype=None):
    """Standard normal floats (complex too): ``normal(key, (3,))``."""
    kd, _ = check_prng_key("normal", key)
    shape = _canonical_shape(shape)
    dtype = _user_dtype(dtype, float)
    dt = np.dtype(dtype)
    if not (_is_float(dt) or np.issubdtype(dt, np.complexfloating)):
        raise ValueError(f"dtype argument to `normal` must be a float or complex dtype, "
                         f"got {dtype}")
    return _normal(kd, shape, dt)


def _normal_real(kd, shape, dtype):
    _check_shape("normal", shape)
    lo = np.nextafter(np.array(-1., dtype), np.array(0., dtype), dtype=dtype)
    u = _uniform_in_trace(kd, shape, dtype, lo, np.array(1., dtype))
    # u comes from the key's bits: no tangent reaches it.
    return ew.mul(np.array(np.sqrt(2), dtype), _erf_inv(u, by_bits=True))


@partial(jit, static_argnums=(1, 2))
def _normal(kd, shape, dtype):
    if np.issubdtype(dtype, np.complexfloating):
        real_dtype = np.array(0, dtype).real.dtype
        k_re, k_im = _key_at(_split(kd), 0), _key_at(_split(kd), 1)
        re = _normal_real(k_re, shape, real_dtype)
        im = _normal_real(k_im, shape, real_dtype)
        # JAX divides (re + 1j * im) by sqrt(2); XLA multiplies by its reciprocal.
        inv = np.array(1, real_dtype) / np.array(np.sqrt(2), real_dtype)
        return ew.complex(ew.mul(re, inv), ew.mul(im, inv))
    return _normal_real(kd, shape, dtype)


@api_boundary
def bernoulli(key, p=0.5, shape=None, mode="low"):
    """Booleans that are True with probability ``p``: ``bernoulli(key, 0.3, (5,))``."""
    if shape is not None:
        shape = _canonical_shape(shape)
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    kd, _ = check_prng_key("bernoulli", key)
    dt = keys_mod._as_array(p).dtype if not isinstance(p, float) else \
        dispatch.python_scalar_dtype(p)
    if not _is_float(dt):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dt}.")
    return _bernoulli(kd, p, shape, mode)


@partial(jit, static_argnums=(2, 3))
def _bernoulli(kd, p, shape, mode):
    shape = _shape_of(p) if shape is None else shape
    _check_shape("bernoulli", shape, _shape_of(p))
    dtype = np.dtype(p.dtype)
    if mode == "high":
        u = _uniform_in_trace(kd, (2, *shape), dtype)
        u1 = shapes.reshape(shapes.slice_in_dim(u, 0, 1), shape)
        u2 = shapes.reshape(shapes.slice_in_dim(u, 1, 2), shape)
        u2 = ew.mul(u2, np.array(2.0 ** -_finfo(dtype).nmant, dtype))
        return ew.lt(u2, ew.sub(p, u1))
    return ew.lt(_uniform_in_trace(kd, shape, dtype), p)


def _clip_integer(val, dtype):
    """val (integer) converted to ``dtype``, clipped to its range instead of wrapping."""
    vi, ti = np.iinfo(val.dtype), np.iinfo(dtype)
    lo = np.array(max(ti.min, vi.min), val.dtype)
    hi = np.array(min(ti.max, vi.max), val.dtype)
    return _convert(ew.clamp(lo, val, hi), dtype)


@api_boundary
def randint(key, shape, minval, maxval, dtype=None):
    """Integers in ``[minval, maxval)``: ``randint(key, (3,), 0, 10)``."""
    from xjit._src.numpy import creation
    kd, _ = check_prng_key("randint", key)
    dtype = _user_dtype(dtype, int)
    shape = _canonical_shape(shape)
    if not np.issubdtype(dtype, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    info = np.iinfo(dtype)
    sampling = np.dtype(dtype)
    if info.bits < 32:
        sampling = np.dtype("int32")
        minval = ew.clamp(np.int32(info.min), _convert(creation.asarray(minval), np.int32),
                          np.int32(info.max))
        maxval = ew.clamp(np.int32(info.min), _convert(creation.asarray(maxval), np.int32),
                          np.int32(min(info.max + 1, np.iinfo(np.int32).max)))
    return _convert(_randint(kd, minval, maxval, shape, sampling), dtype)


@partial(jit, static_argnums=(3, 4))
def _randint(kd, minval, maxval, shape, dtype):
    _check_shape("randint", shape, _shape_of(minval), _shape_of(maxval))
    if not np.issubdtype(minval.dtype, np.integer):
        minval = _convert(minval, dispatch.canonicalize_dtype(np.dtype(int)))
    if not np.issubdtype(maxval.dtype, np.integer):
        maxval = _convert(maxval, dispatch.canonicalize_dtype(np.dtype(int)))
    dmax = _clip_integer(np.array(np.iinfo(dtype).max, dtype), maxval.dtype)
    maxval_out_of_range = ew.gt(maxval, dmax)
    minval = _to_rank(_clip_integer(minval, dtype), len(shape))
    maxval = _to_rank(_clip_integer(maxval, dtype), len(shape))
    maxval_out_of_range = _to_rank(maxval_out_of_range, len(shape))
    nbits = np.iinfo(dtype).bits
    ks = _split(kd)
    higher = threefry.random_bits(_key_at(ks, 0), nbits, shape)
    lower = threefry.random_bits(_key_at(ks, 1), nbits, shape)
    udt = UINT_DTYPES[nbits]
    span = _bcast(_convert(ew.sub(maxval, minval), udt), shape)
    le = _bcast(ew.le(maxval, minval), shape)
    span = ew.select(le, shapes.full_like(span, 1), span)
    grow = _bcast(ew.bitwise_and(maxval_out_of_range, ew.gt(maxval, minval)), shape)
    span = ew.select(grow, ew.add(span, udt.type(1)), span)
    multiplier = ew.rem(shapes.full_like(span, 2 ** (nbits // 2)), span)
    multiplier = ew.rem(ew.mul(multiplier, multiplier), span)
    offset = ew.add(ew.mul(ew.rem(higher, span), multiplier), ew.rem(lower, span))
    offset = ew.rem(offset, span)
    return ew.add(_bcast(minval, shape), _convert(offset, dtype))


@api_boundary
def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Normal floats restricted to ``(lower, upper)``: ``truncated_normal(key, -1., 1., (4,))``."""
    if shape is not None:
        shape = _canonical_shape(shape)
    kd, _ = check_prng_key("truncated_normal", key)
    dtype = _user_dtype(dtype, float)
    _check_float_dtype("truncated_normal", dtype)
    return _truncated_normal(kd, lower, upper, shape, np.dtype(dtype))


def _nextafter_toward(x, direction: float):
    """nextafter(x, +-inf) for float32 ``x`` without bit casts: x +- one ulp."""
    direction = 1.0 if direction > 0 else -1.0
    ax = ew.max(ew.abs(x), np.float32(np.finfo(np.float32).tiny))
    m, _ = xla_math.frexp_f32(ax)
    ulp = ew.mul(ew.div(ax, m), np.float32(2.0 ** -24))  # |x| / m is exactly 2**e
    # Moving toward zero from a power of two the step is half an ulp.
    away = ew.gt(ew.mul(x, np.float32(direction)), np.float32(0))
    half = ew.bitwise_and(ew.bitwise_not(away), ew.eq(m, np.float32(0.5)))
    step = ew.select(half, ew.mul(ulp, np.float32(0.5)), ulp)
    tiny_step = np.float32(np.nextafter(np.float32(0), np.float32(1)))
    step = ew.select(ew.lt(ew.abs(x), np.float32(np.finfo(np.float32).tiny)),
                     shapes.full_like(step, tiny_step), step)
    out = ew.add(x, ew.mul(step, np.float32(direction)))
    return ew.select(ew.is_finite(x), out, x)


@partial(jit, static_argnums=(3, 4))
def _truncated_normal(kd, lower, upper, shape, dtype):
    if shape is None:
        shape = np.broadcast_shapes(_shape_of(lower), _shape_of(upper))
    else:
        _check_shape("truncated_normal", shape, _shape_of(lower), _shape_of(upper))
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = _convert(lower, dtype)
    upper = _convert(upper, dtype)
    a = ew.erf(ew.div(lower, sqrt2))
    b = ew.erf(ew.div(upper, sqrt2))
    u = _uniform_in_trace(kd, shape, dtype, a, b)
    out = ew.mul(sqrt2, _erf_inv(u))
    if _is_f32(dtype):
        lo, hi = _nextafter_toward(lower, np.inf), _nextafter_toward(upper, -np.inf)
    else:
        raise NotImplementedError("truncated_normal: only float32 is implemented (nextafter "
                                  "for other dtypes needs bitcast_convert_type)")
    return ew.min(ew.max(out, _to_rank(lo, len(shape))), _to_rank(hi, len(shape)))


def _simple(name, body, static=(1, 2)):
    """A sampler ``f(key, shape=(), dtype=None)`` whose kernel is ``body(key, shape, dtype)``."""
    kernel = jit(body, static_argnums=static)

    def f(key, shape=(), dtype=None):
        kd, _ = check_prng_key(name, key)
        dtype = _user_dtype(dtype, float)
        _check_float_dtype(name, dtype)
        shape = _canonical_shape(shape)
        return kernel(kd, shape, np.dtype(dtype))
    f.__name__ = f.__qualname__ = name
    return api_boundary(f)


def _exponential_body(kd, shape, dtype):
    _check_shape("exponential", shape)
    u = _uniform_in_trace(kd, shape, dtype)
    return ew.neg(_log1p(ew.neg(u)))


def _laplace_body(kd, shape, dtype):
    _check_shape("laplace", shape)
    u = _uniform_in_trace(kd, shape, dtype, np.array(-1. + _finfo(dtype).epsneg, dtype), 1.)
    return ew.mul(ew.sign(u), _log1p(ew.neg(ew.abs(u))))


def _logistic_body(kd, shape, dtype):
    _check_shape("logistic", shape)
    x = _uniform_in_trace(kd, shape, dtype, np.array(_finfo(dtype).tiny, dtype), 1.)
    return ew.sub(_log(x), _log1p(ew.neg(x)))


def _cauchy_body(kd, shape, dtype):
    _check_shape("cauchy", shape)
    u = _uniform_in_trace(kd, shape, dtype, np.array(_finfo(dtype).eps, dtype), 1.)
    return ew.tan(ew.mul(np.array(np.pi, dtype), ew.sub(u, np.array(0.5, dtype))))


exponential = _simple("exponential", _exponential_body)
exponential.__doc__ = "Exponential(1) floats: ``exponential(key, (3,))``."
laplace = _simple("laplace", _laplace_body)
laplace.__doc__ = "Laplace(0, 1) floats: ``laplace(key, (3,))``."
logistic = _simple("logistic", _logistic_body)
logistic.__doc__ = "Logistic(0, 1) floats: ``logistic(key, (3,))``."
cauchy = _simple("cauchy", _cauchy_body)
cauchy.__doc__ = "Cauchy(0, 1) floats: ``cauchy(key, (3,))``."


@api_boundary
def gumbel(key, shape=(), dtype=None, mode=None):
    """Gumbel(0, 1) floats: ``gumbel(key, (3,))``; ``mode`` 'low' (default) or 'high'."""
    kd, _ = check_prng_key("gumbel", key)
    dtype = _user_dtype(dtype, float)
    _check_float_dtype("gumbel", dtype)
    shape = _canonical_shape(shape)
    mode = "low" if mode is None else mode
    if mode not in ("high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return _gumbel(kd, shape, np.dtype(dtype), mode)


def _gumbel_impl(kd, shape, dtype, mode):
    _check_shape("gumbel", shape)
    info = _finfo(dtype)
    if mode == "high":
        u = _uniform_in_trace(kd, (2,) + tuple(shape), dtype)
        high = shapes.reshape(shapes.slice_in_dim(u, 0, 1), shape)
        low = shapes.reshape(shapes.slice_in_dim(u, 1, 2), shape)
        x = ew.select(ew.ge(high, np.array(0.5, dtype)), high,
                      ew.add(ew.add(high, ew.mul(np.array(2.0 ** -info.nmant, dtype), low)),
                             np.array(info.tiny, dtype)))
        return ew.neg(_log(ew.neg(_log1p(ew.neg(x)))))
    u = _uniform_in_trace(kd, shape, dtype, np.array(info.tiny, dtype), 1.)
    return ew.neg(_log(ew.neg(_log(u))))


_gumbel = jit(_gumbel_impl, static_argnums=(1, 2, 3))


@api_boundary
def rademacher(key, shape=(), dtype=None):
    """-1 or +1 with equal probability: ``rademacher(key, (4,))``."""
    kd, _ = check_prng_key("rademacher", key)
    dtype = _user_dtype(dtype, int)
    shape = _canonical_shape(shape)
    return _rademacher(kd, shape, np.dtype(dtype))


@partial(jit, static_argnums=(1, 2))
def _rademacher(kd, shape, dtype):
    b = _convert(ew.lt(_uniform_in_trace(kd, shape, np.float32), np.float32(0.5)), dtype)
    return _convert(ew.sub(ew.mul(dtype.type(2), b), dtype.type(1)), dtype)


@api_boundary
def categorical(key, logits, axis: int = -1, shape=None, replace: bool = True, mode=None):
    """Samples of ``softmax(logits, axis)``: ``categorical(key, logits, shape=(5,))``."""
    from xjit._src.numpy import creation
    kd, _ = check_prng_key("categorical", key)
    logits = keys_mod._as_array(logits) if not isinstance(logits, (list, tuple)) else \
        creation.asarray(logits)
    if not _is_float(logits.dtype):
        logits = _convert(logits, dispatch.canonicalize_dtype(np.dtype(float)))
    ndim = len(logits.shape)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    batch_shape = tuple(np.delete(np.array(logits.shape, dtype=np.int64), axis).tolist())
    if shape is None:
        shape = batch_shape
    else:
        shape = _canonical_shape(shape)
        _check_shape("categorical", shape, batch_shape)
    mode = "low" if mode is None else mode
    return _categorical(kd, logits, shape, batch_shape, axis, replace, mode)


def _categorical(kd, logits, shape, batch_shape, axis, replace, mode):
    from xjit._src.numpy import reductions as np_red
    prefix = shape[:len(shape) - len(batch_shape)]
    ndim = len(logits.shape)
    if replace:
        if axis >= 0:
            axis -= ndim
        logits_shape = list(shape[len(shape) - len(batch_shape):])
        logits_shape.insert(axis % ndim, logits.shape[axis])
        g = _gumbel(kd, (*prefix, *logits_shape), np.dtype(logits.dtype), mode)
        x = ew.add(g, shapes.expand_dims(logits, tuple(range(len(prefix)))))
        return np_red.argmax(x, axis=axis)
    top_k = _public_lax("top_k")
    if top_k is None:
        raise NotImplementedError("categorical(replace=False) needs lax.top_k (the sort op)")
    logits = ew.add(logits, _gumbel(kd, tuple(logits.shape), np.dtype(logits.dtype), mode))
    k = math.prod(prefix)
    if k > logits.shape[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number of "
                         f"categories ({logits.shape[axis]}).")
    from xjit._src.numpy import shape_ops
    _, indices = top_k(shape_ops.moveaxis(logits, axis, -1), k)
    dims = (len(indices.shape) - 1, *range(len(indices.shape) - 1))
    return shapes.reshape(indices, shape, dims)


@api_boundary
def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0, mode=None):
    """Samples from ``a`` (an array, or ``arange(a)``): ``choice(key, 5, (3,), p=probs)``."""
    from xjit._src.numpy import creation, cumulative, indexing
    kd, _ = check_prng_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    arr = creation.asarray(a)
    if arr.ndim == 0:
        if hasattr(a, "_trace"):
            raise TypeError("choice: `a` must be concrete when it is a scalar")
        n_inputs = int(a)
    else:
        axis = axis % arr.ndim if -arr.ndim <= axis < arr.ndim else \
            _raise(ValueError(f"axis {axis} is out of bounds for array of dimension {arr.ndim}"))
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return creation.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population "
                         f"(size {n_inputs}) when 'replace=False'")
    if p is None:
        if replace:
            ind = randint(kd, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else indexing.take(arr, ind, axis)
        else:
            slices = (slice(None),) * axis + (slice(n_draws),)
            result = permutation(kd, n_inputs if arr.ndim == 0 else arr, axis)[slices]
    else:
        p_arr = creation.asarray(p)
        if not _is_float(p_arr.dtype):
            p_arr = _convert(p_arr, dispatch.canonicalize_dtype(np.dtype(float)))
        if tuple(p_arr.shape) != (n_inputs,):
            raise ValueError("p must be None or a 1D vector with the same size as "
                             f"a.shape[axis]. p has shape {tuple(p_arr.shape)} and "
                             f"a.shape[axis] is {n_inputs}.")
        if replace:
            p_cuml = cumulative.cumsum(p_arr)
            total = shapes.reshape(shapes.slice_in_dim(p_cuml, n_inputs - 1, n_inputs), ())
            r = ew.mul(total, ew.sub(np.array(1, p_cuml.dtype),
                                     uniform(kd, shape, dtype=p_cuml.dtype)))
            # searchsorted(p_cuml, r, side='left'): how many cumulative sums are below r.
            below = ew.lt(_bcast(p_cuml, tuple(shape) + (n_inputs,)),
                          shapes.expand_dims(r, (len(shape),)))
            ind = reductions.reduce_sum(_convert(below, np.int32), (len(shape),))
            ind = _convert(ind, dispatch.canonicalize_dtype(np.dtype(int)))
        else:
            top_k = _public_lax("top_k")
            if top_k is None:
                raise NotImplementedError("choice(replace=False, p=...) needs lax.top_k "
                                          "(the sort op)")
            g = ew.add(gumbel(kd, (n_inputs,), dtype=p_arr.dtype, mode=mode), _log(p_arr))
            ind = _convert(top_k(g, k=n_draws)[1],
                           dispatch.canonicalize_dtype(np.dtype(int)))
        result = ind if arr.ndim == 0 else indexing.take(arr, ind, axis)
    out_shape = tuple(shape) if arr.ndim == 0 else \
        tuple(arr.shape[:axis]) + tuple(shape) + tuple(arr.shape[axis + 1:])
    return shapes.reshape(result, out_shape)


def _public_lax(name: str):
    """``xjit.lax.<name>`` or None: sort_key_val and top_k come with the sort op (another
    part of the issue); looked up at call time so these samplers use them once they exist."""
    import sys
    return getattr(sys.modules.get("xjit.lax"), name, None)


def _raise(e):
    raise e


@api_boundary
def permutation(key, x, axis: int = 0, independent: bool = False):
    """A shuffled copy of ``x`` along ``axis`` (or of ``arange(x)``): ``permutation(key, 10)``."""
    from xjit._src.numpy import creation, indexing
    kd, _ = check_prng_key("permutation", key)
    if _public_lax("sort_key_val") is None:
        raise NotImplementedError("permutation/shuffle need lax.sort_key_val (the sort op)")
    if np.ndim(x) == 0:
        if not np.issubdtype(np.asarray(x).dtype if not hasattr(x, "dtype") else x.dtype,
                             np.integer):
            raise TypeError("x must be an integer or at least 1-dimensional")
        return _shuffle(kd, creation.arange(int(x)), 0)
    x = creation.asarray(x)
    axis = axis % x.ndim
    if independent or x.ndim == 1:
        return _shuffle(kd, x, axis)
    ind = _shuffle(kd, creation.arange(x.shape[axis]), 0)
    return indexing.take(x, ind, axis)


def _shuffle(kd, x, axis):
    sort_key_val = _public_lax("sort_key_val")
    exponent = 3
    uint32max = np.iinfo(np.uint32).max
    size = math.prod(x.shape)
    num_rounds = int(np.ceil(exponent * np.log(max(1, size)) / np.log(uint32max)))
    for _ in range(num_rounds):
        ks = _split(kd)
        kd, sub = _key_at(ks, 0), _key_at(ks, 1)
        sort_keys = threefry.random_bits(sub, 32, tuple(x.shape))
        _, x = sort_key_val(sort_keys, x, axis)
    return x


# ------------------------------------------------------------------------ gamma family

def _gamma_one_batched(keys, alpha, log_space):
    """Marsaglia-Tsang for each element of ``alpha`` ([n]) with its own key ([n, 2]), as
    JAX's vmapped ``_gamma_one``: lanes loop until each one accepts."""
    dtype = np.dtype(alpha.dtype)
    c = lambda v: np.array(v, dtype)
    one = c(1)
    boost_mask = ew.ge(alpha, one)
    alpha_orig = alpha
    alpha = ew.select(boost_mask, alpha, ew.add(alpha, one))
    d = ew.sub(alpha, c(1. / 3.))
    cc = ew.div(c(1. / 3.), ew.sqrt(d))
    n = alpha.shape[0]

    def split_rows(ks, num):
        return threefry.split(ks, (num,))  # [n, num, 2]

    def row(ks, i):
        return shapes.reshape(shapes.slice_in_dim(ks, i, i + 1, axis=1), (n, 2))

    def cond_fn(state):
        _, X, V, U, _active = state
        cond = ew.bitwise_and(
            ew.ge(U, _madd(ew.mul(X, X), c(-0.0331), one)),
            ew.ge(_log(U), _madd(X, c(0.5), ew.mul(d, ew.add(ew.sub(one, V), _log(V))))))
        return cond

    def normal_scalar(k):
        # normal(k, ()) per lane: the counters of shape () are (0, 0).
        lo = np.nextafter(np.array(-1., dtype), np.array(0., dtype), dtype=dtype)
        u = _uniform_batched(k, dtype, lo, np.array(1., dtype))
        return ew.mul(np.array(np.sqrt(2), dtype), _erf_inv(u))

    def body_fn(state):
        key, _, _, _, active = state
        ks = split_rows(key, 3)
        new_key, x_key, u_key = row(ks, 0), row(ks, 1), row(ks, 2)

        def inner_cond(s):
            return reductions.reduce_or(ew.bitwise_and(s[3], ew.le(s[2], c(0))), (0,))

        def inner_body(s):
            k, x, v, inner_active = s
            live = ew.bitwise_and(inner_active, ew.le(v, c(0)))
            ks2 = split_rows(k, 2)
            k_new, sub = row(ks2, 0), row(ks2, 1)
            x_new = normal_scalar(sub)
            v_new = _madd(x_new, cc, one)
            live2 = shapes.broadcast_in_dim(live, (n, 2), (0,))
            return (ew.select(live2, k_new, k), ew.select(live, x_new, x),
                    ew.select(live, v_new, v), inner_active)

        zero = shapes.full((n,), 0, dtype)
        _, x, v, _ = control_flow.while_loop(
            inner_cond, inner_body, (x_key, zero, shapes.full((n,), -1, dtype), active))
        X = ew.mul(x, x)
        V = ew.mul(ew.mul(v, v), v)
        U = _uniform_batched(u_key, dtype, c(0), c(1))
        return new_key, X, V, U, active

    def outer_cond(state):
        return reductions.reduce_or(ew.bitwise_and(state[4], cond_fn(state)), (0,))

    def outer_body(state):
        live = ew.bitwise_and(state[4], cond_fn(state))
        new = body_fn(state)
        live2 = shapes.broadcast_in_dim(live, (n, 2), (0,))
        return (ew.select(live2, new[0], state[0]),) + tuple(
            ew.select(live, a, b) for a, b in zip(new[1:4], state[1:4])) + (state[4],)

    ks = split_rows(keys, 2)
    key, subkey = row(ks, 0), row(ks, 1)
    full = lambda v: shapes.full((n,), v, dtype)
    active = shapes.full((n,), True, np.bool_)
    _, _, V, _, _ = control_flow.while_loop(
        outer_cond, outer_body, (key, full(0), full(1), full(2), active))
    if log_space:
        u = _uniform_batched(subkey, dtype, c(0), c(1))
        log_samples = ew.neg(ew.neg(_log1p(ew.neg(u))))
        log_boost = ew.select(ew.bitwise_or(boost_mask, ew.eq(log_samples, c(0))), full(0),
                              ew.mul(log_samples, ew.div(one, alpha_orig)))
        return ew.add(ew.add(_log(d), _log(V)), log_boost)
    samples = ew.sub(one, _uniform_batched(subkey, dtype, c(0), c(1)))
    boost = ew.select(boost_mask, full(1), ew.pow(samples, ew.div(one, alpha_orig)))
    return ew.mul(ew.mul(d, V), boost)


def _uniform_batched(keys, dtype, minval, maxval):
    """uniform(key_i, ()) for each key of ``keys`` ([n, 2]): shape [n]."""
    fi = _finfo(dtype)
    nbits, nmant = fi.bits, fi.nmant
    rng_bits = 8 if nmant < 8 else nbits
    b = threefry.random_bits(keys, rng_bits, ())
    udt = UINT_DTYPES[nbits]
    if rng_bits != nbits:
        b = _convert(b, udt)
    mant = ew.shift_right_logical(b, udt.type(rng_bits - nmant))
    floats = ew.mul(dispatch.bind("convert", [mant], {"dtype": np.dtype(dtype).name}),
                    np.array(2.0 ** -nmant, dtype))
    # numpy, not ew.sub: the bounds are static, and inside a traced loop body an
    # ew result would be a tracer that np.float32 cannot read.
    span = np.array(maxval, dtype) - np.array(minval, dtype)
    if _is_f32(dtype):
        out = xla_math.fma(floats, np.float32(span), np.float32(minval))
    else:
        out = ew.add(ew.mul(floats, span), np.array(minval, dtype))
    return ew.max(np.array(minval, dtype), out)


def _gamma_impl(kd, a, shape, dtype, log_space):
    if shape is None:
        shape = _shape_of(a)
    else:
        _check_shape("gamma", shape, _shape_of(a))
    a = _convert(a, dtype)
    if _shape_of(a) != tuple(shape):
        a = _bcast(a, shape)
    n = math.prod(shape)
    if n == 0:
        return shapes.reshape(a, shape)
    keys = threefry.split(kd, (n,))
    out = _gamma_one_batched(keys, shapes.reshape(a, (n,)), log_space)
    return shapes.reshape(out, shape)


_gamma = jit(_gamma_impl, static_argnums=(2, 3, 4))


def _gamma_api(name, log_space):
    def f(key, a, shape=None, dtype=None):
        kd, _ = check_prng_key(name, key)
        dtype = _user_dtype(dtype, float)
        if not _is_float(dtype):
            raise ValueError(f"dtype argument to `gamma` must be a float dtype, got {dtype}")
        if shape is not None:
            shape = _canonical_shape(shape)
        return _gamma_call(kd, a, shape, np.dtype(dtype), log_space)
    f.__name__ = f.__qualname__ = name
    return api_boundary(f)


def _gamma_call(kd, a, shape, dtype, log_space):
    # The rejection loops need the while op under jit; eagerly they run in Python.
    if _tracing(kd, a):
        return _gamma_impl(kd, a, shape, dtype, log_space)
    return _gamma_impl(kd, keys_mod._as_array(a) if not isinstance(a, (int, float)) else a,
                       shape, dtype, log_space)


def _tracing(*xs) -> bool:
    return any(hasattr(x, "_trace") for x in xs)


gamma = _gamma_api("gamma", False)
gamma.__doc__ = "Gamma(a, 1) floats: ``gamma(key, 2.0, (3,))``."
loggamma = _gamma_api("loggamma", True)
loggamma.__doc__ = "log of Gamma(a, 1) floats (accurate for small a): ``loggamma(key, 0.1)``."


@api_boundary
def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) floats: ``beta(key, 2.0, 3.0, (4,))``."""
    kd, _ = check_prng_key("beta", key)
    dtype = _user_dtype(dtype, float)
    _check_float_dtype("beta", dtype)
    if shape is None:
        shape = np.broadcast_shapes(_shape_of(a), _shape_of(b))
    else:
        shape = _canonical_shape(shape)
        _check_shape("beta", shape, _shape_of(a), _shape_of(b))
    dtype = np.dtype(dtype)
    a = _bcast(_convert(a, dtype), shape)
    b = _bcast(_convert(b, dtype), shape)
    ks = _split(kd)
    lga = _gamma_call(_key_at(ks, 0), a, shape, dtype, True)
    lgb = _gamma_call(_key_at(ks, 1), b, shape, dtype, True)
    log_max = ew.max(lga, lgb)
    ga = ew.exp(ew.sub(lga, log_max))
    gb = ew.exp(ew.sub(lgb, log_max))
    return ew.div(ga, ew.add(ga, gb))


@api_boundary
def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) vectors along the last axis: ``dirichlet(key, jnp.ones(3))``."""
    kd, _ = check_prng_key("dirichlet", key)
    dtype = _user_dtype(dtype, float)
    _check_float_dtype("dirichlet", dtype)
    if not np.ndim(alpha) >= 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                         f"{np.ndim(alpha)}")
    if shape is None:
        shape = _shape_of(alpha)[:-1]
    else:
        shape = _canonical_shape(shape)
        _check_shape("dirichlet", shape, _shape_of(alpha)[:-1])
    dtype = np.dtype(dtype)
    alpha = _convert(alpha, dtype)
    lg = _gamma_call(kd, alpha, tuple(shape) + _shape_of(alpha)[-1:], dtype, True)
    m = reductions.reduce_max(lg, (len(lg.shape) - 1,))
    e = ew.exp(ew.sub(lg, shapes.expand_dims(m, (len(lg.shape) - 1,))))
    s = reductions.reduce_sum(e, (len(lg.shape) - 1,))
    return ew.div(e, shapes.expand_dims(s, (len(lg.shape) - 1,)))


@api_boundary
def t(key, df, shape=(), dtype=None):
    """Student's t floats with ``df`` degrees of freedom: ``t(key, 3.0, (4,))``."""
    kd, _ = check_prng_key("t", key)
    dtype = _user_dtype(dtype, float)
    _check_float_dtype("t", dtype)
    shape = _shape_of(df) if shape is None else _canonical_shape(shape)
    _check_shape("t", shape, _shape_of(df))
    dtype = np.dtype(dtype)
    df = _convert(df, dtype)
    ks = _split(kd)
    n = _normal(_key_at(ks, 0), shape, dtype)
    half_df = ew.div(df, np.array(2, dtype))
    g = _gamma_call(_key_at(ks, 1), half_df, shape, dtype, False)
    return ew.mul(n, ew.sqrt(ew.div(half_df, g)))


@api_boundary
def generalized_normal(key, p, shape=(), dtype=None):
    """Generalized normal floats with shape parameter ``p``: ``generalized_normal(key, 1.5)``."""
    kd, _ = check_prng_key("generalized_normal", key)
    dtype = _user_dtype(dtype, float)
    _check_float_dtype("generalized_normal", dtype)
    shape = _canonical_shape(shape)
    _check_shape("generalized_normal", shape, _shape_of(p))
    return _generalized_normal(kd, p, shape, np.dtype(dtype))


def _generalized_normal(kd, p, shape, dtype):
    ks = _split(kd)
    p = _convert(p, dtype)
    g = _gamma_call(_key_at(ks, 0), ew.div(np.array(1, dtype), p), shape, dtype, False)
    r = _rademacher(_key_at(ks, 1), shape, dtype)
    return ew.mul(r, ew.pow(g, ew.div(np.array(1, dtype), p)))


@api_boundary
def ball(key, d: int, p: float = 2, shape=(), dtype=None):
    """Points uniform in the unit ``p``-norm ball of dimension ``d``: ``ball(key, 3)``."""
    kd, _ = check_prng_key("ball", key)
    dtype = _user_dtype(dtype, float)
    _check_float_dtype("ball", dtype)
    import operator
    d = operator.index(d)
    shape = _canonical_shape(shape)
    dtype = np.dtype(dtype)
    ks = _split(kd)
    g = _generalized_normal(_key_at(ks, 0), p, tuple(shape) + (d,), dtype)
    e = _exponential_body(_key_at(ks, 1), shape, dtype)
    s = reductions.reduce_sum(ew.pow(ew.abs(g), np.array(p, dtype)), (len(shape),))
    r = ew.pow(ew.add(s, e), np.array(1 / p, dtype))
    return ew.div(g, shapes.expand_dims(r, (len(shape),)))


# ------------------------------------------------------------------------ poisson

@api_boundary
def poisson(key, lam, shape=None, dtype=None):
    """Poisson(lam) integers: ``poisson(key, 3.0, (5,))``."""
    kd, _ = check_prng_key("poisson", key)
    dtype = _user_dtype(dtype, int)
    shape = _shape_of(lam) if shape is None else _canonical_shape(shape)
    lam = _convert(_bcast(lam if hasattr(lam, "shape") else np.asarray(lam, np.float32), shape),
                   np.float32)
    return _poisson(kd, lam, tuple(shape), np.dtype(dtype))


def _poisson_knuth(kd, lam, shape, dtype, max_iters):
    def body_fn(carry):
        i, k, rng, log_prod = carry
        ks = _split(rng)
        rng, sub = _key_at(ks, 0), _key_at(ks, 1)
        k = ew.select(ew.gt(log_prod, ew.neg(lam)), ew.add(k, dtype.type(1)), k)
        u = _uniform_in_trace(sub, shape, np.float32)
        return ew.add(i, np.int32(1)), k, rng, ew.add(log_prod, _log(u))

    def cond_fn(carry):
        i, log_prod = carry[0], carry[3]
        return ew.bitwise_and(reductions.reduce_or(ew.gt(log_prod, ew.neg(lam)),
                                                   tuple(range(len(shape)))),
                              ew.lt(i, max_iters))

    k = control_flow.while_loop(cond_fn, body_fn, (
        np.int32(0), shapes.full(shape, 0, dtype), kd, shapes.full(shape, 0, np.float32)))[1]
    return _convert(ew.sub(k, dtype.type(1)), dtype)


def _poisson(kd, lam, shape, dtype):
    use_knuth = ew.bitwise_or(ew.ne(lam, lam), ew.lt(lam, np.float32(10)))
    lam_knuth = ew.select(use_knuth, lam, shapes.full_like(lam, 0.0))
    max_iters = np.int32(min(np.iinfo(dtype).max, np.iinfo(np.int32).max))
    if not _tracing(lam) and not bool(np.all(np.asarray(use_knuth))):
        raise NotImplementedError("poisson with lam >= 10 (transformed rejection) needs "
                                  "lgamma, which xjit.lax does not have yet")
    result = _poisson_knuth(kd, lam_knuth, shape, dtype, max_iters)
    return ew.select(ew.eq(lam, np.float32(0)), shapes.full_like(result, 0), result)


# ------------------------------------------------------------------------ more samplers

@api_boundary
def multivariate_normal(key, mean, cov, shape=None, dtype=None, method: str = "cholesky"):
    """Multivariate normal vectors: ``multivariate_normal(key, mean, cov, (5,))``."""
    raise NotImplementedError("multivariate_normal needs a matrix factorization (cholesky, "
                              "eigh or svd); xjit.lax.linalg has none yet")


@api_boundary
def orthogonal(key, n: int, shape=(), dtype=None, m=None):
    """Random orthogonal matrices (Haar measure)."""
    raise NotImplementedError("orthogonal needs a QR decomposition, which xjit.lax.linalg "
                              "does not have yet")


def _two_param(name, body):
    kernel = jit(body, static_argnums=(2, 3))

    def f(key, param, shape=None, dtype=None):
        kd, _ = check_prng_key(name, key)
        dtype = _user_dtype(dtype, float)
        _check_float_dtype(name, dtype)
        shape = _shape_of(param) if shape is None else _canonical_shape(shape)
        _check_shape(name, shape, _shape_of(param))
        return kernel(kd, param, shape, np.dtype(dtype))
    f.__name__ = f.__qualname__ = name
    return api_boundary(f)


def _pareto_body(kd, b, shape, dtype):
    e = _exponential_body(kd, shape, dtype)
    return ew.exp(ew.div(e, _convert(b, dtype)))


def _lognormal_body(kd, sigma, shape, dtype):
    return ew.exp(ew.mul(_normal_real(kd, shape, dtype), _convert(sigma, dtype)))


def _rayleigh_body(kd, scale, shape, dtype):
    u = _uniform_in_trace(kd, shape, dtype)
    scale = _bcast(_convert(scale, dtype), shape)
    return ew.mul(scale, ew.sqrt(ew.mul(_log(u), np.array(-2, dtype))))


pareto = _two_param("pareto", _pareto_body)
pareto.__doc__ = "Pareto(b) floats: ``pareto(key, 3.0, (4,))``."
rayleigh = _two_param("rayleigh", _rayleigh_body)
rayleigh.__doc__ = "Rayleigh(scale) floats: ``rayleigh(key, 1.0, (4,))``."


@api_boundary
def lognormal(key, sigma=1., shape=None, dtype=None):
    """exp of Normal(0, sigma) floats: ``lognormal(key, 0.5, (4,))``."""
    kd, _ = check_prng_key("lognormal", key)
    dtype = _user_dtype(dtype, float)
    _check_float_dtype("lognormal", dtype)
    shape = _shape_of(sigma) if shape is None else _canonical_shape(shape)
    _check_shape("lognormal", shape, _shape_of(sigma))
    return _lognormal(kd, sigma, shape, np.dtype(dtype))


_lognormal = jit(_lognormal_body, static_argnums=(2, 3))


@api_boundary
def maxwell(key, shape=(), dtype=None):
    """Maxwell floats (norm of 3 normals): ``maxwell(key, (4,))``."""
    kd, _ = check_prng_key("maxwell", key)
    dtype = _user_dtype(dtype, float)
    _check_float_dtype("maxwell", dtype)
    shape = _canonical_shape(shape)
    return _maxwell(kd, shape, np.dtype(dtype))


@partial(jit, static_argnums=(1, 2))
def _maxwell(kd, shape, dtype):
    x = _normal_real(kd, tuple(shape) + (3,), dtype)
    return ew.sqrt(reductions.reduce_sum(ew.mul(x, x), (len(shape),)))


@api_boundary
def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Maxwell floats with a random sign, scaled and shifted."""
    kd, _ = check_prng_key("double_sided_maxwell", key)
    dtype = _user_dtype(dtype, float)
    _check_float_dtype("double_sided_maxwell", dtype)
    shape = _canonical_shape(shape)
    params = np.broadcast_shapes(_shape_of(loc), _shape_of(scale))
    if not shape:
        shape = params
    shape = tuple(shape) + tuple(params)
    dtype = np.dtype(dtype)
    ks = _split(kd)
    m = _maxwell(_key_at(ks, 0), shape, dtype)
    s = _rademacher(_key_at(ks, 1), shape, dtype)
    return ew.add(ew.mul(ew.mul(s, m), _convert(scale, dtype)), _convert(loc, dtype))


@api_boundary
def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull floats: ``weibull_min(key, 1.0, 2.0, (4,))``."""
    kd, _ = check_prng_key("weibull_min", key)
    dtype = _user_dtype(dtype, float)
    _check_float_dtype("weibull_min", dtype)
    shape = _canonical_shape(shape)
    dtype = np.dtype(dtype)
    u = _uniform(kd, 0, 1, shape, dtype)
    x = ew.neg(_log1p(ew.neg(u)))
    return ew.mul(ew.pow(x, ew.div(np.array(1.0, dtype), _convert(concentration, dtype))),
                  _convert(scale, dtype))


def clone(key):
    """``key`` itself (JAX's key-reuse helper is the identity on values)."""
    return key
