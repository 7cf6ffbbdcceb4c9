"""SciPy's distributions beyond ``norm`` on xjit arrays, as
``jax.scipy.stats`` defines them (every argument broadcasts; integer inputs
promote to the default float; outside the support the density is 0 and its
log -inf): closed-form location-scale families (``expon``, ``uniform``,
``laplace``, ``logistic``, ``cauchy``, ``gumbel_r``, ``gumbel_l``) with
logpdf/pdf/logcdf/cdf/logsf/sf/ppf, and the densities of ``t``, ``gamma``,
``chi2``, ``beta``, ``pareto``, ``multivariate_normal``, and the mass
functions of ``poisson``, ``bernoulli``, ``geom`` and ``binom``.

Example:
    >>> from xjit.scipy.stats import expon
    >>> expon.cdf(1.0)
    Array(0.63212055, dtype=float32, weak_type=True)
"""
from __future__ import annotations

import types

import numpy as np

from xjit._src.lax import special as lax_special
from xjit._src.numpy import util
from xjit._src.numpy.math_extras import logaddexp
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary


def _standardized(name, x, loc, scale):
    x, loc, scale = util.promote_args_inexact(name, x, loc, scale)
    return (x - loc) / scale, scale


def _location_scale(family, logpdf_z, logcdf_z, logsf_z, ppf_z, support=None):
    """The family's functions of ``(x, loc, scale)`` from those of the
    standard variable ``z = (x - loc) / scale``; ``support(z)`` is where the
    density is positive (default everywhere)."""
    def logpdf(x, loc=0, scale=1):
        z, s = _standardized(f"{family}.logpdf", x, loc, scale)
        out = logpdf_z(z) - jnp.log(s)
        return out if support is None else jnp.where(support(z), out, -jnp.inf)

    def logcdf(x, loc=0, scale=1):
        z, _ = _standardized(f"{family}.logcdf", x, loc, scale)
        return logcdf_z(z)

    def logsf(x, loc=0, scale=1):
        z, _ = _standardized(f"{family}.logsf", x, loc, scale)
        return logsf_z(z)

    def ppf(q, loc=0, scale=1):
        q, loc, scale = util.promote_args_inexact(f"{family}.ppf", q, loc, scale)
        inside = (q >= 0) & (q <= 1)
        return jnp.where(inside, ppf_z(q) * scale + loc, jnp.nan)

    fns = {"logpdf": logpdf, "pdf": lambda x, loc=0, scale=1: jnp.exp(logpdf(x, loc, scale)),
           "logcdf": logcdf, "cdf": lambda x, loc=0, scale=1: jnp.exp(logcdf(x, loc, scale)),
           "logsf": logsf, "sf": lambda x, loc=0, scale=1: jnp.exp(logsf(x, loc, scale)),
           "ppf": ppf}
    return _namespace(family, fns)


def _namespace(family, fns):
    for name, fn in fns.items():
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"``{family}.{name}``, as ``jax.scipy.stats.{family}.{name}``."
    return types.SimpleNamespace(**{k: api_boundary(v) for k, v in fns.items()})


def _log1mexp(x):
    """log(1 - exp(x)) for x <= 0, accurate near 0 and far below."""
    return jnp.where(x > -np.log(2), jnp.log(-jnp.expm1(x)), jnp.log1p(-jnp.exp(x)))


def _softplus(x):
    return logaddexp(x, 0.0)


expon = _location_scale(
    "expon", lambda z: -z,
    lambda z: jnp.where(z < 0, -jnp.inf, _log1mexp(-jnp.maximum(z, 0))),
    lambda z: jnp.where(z < 0, 0.0, -z),
    lambda q: -jnp.log1p(-q), support=lambda z: z >= 0)
uniform = _location_scale(
    "uniform", lambda z: jnp.zeros_like(z),
    lambda z: jnp.log(jnp.clip(z, 0, 1)), lambda z: jnp.log(jnp.clip(1 - z, 0, 1)),
    lambda q: q, support=lambda z: (z >= 0) & (z <= 1))
laplace = _location_scale(
    "laplace", lambda z: -jnp.abs(z) - np.log(2),
    lambda z: jnp.where(z < 0, z - np.log(2), jnp.log1p(-0.5 * jnp.exp(-jnp.maximum(z, 0)))),
    lambda z: jnp.where(z > 0, -z - np.log(2), jnp.log1p(-0.5 * jnp.exp(jnp.minimum(z, 0)))),
    lambda q: jnp.where(q < 0.5, jnp.log(2 * q), -jnp.log(2 - 2 * q)))
logistic = _location_scale(
    "logistic", lambda z: -z - 2 * _softplus(-z), lambda z: -_softplus(-z),
    lambda z: -_softplus(z), lambda q: jnp.log(q) - jnp.log1p(-q))
