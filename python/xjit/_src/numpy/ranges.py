"""Sequences and windows derived from ``linspace``: ``logspace``,
``geomspace``, and the signal windows ``bartlett``, ``blackman``,
``hamming``, ``hanning`` (numpy's definitions, float32 by default).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.logspace(0, 2, 3)
    Array([  1.,  10., 100.], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import dtypes
from xjit._src.numpy import util
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary


@api_boundary
def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None,
             axis: int = 0):
    """``base ** linspace(start, stop, num)``."""
    exps = jnp.linspace(start, stop, num, endpoint=endpoint, axis=axis)
    out = jnp.power(jnp.asarray(base, exps.dtype), exps)
    return out if dtype is None else out.astype(dtype)


@api_boundary
def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
    """Numbers spaced evenly on a log scale from ``start`` to ``stop`` (the
    ends exact; both of one sign, neither zero)."""
    util.check_arraylike("geomspace", start, stop)
    start, stop = util.promote_args_inexact("geomspace", start, stop)
    if not util.is_tracer(start) and not util.is_tracer(stop):
        if np.any(np.asarray(start) == 0) or np.any(np.asarray(stop) == 0):
            raise ValueError("Geometric sequence cannot include zero")
    sign = jnp.where(jnp.real(start) < 0, -1, 1).astype(start.dtype)
    s, e = start * sign, stop * sign
    out = jnp.exp(jnp.linspace(jnp.log(s), jnp.log(e), num, endpoint=endpoint, axis=axis))
    num = operator.index(num)
    if num > 0:  # the ends exactly
        idx = [slice(None)] * out.ndim
        ax = util.canonicalize_axis(axis, out.ndim)
        idx[ax] = 0
        out = out.at[tuple(idx)].set(jnp.broadcast_to(s, out[tuple(idx)].shape))
        if endpoint and num > 1:
            idx[ax] = -1
            out = out.at[tuple(idx)].set(jnp.broadcast_to(e, out[tuple(idx)].shape))
    out = out * jnp.expand_dims(sign, util.canonicalize_axis(axis, out.ndim)) if sign.ndim \
        else out * sign
    return out if dtype is None else out.astype(dtype)


def _window_points(M, fn):
    """``fn(jnp, n, M)`` over the points n of an ``M``-point window (numpy's
    empty and one-point windows aside), as float32."""
    m = operator.index(M)
    if m <= 0:
        return jnp.zeros(0, jnp.float32)
    if m == 1:
        return jnp.ones(1, jnp.float32)
    return fn(jnp, jnp.arange(m, dtype=jnp.float32), m).astype(jnp.float32)


def _window(name, fn):
    @api_boundary
    def window(M):
        return _window_points(M, fn)
    window.__name__ = window.__qualname__ = name
    window.__doc__ = f"numpy's ``{name}`` window of ``M`` points."
    return window


bartlett = _window("bartlett", lambda jnp, n, m: 1 - jnp.abs(2 * n - (m - 1)) / (m - 1))
hanning = _window("hanning", lambda jnp, n, m: 0.5 - 0.5 * jnp.cos(2 * np.pi * n / (m - 1)))
hamming = _window("hamming", lambda jnp, n, m: 0.54 - 0.46 * jnp.cos(2 * np.pi * n / (m - 1)))
blackman = _window("blackman", lambda jnp, n, m: (0.42 - 0.5 * jnp.cos(2 * np.pi * n / (m - 1))
                                                  + 0.08 * jnp.cos(4 * np.pi * n / (m - 1))))


def _i0_series(ax, jnp):
    # sum_k (x^2/4)^k / (k!)^2, 60 terms: within float64 rounding for |x| <= 20.
    q = ax * ax / 4
    term = jnp.ones_like(ax)
    total = jnp.ones_like(ax)
    for k in range(1, 60):
        term = term * q / (k * k)
        total = total + term
    return total


def _i0_asymptotic(ax, jnp):
    # e^x / sqrt(2 pi x) * sum_k ((2k-1)!!)^2 / (k! 8^k x^k), 12 terms (|x| > 20).
    safe = jnp.maximum(ax, 20.0)
    term = jnp.ones_like(safe)
    total = jnp.ones_like(safe)
    for k in range(1, 12):
        term = term * (2 * k - 1) ** 2 / (k * 8 * safe)
        total = total + term
    return jnp.exp(safe) / jnp.sqrt(2 * np.pi * safe) * total


@api_boundary
def i0(x):
    """The modified Bessel function of the first kind, order 0 (real input):
    its power series up to 20, its asymptotic series beyond."""
    util.check_arraylike("i0", x)
    (x,) = util.promote_args_inexact("i0", x)
    if dtypes.kind(x.dtype) == "c":
        raise ValueError("i0: complex input is not supported")
    ax = jnp.abs(x)
    small = ax <= 20.0
    return jnp.where(small, _i0_series(jnp.where(small, ax, 0.0), jnp), _i0_asymptotic(ax, jnp))


@api_boundary
def kaiser(M, beta):
    """numpy's Kaiser window of ``M`` points with shape parameter ``beta``."""
    def points(jnp, n, m):
        alpha = (m - 1) / 2.0
        b = jnp.asarray(beta, jnp.float32)
        return i0(b * jnp.sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(b)
    return _window_points(M, points)
