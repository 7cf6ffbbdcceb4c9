"""``xjit.random``: JAX's random API, bit-identical to JAX's default generator
(threefry2x32, ``jax_threefry_partitionable=True``) for the same key, shape and dtype.

Example:
    >>> from xjit import random
    >>> k1, k2 = random.split(random.PRNGKey(0))
    >>> random.normal(k1, (3,)).shape
    (3,)
"""
from xjit._src.random.keys import (  # noqa: F401
    KeyArray, PRNGKey, key, key_data, key_dtype, key_impl, wrap_key_data)
from xjit._src.random.samplers import (  # noqa: F401
    ball, bernoulli, beta, bits, categorical, cauchy, choice, clone, dirichlet,
    double_sided_maxwell, exponential, fold_in, gamma, generalized_normal, gumbel, laplace,
    loggamma, logistic, lognormal, maxwell, multivariate_normal, normal, orthogonal, pareto,
    permutation, poisson, rademacher, randint, rayleigh, split, t, truncated_normal, uniform,
    weibull_min)
from xjit._src.random.compound import (  # noqa: F401
    chisquare, f, geometric, triangular, wald)