cauchy = _location_scale(
    "cauchy", lambda z: -np.log(np.pi) - jnp.log1p(z * z),
    lambda z: jnp.log(0.5 + jnp.arctan(z) / np.pi),
    lambda z: jnp.log(0.5 - jnp.arctan(z) / np.pi),
    lambda q: jnp.where(q == 0, -jnp.inf, jnp.where(q == 1, jnp.inf, jnp.tan(np.pi * (q - 0.5)))))
gumbel_r = _location_scale(
    "gumbel_r", lambda z: -z - jnp.exp(-z), lambda z: -jnp.exp(-z),
    lambda z: _log1mexp(-jnp.exp(-z)), lambda q: -jnp.log(-jnp.log(q)))
gumbel_l = _location_scale(
    "gumbel_l", lambda z: z - jnp.exp(z), lambda z: _log1mexp(-jnp.exp(z)),
    lambda z: -jnp.exp(z), lambda q: jnp.log(-jnp.log1p(-q)))


def _with_pdf(family, logpdf, pmf=False):
    fns = {"logpmf" if pmf else "logpdf": logpdf}
    fns["pmf" if pmf else "pdf"] = lambda *a, **k: jnp.exp(logpdf(*a, **k))
    return _namespace(family, fns)


def _t_logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = util.promote_args_inexact("t.logpdf", x, df, loc, scale)
    z = (x - loc) / scale
    half = (df + 1) / 2
    return (lax_special.lgamma(half) - lax_special.lgamma(df / 2) - 0.5 * jnp.log(df * np.pi)
            - jnp.log(scale) - half * jnp.log1p(z * z / df))


def _gamma_logpdf(x, a, loc=0, scale=1):
    x, a, loc, scale = util.promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    z = (x - loc) / scale
    safe = jnp.where(z > 0, z, jnp.ones_like(z))
    out = (a - 1) * jnp.log(safe) - safe - lax_special.lgamma(a) - jnp.log(scale)
    at_zero = jnp.where(a == 1, -jnp.log(scale), jnp.where(a < 1, jnp.inf, -jnp.inf))
    return jnp.where(z > 0, out, jnp.where(z == 0, at_zero, -jnp.inf))


def _chi2_logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = util.promote_args_inexact("chi2.logpdf", x, df, loc, scale)
    return _gamma_logpdf(x, df / 2, loc, scale * 2)


def _beta_logpdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = util.promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    z = (x - loc) / scale
    inside = (z > 0) & (z < 1)
    safe = jnp.where(inside, z, jnp.full_like(z, 0.5))
    log_beta = lax_special.lgamma(a) + lax_special.lgamma(b) - lax_special.lgamma(a + b)
    out = (a - 1) * jnp.log(safe) + (b - 1) * jnp.log1p(-safe) - log_beta - jnp.log(scale)
    return jnp.where(inside, out, -jnp.inf)


def _pareto_logpdf(x, b, loc=0, scale=1):
    x, b, loc, scale = util.promote_args_inexact("pareto.logpdf", x, b, loc, scale)
    z = (x - loc) / scale
    out = jnp.log(b) - (b + 1) * jnp.log(jnp.where(z >= 1, z, jnp.ones_like(z))) - jnp.log(scale)
    return jnp.where(z >= 1, out, -jnp.inf)


def _integral(k):
    return (k >= 0) & (jnp.floor(k) == k)


def _poisson_logpmf(k, mu, loc=0):
    k, mu, loc = util.promote_args_inexact("poisson.logpmf", k, mu, loc)
    x = k - loc
    safe = jnp.where(_integral(x), x, jnp.zeros_like(x))
    out = safe * jnp.log(mu) - mu - lax_special.lgamma(safe + 1)
    out = jnp.where((mu == 0) & (safe == 0), jnp.zeros_like(out), out)
    return jnp.where(_integral(x), out, -jnp.inf)


def _bernoulli_logpmf(k, p, loc=0):
    k, p, loc = util.promote_args_inexact("bernoulli.logpmf", k, p, loc)
    x = k - loc
    out = jnp.where(x == 1, jnp.log(p), jnp.log1p(-p))
    return jnp.where((x == 0) | (x == 1), out, -jnp.inf)


def _geom_logpmf(k, p, loc=0):
    k, p, loc = util.promote_args_inexact("geom.logpmf", k, p, loc)
    x = k - loc
    ok = _integral(x) & (x >= 1)
    out = (jnp.where(ok, x, jnp.ones_like(x)) - 1) * jnp.log1p(-p) + jnp.log(p)
    return jnp.where(ok, out, -jnp.inf)


