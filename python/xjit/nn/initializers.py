"""``xjit.nn.initializers``: parameter initializers with JAX's signatures
(``init(key, shape, dtype=None)``). The random ones draw from ``xjit.random``.

Example:
    >>> from xjit.nn import initializers
    >>> initializers.ones(None, (2,))
    Array([1., 1.], dtype=float32)
"""
from xjit._src.nn.initializers import (  # noqa: F401
    constant, delta_orthogonal, glorot_normal, glorot_uniform, he_normal, he_uniform,
    kaiming_normal, kaiming_uniform, lecun_normal, lecun_uniform, normal, ones, orthogonal,
    truncated_normal, uniform, variance_scaling, xavier_normal, xavier_uniform, zeros)
