"""``xjit.scipy.stats.norm``: the normal distribution with ``loc`` and
``scale``, as ``jax.scipy.stats.norm`` (integer inputs promote to the
default float; every argument broadcasts).

Example:
    >>> from xjit.scipy.stats import norm
    >>> norm.cdf(0.0)
    Array(0.5, dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.lax import elementwise as lax_ew
from xjit._src.numpy import creation, elementwise as jnp_ew
from xjit._src.numpy import util
from xjit._src.scipy import special


def _c(x, v):
    # A Python scalar (weakly typed): x's dtype and weak type carry through, as in JAX.
    return float(v)


def logpdf(x, loc=0, scale=1):
    """log of the normal density. Example: ``norm.logpdf(x, loc=1.0, scale=2.0)``."""
    x, loc, scale = util.promote_args_inexact("norm.logpdf", x, loc, scale)
    scale_sq = lax_ew.mul(scale, scale)
    log_normalizer = lax_ew.log(lax_ew.mul(_c(x, 2 * np.pi), scale_sq))
    quadratic = lax_ew.div(lax_ew.square(lax_ew.sub(x, loc)), scale_sq)
    return lax_ew.div(lax_ew.add(log_normalizer, quadratic), _c(x, -2))


def pdf(x, loc=0, scale=1):
    """The normal density. Example: ``norm.pdf(0.0)``."""
    return lax_ew.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The normal CDF. Example: ``norm.cdf(1.96)``."""
    x, loc, scale = util.promote_args_inexact("norm.cdf", x, loc, scale)
    return special.ndtr(lax_ew.div(lax_ew.sub(x, loc), scale))


def logcdf(x, loc=0, scale=1):
    """log of the normal CDF, accurate in the lower tail. Example: ``norm.logcdf(-30.0)``."""
    x, loc, scale = util.promote_args_inexact("norm.logcdf", x, loc, scale)
    return special.log_ndtr(lax_ew.div(lax_ew.sub(x, loc), scale))


def sf(x, loc=0, scale=1):
    """The survival function 1 - cdf. Example: ``norm.sf(3.0)``."""
    x, loc, scale = util.promote_args_inexact("norm.sf", x, loc, scale)
    return cdf(lax_ew.neg(x), lax_ew.neg(loc), scale)


def logsf(x, loc=0, scale=1):
    """log of the survival function. Example: ``norm.logsf(30.0)``."""
    x, loc, scale = util.promote_args_inexact("norm.logsf", x, loc, scale)
    return logcdf(lax_ew.neg(x), lax_ew.neg(loc), scale)


def ppf(q, loc=0, scale=1):
    """The quantile function (inverse CDF): float32/float64 ``q`` only, as in JAX;
    the result has the default float dtype. Example: ``norm.ppf(0.975)``."""
    x = special.ndtri(q)
    out = jnp_ew.add(jnp_ew.multiply(x, scale), loc)
    return creation.asarray(out, dtypes.default_float_dtype())


def isf(q, loc=0, scale=1):
    """The inverse survival function ``ppf(1 - q)``. Example: ``norm.isf(0.025)``."""
    util.check_arraylike("norm.isf", q)
    q = util.asarray_any(q)
    return ppf(lax_ew.sub(np.array(1, dtype=q.dtype), q), loc, scale)