def _binom_logpmf(k, n, p, loc=0):
    k, n, p, loc = util.promote_args_inexact("binom.logpmf", k, n, p, loc)
    x = k - loc
    ok = _integral(x) & (x <= n)
    safe = jnp.where(ok, x, jnp.zeros_like(x))
    log_comb = (lax_special.lgamma(n + 1) - lax_special.lgamma(safe + 1)
                - lax_special.lgamma(n - safe + 1))
    # x log p and (n - x) log(1 - p) are 0 where their count is (p at 0 or 1 included).
    xlogp = jnp.where(safe == 0, jnp.zeros_like(p), safe * jnp.log(p))
    ylog1mp = jnp.where(n - safe == 0, jnp.zeros_like(p), (n - safe) * jnp.log1p(-p))
    return jnp.where(ok, log_comb + xlogp + ylog1mp, -jnp.inf)


def _mvn_logpdf(x, mean, cov, allow_singular=None):
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    from xjit._src.lax.decompositions import cholesky, triangular_solve
    util.check_arraylike("multivariate_normal.logpdf", x, mean, cov)
    # One inexact dtype, no broadcasting (x, mean and cov have their own shapes).
    x, mean, cov = (v.astype(util.to_inexact(np.dtype(v.dtype)))
                    for v in util.promote_dtypes(jnp.asarray(x), jnp.asarray(mean),
                                                 jnp.asarray(cov)))
    if cov.ndim < 2:
        d = x.shape[-1] if x.ndim else 1
        var = jnp.broadcast_to(cov, (d,)) if cov.ndim else jnp.full((d,), cov)
        z = x - mean
        return (-0.5 * jnp.sum(z * z / var, axis=-1) - 0.5 * jnp.sum(jnp.log(var))
                - 0.5 * d * np.log(2 * np.pi))
    d = cov.shape[-1]
    chol = cholesky(cov)
    z = jnp.broadcast_to(x - mean, jnp.broadcast_shapes(x.shape, mean.shape))
    batch = jnp.broadcast_shapes(z.shape[:-1], cov.shape[:-2])
    z = jnp.broadcast_to(z, batch + (d,))
    chol_b = jnp.broadcast_to(chol, batch + (d, d))
    y = triangular_solve(chol_b, z[..., None], left_side=True, lower=True)[..., 0]
    log_det = jnp.sum(jnp.log(jnp.diagonal(chol_b, axis1=-2, axis2=-1)), axis=-1)
    return -0.5 * jnp.sum(y * y, axis=-1) - log_det - 0.5 * d * np.log(2 * np.pi)


def _gamma_cdf(x, a, loc=0, scale=1):
    from xjit._src.scipy.incomplete_gamma import gammainc
    x, a, loc, scale = util.promote_args_inexact("gamma.cdf", x, a, loc, scale)
    return gammainc(a, jnp.maximum((x - loc) / scale, 0))


def _chi2_cdf(x, df, loc=0, scale=1):
    x, df, loc, scale = util.promote_args_inexact("chi2.cdf", x, df, loc, scale)
    return _gamma_cdf(x, df / 2, loc, scale * 2)


def _poisson_cdf(k, mu, loc=0):
    from xjit._src.scipy.incomplete_gamma import gammaincc
    k, mu, loc = util.promote_args_inexact("poisson.cdf", k, mu, loc)
    x = jnp.floor(k - loc)
    return jnp.where(x < 0, jnp.zeros_like(x), gammaincc(jnp.maximum(x, 0) + 1, mu))


def _with_cdf(ns, family, cdf):
    extra = _namespace(family, {"cdf": cdf,
                                "sf": lambda *a, **k: 1 - cdf(*a, **k),
                                "logcdf": lambda *a, **k: jnp.log(cdf(*a, **k))})
    return types.SimpleNamespace(**vars(ns), **vars(extra))


t = _with_pdf("t", _t_logpdf)
gamma = _with_cdf(_with_pdf("gamma", _gamma_logpdf), "gamma", _gamma_cdf)
chi2 = _with_cdf(_with_pdf("chi2", _chi2_logpdf), "chi2", _chi2_cdf)
beta = _with_pdf("beta", _beta_logpdf)
pareto = _with_pdf("pareto", _pareto_logpdf)
multivariate_normal = _with_pdf("multivariate_normal", _mvn_logpdf)
poisson = _with_cdf(_with_pdf("poisson", _poisson_logpmf, pmf=True), "poisson", _poisson_cdf)
bernoulli = _with_pdf("bernoulli", _bernoulli_logpmf, pmf=True)
geom = _with_pdf("geom", _geom_logpmf, pmf=True)
binom = _with_pdf("binom", _binom_logpmf, pmf=True)
