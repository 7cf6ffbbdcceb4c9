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
        Array(0.47950011, dtype=float32)
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
