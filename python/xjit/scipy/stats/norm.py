"""``xjit.scipy.stats.norm`` (JAX's ``jax.scipy.stats.norm``).

Example:
    >>> from xjit.scipy.stats import norm
    >>> norm.pdf(0.0)
    Array(0.3989423, dtype=float32, weak_type=True)
"""
from xjit._src.scipy.stats.norm import (  # noqa: F401
    cdf, isf, logcdf, logpdf, logsf, pdf, ppf, sf)
