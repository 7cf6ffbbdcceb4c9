"""SciPy's gamma-function family and modified Bessel functions of order 0
and 1 on xjit: ``gamma``, ``gammasgn``, ``loggamma`` (real), ``beta``,
``betaln``, ``poch``, ``comb``, ``i0``, ``i0e``, ``i1``, ``i1e``; written on
``lgamma`` and the series of ``numpy/ranges.py`` as JAX defines them.

Example:
    >>> from xjit.scipy import special
    >>> special.gamma(np.float32(4.0))  # exp(lgamma): float32 rounding, as JAX
    Array(6.0000052, dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit._src.lax import special as lax_special
from xjit._src.numpy import util
from xjit._src.numpy.namespace import jnp
from xjit._src.numpy.ranges import _i0_asymptotic, _i0_series, i0  # noqa: F401 (i0 re-exported)
from xjit._src.traceback_util import api_boundary


def _real(name, *args):
    out = util.promote_args_inexact(name, *args)
    for x in out:
        if np.dtype(x.dtype).kind == "c":
            raise ValueError(f"{name} does not support complex-valued inputs.")
    return out


@api_boundary
def gammasgn(x):
    """The sign of Gamma(x): -1 between odd and even negative integers, NaN at
    NaN, +1 elsewhere (0 and the negative integers included, as SciPy)."""
    (x,) = _real("gammasgn", x)
    floor_x = jnp.floor(x)
    negative_odd_interval = (x < 0) & (x != floor_x) & (jnp.mod(floor_x, 2) != 0)
    out = jnp.where(negative_odd_interval, -jnp.ones_like(x), jnp.ones_like(x))
    return jnp.where(jnp.isnan(x), x, out)


@api_boundary
def gamma(x):
    """The gamma function: ``gammasgn(x) * exp(gammaln(x))`` (inf at 0 and
    the negative integers, as JAX)."""
    (x,) = _real("gamma", x)
    return gammasgn(x) * jnp.exp(lax_special.lgamma(x))


@api_boundary
def loggamma(x):
    """``log Gamma(x)`` of real ``x`` (NaN where Gamma(x) < 0, as SciPy's real loggamma)."""
    (x,) = _real("loggamma", x)
    return jnp.where(gammasgn(x) < 0, jnp.asarray(jnp.nan, x.dtype), lax_special.lgamma(x))


@api_boundary
def betaln(a, b):
    """``log|B(a, b)|`` = gammaln(a) + gammaln(b) - gammaln(a + b)."""
    a, b = _real("betaln", a, b)
    return lax_special.lgamma(a) + lax_special.lgamma(b) - lax_special.lgamma(a + b)


@api_boundary
def beta(a, b):
    """The beta function ``Gamma(a) Gamma(b) / Gamma(a + b)``, with its sign."""
    a, b = _real("beta", a, b)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * jnp.exp(betaln(a, b))


@api_boundary
def poch(z, m):
    """The Pochhammer symbol ``Gamma(z + m) / Gamma(z)`` (rising factorial)."""
    z, m = _real("poch", z, m)
    sign = gammasgn(z + m) * gammasgn(z)
    return jnp.where(m == 0, jnp.ones_like(z),
                     sign * jnp.exp(lax_special.lgamma(z + m) - lax_special.lgamma(z)))


@api_boundary
def comb(N, k, *, exact: bool = False, repetition: bool = False):
    """``N choose k`` as a float (``repetition``: with repetition); 0 where
    ``k > N`` or either is negative."""
    if exact:
        raise NotImplementedError("comb: exact=True is not supported (the result is a float)")
    N, k = _real("comb", N, k)
    if repetition:
        N = N + k - 1
    valid = (k >= 0) & (N >= k) & (N >= 0)
    safe_n = jnp.where(valid, N, jnp.ones_like(N))
    safe_k = jnp.where(valid, k, jnp.zeros_like(k))
    value = jnp.exp(lax_special.lgamma(safe_n + 1) - lax_special.lgamma(safe_k + 1)
                    - lax_special.lgamma(safe_n - safe_k + 1))
    # Integral N and k give an integer: exp(lgamma ...) is a few ulps off it.
    integral = (jnp.floor(safe_n) == safe_n) & (jnp.floor(safe_k) == safe_k)
    value = jnp.where(integral, jnp.floor(value + 0.5), value)
    return jnp.where(valid, value, jnp.zeros_like(value))


def _i1_series(ax):
    # (x/2) sum_k (x^2/4)^k / (k! (k+1)!), 60 terms (|x| <= 20).
    q = ax * ax / 4
    term = ax / 2
    total = term
    for k in range(1, 60):
        term = term * q / (k * (k + 1))
        total = total + term
    return total


def _i1_asymptotic_scaled(ax):
    # e^-x I1(x) ~ 1/sqrt(2 pi x) sum_k (-1)^k prod_{j<=k} (4 - (2j-1)^2) / (j 8 x), |x| > 20.
    safe = jnp.maximum(ax, 20.0)
    term = jnp.ones_like(safe)
    total = jnp.ones_like(safe)
    for j in range(1, 12):
        term = term * -(4 - (2 * j - 1) ** 2) / (j * 8 * safe)
        total = total + term
    return total / jnp.sqrt(2 * np.pi * safe)


def _scaled_i0(ax):
    small = ax <= 20.0
    series = _i0_series(jnp.where(small, ax, jnp.zeros_like(ax)), jnp) * jnp.exp(-ax)
    large = _i0_asymptotic(ax, jnp) * jnp.exp(-jnp.maximum(ax, 20.0))
    return jnp.where(small, series, large)


@api_boundary
def i0e(x):
    """The exponentially scaled modified Bessel function ``exp(-|x|) I0(x)``."""
    (x,) = _real("i0e", x)
    return _scaled_i0(jnp.abs(x))


@api_boundary
def i1e(x):
    """The exponentially scaled modified Bessel function ``exp(-|x|) I1(x)`` (odd in x)."""
    (x,) = _real("i1e", x)
    ax = jnp.abs(x)
    small = ax <= 20.0
    series = _i1_series(jnp.where(small, ax, jnp.zeros_like(ax))) * jnp.exp(-ax)
    out = jnp.where(small, series, _i1_asymptotic_scaled(ax))
    return jnp.sign(x) * out


@api_boundary
def i1(x):
    """The modified Bessel function of the first kind, order 1 (odd in x)."""
    (x,) = _real("i1", x)
    ax = jnp.abs(x)
    small = ax <= 20.0
    large = _i1_asymptotic_scaled(ax) * jnp.exp(jnp.maximum(ax, 20.0))
    return jnp.sign(x) * jnp.where(small, _i1_series(jnp.where(small, ax, jnp.zeros_like(ax))),
                                   large)
