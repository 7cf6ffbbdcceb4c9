"""``xjit.scipy.stats``: SciPy's distributions on xjit arrays (JAX's
``jax.scipy.stats``): ``norm`` and the families of
``_src/scipy/stats/families.py``.

Example:
    >>> from xjit.scipy.stats import norm
    >>> norm.ppf(0.5)
    Array(0., dtype=float32)
"""
from xjit.scipy.stats import norm  # noqa: F401
from xjit._src.scipy.stats.families import (  # noqa: F401
    bernoulli, beta, binom, cauchy, chi2, expon, gamma, geom, gumbel_l, gumbel_r, laplace,
    logistic, multivariate_normal, pareto, poisson, t, uniform)
