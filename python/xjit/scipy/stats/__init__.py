"""``xjit.scipy.stats``: SciPy's distributions on xjit arrays (JAX's
``jax.scipy.stats``); so far ``norm``.

Example:
    >>> from xjit.scipy.stats import norm
    >>> norm.ppf(0.5)
    Array(0., dtype=float32)
"""
from xjit.scipy.stats import norm  # noqa: F401
