"""Samplers composed of the basic ones, with JAX's algorithms and key use,
so a key gives JAX's values: ``chisquare`` (from ``loggamma``), ``f``
(two chi-squares of the key's two halves), ``geometric`` (from a
uniform), ``triangular`` (inverse CDF of a uniform) and ``wald`` (a normal
and a uniform of the key's halves).

Example:
    >>> from xjit import random
    >>> random.geometric(random.PRNGKey(0), 0.5, (3,)).dtype
    dtype('int32')
"""
from __future__ import annotations

import numpy as np

from xjit._src.lax import elementwise as ew
from xjit._src.random import samplers
from xjit._src.random.keys import check_prng_key
from xjit._src.random.samplers import (
    _bcast, _canonical_shape, _check_float_dtype, _convert, _key_at, _log, _log1p, _shape_of,
    _split, _user_dtype)
from xjit._src.traceback_util import api_boundary


def _shape(name, shape, *params):
    """``shape`` (default: the parameters' broadcast shape), checked against them."""
    shapes_ = [_shape_of(p) for p in params]
    if shape is None:
        return tuple(np.broadcast_shapes(*shapes_))
    shape = _canonical_shape(shape)
    try:
        ok = tuple(np.broadcast_shapes(shape, *shapes_)) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{name} parameter shapes {shapes_} must be broadcast-compatible with "
                         f"shape argument {shape}")
    return shape


def _float_dtype(name, dtype):
    dtype = _user_dtype(dtype, float)
    _check_float_dtype(name, dtype)
    return np.dtype(dtype)


def _chisquare(kd, df, shape, dtype):
    df = _convert(df, dtype)
    two = np.array(2, dtype)
    log_g = samplers.loggamma(kd, ew.div(df, two), shape, dtype)
    return ew.mul(ew.exp(log_g), two)


@api_boundary
def chisquare(key, df, shape=None, dtype=None):
    """Chi-squared(df) floats: ``chisquare(key, 3.0, (4,))``."""
    kd, _ = check_prng_key("chisquare", key)
    dtype = _float_dtype("chisquare", dtype)
    return _chisquare(kd, df, _shape("chisquare", shape, df), dtype)


@api_boundary
def f(key, dfnum, dfden, shape=None, dtype=None):
    """F(dfnum, dfden) floats: ``f(key, 2.0, 5.0, (4,))``."""
    kd, _ = check_prng_key("f", key)
    dtype = _float_dtype("f", dtype)
    shape = _shape("f", shape, dfnum, dfden)
    dfnum, dfden = _convert(dfnum, dtype), _convert(dfden, dtype)
    keys = _split(kd)
    chi_num = _chisquare(_key_at(keys, 1), dfnum, shape, dtype)
    chi_den = _chisquare(_key_at(keys, 0), dfden, shape, dtype)
    return ew.div(ew.div(chi_num, dfnum), ew.div(chi_den, dfden))


@api_boundary
def geometric(key, p, shape=None, dtype=None):
    """Geometric(p) integers >= 1 (trials to the first success): ``geometric(key, 0.3, (4,))``."""
    kd, _ = check_prng_key("geometric", key)
    dtype = _user_dtype(dtype, int)
    if np.dtype(dtype).kind not in "iu":
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    shape = _shape("geometric", shape, p)
    p = np.asarray(p) if isinstance(p, (int, float)) else p
    p = _convert(p, samplers._user_dtype(None, float)) if np.dtype(
        getattr(p, "dtype", np.float32)).kind not in "f" else p
    u = samplers.uniform(kd, shape, p.dtype)
    u = ew.select(ew.eq(u, np.array(0, p.dtype)), _bcast(np.array(1, p.dtype), shape), u)
    log_one_minus_p = _bcast(_log1p(ew.neg(p)), shape)
    g = ew.add(ew.floor(ew.div(_log(u), log_one_minus_p)), np.array(1, p.dtype))
    return _convert(g, np.dtype(dtype))


@api_boundary
def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular(left, mode, right) floats: ``triangular(key, 0.0, 0.3, 1.0, (4,))``."""
    kd, _ = check_prng_key("triangular", key)
    dtype = _float_dtype("triangular", dtype)
    shape = _shape("triangular", shape, left, mode, right)
    left, mode, right = (_bcast(_convert(v, dtype), shape) for v in (left, mode, right))
    width = ew.sub(right, left)
    fc = ew.div(ew.sub(mode, left), width)
    u = samplers.uniform(kd, shape, dtype)
    out1 = ew.add(left, ew.sqrt(ew.mul(ew.mul(u, width), ew.sub(mode, left))))
    out2 = ew.sub(right, ew.sqrt(ew.mul(ew.mul(ew.sub(np.array(1, dtype), u), width),
                                        ew.sub(right, mode))))
    return ew.select(ew.lt(u, fc), out1, out2)


@api_boundary
def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian) floats of ``mean`` and scale 1: ``wald(key, 1.5, (4,))``."""
    kd, _ = check_prng_key("wald", key)
    dtype = _float_dtype("wald", dtype)
    shape = _shape("wald", shape, mean)
    keys = _split(kd)
    mean = _bcast(_convert(mean, dtype), shape)
    v = samplers.normal(_key_at(keys, 0), shape, dtype)
    z = samplers.uniform(_key_at(keys, 1), shape, dtype)
    y = ew.mul(v, v)
    y_sq = ew.mul(y, y)
    mean_sq = ew.mul(mean, mean)
    four, two = np.array(4, dtype), np.array(2, dtype)
    sqrt_term = ew.sqrt(ew.add(ew.mul(ew.mul(four, mean), y), ew.mul(mean_sq, y_sq)))
    x = ew.sub(ew.add(mean, ew.div(ew.mul(mean_sq, y), two)),
               ew.mul(ew.div(mean, two), sqrt_term))
    return ew.select(ew.le(z, ew.div(mean, ew.add(mean, x))), x, ew.div(mean_sq, x))
