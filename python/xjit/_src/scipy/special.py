"""``xjit.scipy.special``: SciPy's special functions with JAX's definitions
(integer inputs promote to the default float; weak types kept).

Example:
    >>> from xjit.scipy import special
    >>> jax.scipy.special.gammaln(np.float32(4.0))
    Array(1.7917603, dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import special as lax_special
from xjit._src.nn import functions as nn_functions
from xjit._src.numpy import elementwise as jnp_ew
from xjit._src.numpy import util
from xjit._src.ops.special import logsumexp

__all__ = [
    "digamma", "entr", "erf", "erfc", "erfinv", "expit", "factorial", "gammaln", "kl_div",
    "log_softmax", "logit", "logsumexp", "ndtr", "rel_entr", "softmax", "xlog1py", "xlogy",
]


def _inexact(name, *args):
    return util.promote_args_inexact(name, *args)


def _real_only(name, x):
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError(f"{name} does not support complex-valued inputs.")


def gammaln(x):
    """``log|Gamma(x)|`` (Lanczos approximation, as XLA).

    Example:
        >>> jax.scipy.special.gammaln(np.float32(0.5))
        Array(0.5723653, dtype=float32)
    """
    x, = _inexact("gammaln", x)
    return lax_special.lgamma(x)


def digamma(x):
    """The digamma function ``d/dx log Gamma(x)`` (NaN at 0 and negative integers).

    Example:
        >>> jax.scipy.special.digamma(np.float32(1.0))
        Array(-0.5772154, dtype=float32)
    """
    x, = _inexact("digamma", x)
    return lax_special.digamma(x)


def erf(x):
    """The error function.

    Example:
        >>> jax.scipy.special.erf(np.float32(0.5))
        Array(0.5204999, dtype=float32)
    """
    x, = _inexact("erf", x)
    return lax_ew.erf(x)


def erfc(x):
    """The complementary error function ``1 - erf(x)``.

    Example:
        >>> jax.scipy.special.erfc(np.float32(0.5))
        Array(0.47950017, dtype=float32)
    """
    x, = _inexact("erfc", x)
    return lax_special.erfc(x)


def erfinv(x):
    """The inverse of ``erf`` on [-1, 1].

    Example:
        >>> jax.scipy.special.erfinv(np.float32(0.5))
        Array(0.47693628, dtype=float32)
    """
    x, = _inexact("erfinv", x)
    return lax_special.erf_inv(x)


def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``.

    Example:
        >>> jax.scipy.special.expit(np.float32(0.0))
        Array(0.5, dtype=float32)
    """
    x, = _inexact("expit", x)
    return lax_ew.logistic(x)


def logit(x):
    """The inverse of ``expit``: ``log(x / (1 - x))``.

    Example:
        >>> jax.scipy.special.logit(np.float32(0.5))
        Array(0., dtype=float32)
    """
    x, = _inexact("logit", x)
    return lax_ew.log(lax_ew.div(x, lax_ew.sub(lax_ew._full_like(x, 1), x)))


def xlogy(x, y):
    """``x * log(y)``, 0 where ``x`` is 0 (unless ``y`` is NaN).

    Example:
        >>> jax.scipy.special.xlogy(np.float32(0.0), np.float32(0.0))
        Array(0., dtype=float32)
    """
    x, y = _inexact("xlogy", x, y)
    # JAX keeps NaN from y (x_ok | isnan(y)); x * log(y) is NaN exactly then or for x NaN.
    keep = lax_ew.bitwise_or(lax_ew.ne(x, lax_ew._full_like(x, 0)), lax_ew.ne(y, y))
    return lax_ew.select(keep, lax_ew.mul(x, lax_ew.log(y)), lax_ew._full_like(x, 0))


def xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x`` is 0 (unless ``y`` is NaN).

    Example:
        >>> jax.scipy.special.xlog1py(np.float32(0.0), np.float32(-1.0))
        Array(0., dtype=float32)
    """
    x, y = _inexact("xlog1py", x, y)
    keep = lax_ew.bitwise_or(lax_ew.ne(x, lax_ew._full_like(x, 0)), lax_ew.ne(y, y))
    return lax_ew.select(keep, lax_ew.mul(x, lax_ew.log1p(y)), lax_ew._full_like(x, 0))


def entr(x):
    """Elementwise entropy ``-x log x`` (0 at 0, -inf for negative ``x``).

    Example:
        >>> jax.scipy.special.entr(np.float32(1.0))
        Array(-0., dtype=float32)
    """
    x, = _inexact("entr", x)
    _real_only("entr", x)
    return lax_ew.select(lax_ew.lt(x, lax_ew._full_like(x, 0)),
                         lax_ew._full_like(x, -np.inf), lax_ew.neg(xlogy(x, x)))


def rel_entr(p, q):
    """Elementwise relative entropy ``p log(p / q)`` (0 where p is 0 and q >= 0,
    inf where it is undefined).

    Example:
        >>> jax.scipy.special.rel_entr(np.float32(1.0), np.float32(1.0))
        Array(0., dtype=float32)
    """
    p, q = _inexact("rel_entr", p, q)
    _real_only("rel_entr", p)
    zero = lax_ew._full_like(p, 0.0)
    both_positive = lax_ew.bitwise_and(lax_ew.gt(p, zero), lax_ew.gt(q, zero))
    p_zero = lax_ew.bitwise_and(lax_ew.eq(p, zero), lax_ew.ge(q, zero))
    safe_p = jnp_ew.where(both_positive, p, 1)
    safe_q = jnp_ew.where(both_positive, q, 1)
    log_val = lax_ew.sub(xlogy(safe_p, safe_p), xlogy(safe_p, safe_q))
    return jnp_ew.where(both_positive, log_val, jnp_ew.where(p_zero, zero, np.inf))


def kl_div(p, q):
    """Elementwise Kullback-Leibler divergence ``rel_entr(p, q) - p + q``.

    Example:
        >>> jax.scipy.special.kl_div(np.float32(1.0), np.float32(2.0))
        Array(0.30685282, dtype=float32)
    """
    p, q = _inexact("kl_div", p, q)
    _real_only("kl_div", p)
    return jnp_ew.add(jnp_ew.subtract(rel_entr(p, q), p), q)


def ndtr(x):
    """The standard normal CDF (float32 and float64 only, as in JAX).

    Example:
        >>> jax.scipy.special.ndtr(np.float32(0.0))
        Array(0.5, dtype=float32)
    """
    util.check_arraylike("ndtr", x)
    x = util.asarray_any(x)
    dt = np.dtype(x.dtype)
    if dt not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={dt} is not supported, see docstring for supported types.")
    # numpy scalars of x's dtype, as JAX writes them: the result is strongly typed.
    c = dt.type
    half_sqrt_2 = c(0.5) * np.sqrt(2., dtype=dt)
    w = lax_ew.mul(x, half_sqrt_2)
    z = lax_ew.abs(w)
    y = lax_ew.select(lax_ew.lt(z, half_sqrt_2), lax_ew.add(c(1.), lax_ew.erf(w)),
                      lax_ew.select(lax_ew.gt(w, c(0.)), lax_ew.sub(c(2.), lax_special.erfc(z)),
                                    lax_special.erfc(z)))
    return lax_ew.mul(c(0.5), y)


def factorial(n, exact: bool = False):
    """``Gamma(n + 1)`` (0 for negative ``n``); ``exact=True`` is not supported, as in JAX.

    Example:
        >>> jax.scipy.special.factorial(np.float32(4.0))
        Array(24.000023, dtype=float32)
    """
    if exact:
        raise NotImplementedError("factorial with exact=True")
    n, = _inexact("factorial", n)
    value = lax_ew.exp(lax_special.lgamma(lax_ew.add(n, lax_ew._full_like(n, 1))))
    return jnp_ew.where(lax_ew.lt(n, lax_ew._full_like(n, 0)), 0, value)


def softmax(x, /, *, axis=None):
    """SciPy's softmax: ``nn.softmax`` over ``axis`` (all axes by default).

    Example:
        >>> jax.scipy.special.softmax(np.zeros(4, np.float32))
        Array([0.25, 0.25, 0.25, 0.25], dtype=float32)
    """
    return nn_functions.softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    """SciPy's log_softmax: ``nn.log_softmax`` over ``axis`` (all axes by default).

    Example:
        >>> jax.scipy.special.log_softmax(np.zeros(2, np.float32))
        Array([-0.6931472, -0.6931472], dtype=float32)
    """
    return nn_functions.log_softmax(x, axis=axis)


# ---- issue 11 (h-fft): ndtri and log_ndtr, for xjit.scipy.stats.norm ----

__all__ += ["log_ndtr", "ndtri"]

# Cephes' piece-wise rational approximations of ndtri (as JAX's _ndtri).
_NDTRI_P0 = [-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0]
_NDTRI_Q0 = [1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0]
_NDTRI_P1 = [4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4]
_NDTRI_Q1 = [1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4]
_NDTRI_P2 = [3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9]
_NDTRI_Q2 = [1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9]


def _polyval(coeffs, x, c):
    y = None
    for k in coeffs:
        y = c(k) if y is None else lax_ew.add(lax_ew.mul(y, x), c(k))
    return y


def _float_only(name, x):
    util.check_arraylike(name, x)
    x = util.asarray_any(x)
    dt = np.dtype(x.dtype)
    if dt not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={dt} is not supported, see docstring for supported types.")
    return x, dt.type


def ndtri(p):
    """The inverse of the standard normal CDF (float32 and float64 only, as in JAX).

    Example:
        >>> jax.scipy.special.ndtri(np.float32(0.975))
        Array(1.9599644, dtype=float32)
    """
    p, c = _float_only("ndtri", p)
    where = jnp_ew.where
    mcp = where(lax_ew.gt(p, c(-np.expm1(-2.))), lax_ew.sub(c(1.), p), p)
    # 0 would make NaNs below in the branch that is not chosen.
    mcp = where(lax_ew.eq(mcp, c(0.)), c(0.5), mcp)
    w = lax_ew.sub(mcp, c(0.5))
    ww = lax_ew.mul(w, w)
    big = lax_ew.add(w, lax_ew.mul(lax_ew.mul(w, ww), lax_ew.div(_polyval(_NDTRI_P0, ww, c),
                                                                   _polyval(_NDTRI_Q0, ww, c))))
    big = lax_ew.mul(big, c(-np.sqrt(2. * np.pi)))
    z = lax_ew.sqrt(lax_ew.mul(c(-2.), lax_ew.log(mcp)))
    first = lax_ew.sub(z, lax_ew.div(lax_ew.log(z), z))
    inv_z = lax_ew.div(c(1.), z)
    small = lax_ew.sub(first, lax_ew.div(lax_ew.div(_polyval(_NDTRI_P2, inv_z, c),
                                                    _polyval(_NDTRI_Q2, inv_z, c)), z))
    other = lax_ew.sub(first, lax_ew.div(lax_ew.div(_polyval(_NDTRI_P1, inv_z, c),
                                                    _polyval(_NDTRI_Q1, inv_z, c)), z))
    x = where(lax_ew.gt(mcp, c(np.exp(-2.))), big, where(lax_ew.ge(z, c(8.0)), small, other))
    x = where(lax_ew.gt(p, c(1. - np.exp(-2.))), x, lax_ew.neg(x))
    return where(lax_ew.eq(p, c(0.)), c(-np.inf), where(lax_ew.eq(p, c(1.)), c(np.inf), x))


_LOGNDTR_SEGMENTS = {np.dtype(np.float64): (-20.0, 8.0), np.dtype(np.float32): (-10.0, 5.0)}


def _log_ndtr_lower(x, series_order, c):
    """log(ndtr(x)) by the asymptotic series, for x << -1."""
    x2 = lax_ew.mul(x, x)
    log_scale = lax_ew.sub(lax_ew.sub(lax_ew.mul(c(-0.5), x2), lax_ew.log(lax_ew.neg(x))),
                           c(0.5 * np.log(2. * np.pi)))
    total = c(1.)
    x2n = x2
    for n in range(1, series_order + 1):
        y = lax_ew.div(c(np.prod(np.arange(2 * n - 1, 1, -2))), x2n)
        total = lax_ew.sub(total, y) if n % 2 else lax_ew.add(total, y)
        x2n = lax_ew.mul(x2n, x2)
    return lax_ew.add(log_scale, lax_ew.log(total))


def _log_ndtr_value(x, series_order):
    x, c = _float_only("log_ndtr", x)
    lower, upper = (c(v) for v in _LOGNDTR_SEGMENTS[np.dtype(x.dtype)])
    where = jnp_ew.where
    above = lax_ew.gt(x, upper)
    res = ndtr(where(above, lax_ew.neg(x), lax_ew.max(x, lower)))
    return where(above, lax_ew.neg(res),
                 where(lax_ew.gt(x, lower), lax_ew.log(res),
                       _log_ndtr_lower(lax_ew.min(x, lower), series_order, c)))


def _make_log_ndtr():
    from xjit._src.custom_derivatives import custom_jvp

    def _log_ndtr(x, series_order):
        return _log_ndtr_value(x, series_order)

    _log_ndtr = custom_jvp(_log_ndtr, nondiff_argnums=(1,))

    @_log_ndtr.defjvp
    def _jvp(series_order, primals, tangents):
        (x,), (t,) = primals, tangents
        ans = _log_ndtr(x, series_order)
        c = np.dtype(x.dtype).type
        logpdf = lax_ew.sub(lax_ew.mul(c(-0.5), lax_ew.mul(x, x)), c(np.log(np.sqrt(2 * np.pi))))
        return ans, lax_ew.mul(t, lax_ew.exp(lax_ew.sub(logpdf, ans)))

    return _log_ndtr


def log_ndtr(x, series_order: int = 3):
    """log of the standard normal CDF, accurate far into both tails (as JAX's).

    Example:
        >>> jax.scipy.special.log_ndtr(np.float32(-20.0))
        Array(-203.91716, dtype=float32)
    """
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x, _ = _float_only("log_ndtr", x)
    global _LOG_NDTR
    if _LOG_NDTR is None:
        _LOG_NDTR = _make_log_ndtr()
    return _LOG_NDTR(x, series_order)


_LOG_NDTR = None
