"""scipy.special's regularized incomplete gamma functions and a few
relatives: ``gammainc`` (P) by its power series where ``x < a + 1``,
``gammaincc`` (Q) by Lentz's continued fraction elsewhere (each the
complement of the other), ``multigammaln``, ``boxcox``/``boxcox1p`` and
the ``bernoulli`` numbers.

Example:
    >>> from xjit.scipy import special
    >>> special.gammainc(1.0, 1.0)
    Array(0.6321202, dtype=float32, weak_type=True)
"""
from __future__ import annotations

import fractions
import operator

import numpy as np

from xjit._src.lax import loops
from xjit._src.lax import special as lax_special
from xjit._src.numpy import util
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary

_ITERATIONS = 300  # enough for float32 and float64 at moderate a (both loops converge fast)


def _log_prefactor(a, x):
    # log(x^a e^-x / Gamma(a))
    return a * jnp.log(x) - x - lax_special.lgamma(a)


def _series_p(a, x):
    """P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a+1)...(a+n))."""
    def body(_, carry):
        term, total, ap = carry
        ap = ap + 1
        term = term * x / ap
        return term, total + term, ap
    one = jnp.ones_like(x)
    _, total, _ = loops.fori_loop(0, _ITERATIONS, body, (one, one, a))
    return jnp.exp(_log_prefactor(a, x) - jnp.log(a)) * total


def _continued_fraction_q(a, x):
    """Q(a, x) by the modified Lentz evaluation of its continued fraction."""
    tiny = np.finfo(np.float32).tiny
    b = x + 1 - a
    c = jnp.full_like(x, 1 / tiny)
    d = 1 / b
    h = d

    def body(i, carry):
        b, c, d, h = carry
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = jnp.where(jnp.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = jnp.where(jnp.abs(c) < tiny, tiny, c)
        d = 1 / d
        return b, c, d, h * d * c
    i0 = jnp.ones_like(x)
    _, _, _, h = loops.fori_loop(0, _ITERATIONS, lambda k, s: body(i0 * (k + 1), s), (b, c, d, h))
    return jnp.exp(_log_prefactor(a, x)) * h


def _regularized(name, a, x, lower):
    a, x = util.promote_args_inexact(name, a, x)
    use_series = x < a + 1
    safe_x = jnp.where(x > 0, x, jnp.ones_like(x))
    safe_a = jnp.where(a > 0, a, jnp.ones_like(a))
    p = _series_p(safe_a, jnp.where(use_series, safe_x, jnp.zeros_like(x) + 0.5 * safe_a))
    q = _continued_fraction_q(safe_a, jnp.where(use_series, safe_a + 2, safe_x))
    out = jnp.where(use_series, p, 1 - q) if lower else jnp.where(use_series, 1 - p, q)
    at_zero = jnp.zeros_like(x) if lower else jnp.ones_like(x)
    out = jnp.where(x == 0, at_zero, out)
    out = jnp.where(jnp.isinf(x) & (x > 0), 1 - at_zero, out)
    invalid = (a <= 0) | (x < 0) | jnp.isnan(a) | jnp.isnan(x)
    return jnp.where(invalid, jnp.nan, out)


@api_boundary
def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    return _regularized("gammainc", a, x, True)


@api_boundary
def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _regularized("gammaincc", a, x, False)


@api_boundary
def multigammaln(a, d: int):
    """The log of the multivariate gamma function of dimension ``d``."""
    d = operator.index(d)
    (a,) = util.promote_args_inexact("multigammaln", a)
    js = jnp.arange(d, dtype=a.dtype)
    terms = lax_special.lgamma(jnp.expand_dims(a, -1) - js / 2)
    return d * (d - 1) / 4 * np.log(np.pi) + jnp.sum(terms, axis=-1)


@api_boundary
def boxcox(x, lmbda):
    """``(x^lmbda - 1) / lmbda``, ``log(x)`` at ``lmbda == 0``."""
    x, lmbda = util.promote_args_inexact("boxcox", x, lmbda)
    safe = jnp.where(lmbda == 0, jnp.ones_like(lmbda), lmbda)
    return jnp.where(lmbda == 0, jnp.log(x), jnp.expm1(safe * jnp.log(x)) / safe)


@api_boundary
def boxcox1p(x, lmbda):
    """``boxcox(1 + x, lmbda)``, accurate for small ``x``."""
    x, lmbda = util.promote_args_inexact("boxcox1p", x, lmbda)
    safe = jnp.where(lmbda == 0, jnp.ones_like(lmbda), lmbda)
    return jnp.where(lmbda == 0, jnp.log1p(x), jnp.expm1(safe * jnp.log1p(x)) / safe)


@api_boundary
def bernoulli(n: int):
    """The Bernoulli numbers B_0 .. B_n as floats (exact rationals rounded;
    B_1 = -1/2, as SciPy)."""
    n = operator.index(n)
    if n < 0:
        raise ValueError("n must be a non-negative integer")
    out, a = [], [fractions.Fraction(0)] * (n + 1)
    for m in range(n + 1):  # Akiyama-Tanigawa: a[0] is B_m with B_1 = +1/2
        a[m] = fractions.Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(-a[0] if m == 1 else a[0])
    return jnp.asarray(np.array([float(v) for v in out], np.float32))
