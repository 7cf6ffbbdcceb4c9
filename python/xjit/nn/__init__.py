"""``xjit.nn``: activation functions, softmax, normalization and one-hot encoding for
neural networks (JAX's ``jax.nn``), and ``xjit.nn.initializers``.

Example:
    >>> import xjit.numpy as jnp
    >>> from xjit import nn
    >>> nn.softmax(jnp.array([0.0, 0.0]))
    Array([0.5, 0.5], dtype=float32)
"""
from xjit._src.nn.functions import (  # noqa: F401
    celu, elu, gelu, glu, hard_sigmoid, hard_silu, hard_swish, hard_tanh, identity,
    leaky_relu, log1mexp, log_sigmoid, log_softmax, logmeanexp, logsumexp, mish, one_hot,
    relu, relu6, selu, sigmoid, silu, soft_sign, softmax, softplus, sparse_plus,
    sparse_sigmoid, squareplus, standardize, swish, tanh)
from xjit._src.nn.attention import dot_product_attention  # noqa: F401
from xjit.nn import initializers  # noqa: F401
