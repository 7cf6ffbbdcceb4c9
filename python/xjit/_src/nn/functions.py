"""Activation functions and the other helpers of ``xjit.nn``, with JAX's
definitions (the numerically stable forms, the same dtypes and weak types).

Example:
    >>> import xjit.numpy as jnp
    >>> from xjit import nn
    >>> jax.nn.relu(jnp.array([-1.0, 2.0]))
    Array([0., 2.], dtype=float32)
"""
from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from xjit._src import core, dtypes
from xjit._src.errors import ConcretizationTypeError
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.lax import special as lax_special
from xjit._src.numpy import elementwise as jnp_ew
from xjit._src.numpy import reductions
from xjit._src.numpy import shape_ops
from xjit._src.numpy import util
from xjit._src.ops.special import logsumexp, reduction_dims

__all__ = [
    "celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "identity", "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax", "logmeanexp",
    "logsumexp", "mish", "one_hot", "relu", "relu6", "selu", "sigmoid", "silu", "soft_sign",
    "softmax", "softplus", "sparse_plus", "sparse_sigmoid", "squareplus", "standardize",
    "swish", "tanh",
]

tanh = jnp_ew.tanh


def _array(name, x):
    util.check_arraylike(name, x)
    return util.asarray_any(x)


def logaddexp(x1, x2):
    """``log(exp(x1) + exp(x2))`` without overflow (JAX's ``jnp.logaddexp``)."""
    a, b = util.promote_args_inexact("logaddexp", x1, x2)
    amax = lax_ew.max(a, b)
    delta = lax_ew.sub(a, b)
    stable = lax_ew.add(amax, lax_ew.log1p(lax_ew.exp(lax_ew.neg(lax_ew.abs(delta)))))
    # NaN, or infinities of the same sign (delta is NaN): a + b is the answer.
    return lax_ew.select(lax_ew.ne(delta, delta), lax_ew.add(a, b), stable)


# ------------------------------------------------------------------ activations

def identity(x):
    """Returns ``x`` (as an array).

    Example:
        >>> jax.nn.identity(jnp.array([1.0, -1.0]))
        Array([ 1., -1.], dtype=float32)
    """
    return _array("identity", x)


def relu(x):
    """Rectified linear unit ``max(x, 0)``.

    Example:
        >>> jax.nn.relu(jnp.array([-2, 3]))
        Array([0, 3], dtype=int32)
    """
    util.check_arraylike("relu", x)
    return jnp_ew.maximum(x, 0)


def relu6(x):
    """``min(max(x, 0), 6)``.

    Example:
        >>> jax.nn.relu6(jnp.array([-1.0, 3.0, 9.0]))
        Array([0., 3., 6.], dtype=float32)
    """
    util.check_arraylike("relu6", x)
    return jnp_ew.minimum(jnp_ew.maximum(x, 0), 6.)


def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``.

    Example:
        >>> jax.nn.squareplus(jnp.array([0.0]))
        Array([1.], dtype=float32)
    """
    util.check_arraylike("squareplus", x, b)
    y = jnp_ew.add(x, jnp_ew.sqrt(jnp_ew.add(jnp_ew.square(x), b)))
    return jnp_ew.true_divide(y, 2)


def softplus(x):
    """``log(1 + exp(x))``, as ``logaddexp(x, 0)``.

    Example:
        >>> jax.nn.softplus(jnp.array([0.0]))
        Array([0.6931472], dtype=float32)
    """
    util.check_arraylike("softplus", x)
    return logaddexp(x, 0)


def sparse_plus(x):
    """0 below -1, ``x`` above 1, ``(x + 1)**2 / 4`` between.

    Example:
        >>> jax.nn.sparse_plus(jnp.array([-2.0, 0.0, 2.0]))
        Array([0.  , 0.25, 2.  ], dtype=float32)
    """
    x = _array("sparse_plus", x)
    middle = jnp_ew.true_divide(jnp_ew.power(jnp_ew.add(x, 1.0), 2), 4)
    return jnp_ew.where(jnp_ew.less_equal(x, -1.0), 0.0,
                        jnp_ew.where(jnp_ew.greater_equal(x, 1.0), x, middle))


def soft_sign(x):
    """``x / (|x| + 1)``.

    Example:
        >>> jax.nn.soft_sign(jnp.array([1.0, -3.0]))
        Array([ 0.5 , -0.75], dtype=float32)
    """
    x = _array("soft_sign", x)
    return jnp_ew.true_divide(x, jnp_ew.add(jnp_ew.absolute(x), 1))


def sigmoid(x):
    """Logistic sigmoid ``1 / (1 + exp(-x))``.

    Example:
        >>> jax.nn.sigmoid(jnp.array([0.0]))
        Array([0.5], dtype=float32)
    """
    util.check_arraylike("sigmoid", x)
    return lax_ew.logistic(x)


def sparse_sigmoid(x):
    """``clip((x + 1) / 2, 0, 1)``.

    Example:
        >>> jax.nn.sparse_sigmoid(jnp.array([-2.0, 0.0, 2.0]))
        Array([0. , 0.5, 1. ], dtype=float32)
    """
    util.check_arraylike("sparse_sigmoid", x)
    return jnp_ew.multiply(0.5, jnp_ew.clip(jnp_ew.add(x, 1.0), 0.0, 2.0))


def silu(x):
    """Sigmoid linear unit ``x * sigmoid(x)`` (also called swish).

    Example:
        >>> jax.nn.silu(jnp.array([0.0]))
        Array([0.], dtype=float32)
    """
    x = _array("silu", x)
    return jnp_ew.multiply(x, sigmoid(x))


swish = silu


def mish(x):
    """``x * tanh(softplus(x))``.

    Example:
        >>> jax.nn.mish(jnp.array([0.0]))
        Array([0.], dtype=float32)
    """
    x = _array("mish", x)
    return jnp_ew.multiply(x, jnp_ew.tanh(softplus(x)))


def log_sigmoid(x):
    """``log(sigmoid(x))`` as ``-softplus(-x)`` (no underflow for very negative ``x``).

    Example:
        >>> jax.nn.log_sigmoid(jnp.array([0.0]))
        Array([-0.6931472], dtype=float32)
    """
    x = _array("log_sigmoid", x)
    return jnp_ew.negative(softplus(jnp_ew.negative(x)))


def elu(x, alpha=1.0):
    """``x`` above 0, ``alpha * (exp(x) - 1)`` otherwise.

    Example:
        >>> jax.nn.elu(jnp.array([-1.0, 2.0]))
        Array([-0.63212055,  2.        ], dtype=float32)
    """
    x = _array("elu", x)
    positive = jnp_ew.greater(x, 0)
    return jnp_ew.where(positive, x,
                        jnp_ew.multiply(alpha, jnp_ew.expm1(jnp_ew.where(positive, 0., x))))


def leaky_relu(x, negative_slope=1e-2):
    """``x`` where ``x >= 0``, ``negative_slope * x`` otherwise.

    Example:
        >>> jax.nn.leaky_relu(jnp.array([-1.0, 2.0]))
        Array([-0.01,  2.  ], dtype=float32)
    """
    x = _array("leaky_relu", x)
    return jnp_ew.where(jnp_ew.greater_equal(x, 0), x, jnp_ew.multiply(negative_slope, x))


def hard_tanh(x):
    """``x`` clipped to [-1, 1].

    Example:
        >>> jax.nn.hard_tanh(jnp.array([-2.0, 0.5, 2.0]))
        Array([-1. ,  0.5,  1. ], dtype=float32)
    """
    x = _array("hard_tanh", x)
    return jnp_ew.where(jnp_ew.greater(x, 1), 1,
                        jnp_ew.where(jnp_ew.less(x, -1), -1, x))


def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``.

    Example:
        >>> jax.nn.celu(jnp.array([-1.0, 2.0]))
        Array([-0.63212055,  2.        ], dtype=float32)
    """
    util.check_arraylike("celu", x)
    return jnp_ew.add(jnp_ew.maximum(x, 0.0),
                      jnp_ew.multiply(alpha, jnp_ew.expm1(
                          jnp_ew.true_divide(jnp_ew.minimum(x, 0.0), alpha))))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x):
    """Scaled exponential linear unit ``scale * elu(x, alpha)`` (Klambauer et al.).

    Example:
        >>> jax.nn.selu(jnp.array([1.0]))
        Array([1.050701], dtype=float32)
    """
    return jnp_ew.multiply(_SELU_SCALE, elu(x, _SELU_ALPHA))


def gelu(x, approximate: bool = True):
    """Gaussian error linear unit: the tanh approximation, or ``x/2 erfc(-x/sqrt 2)``.

    Example:
        >>> jax.nn.gelu(jnp.array([1.0]), approximate=False)
        Array([0.8413447], dtype=float32)
    """
    x_arr, = util.promote_args_inexact("gelu", x)
    dt = x_arr.dtype
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(dt)
        inner = jnp_ew.multiply(sqrt_2_over_pi, jnp_ew.add(
            x_arr, jnp_ew.multiply(0.044715, jnp_ew.power(x_arr, 3))))
        cdf = jnp_ew.multiply(0.5, jnp_ew.add(1.0, jnp_ew.tanh(inner)))
        return jnp_ew.multiply(x_arr, cdf)
    sqrt_half = np.sqrt(0.5).astype(dt)
    erfc = lax_special.erfc(jnp_ew.multiply(jnp_ew.negative(x_arr), sqrt_half))
    # jnp.array(..., dtype=x.dtype) in JAX: the result is strongly typed.
    return util.convert(jnp_ew.multiply(jnp_ew.multiply(0.5, x_arr), erfc), dt, False)


def glu(x, axis: int = -1):
    """Gated linear unit: the first half of ``axis`` times sigmoid of the second half.

    Example:
        >>> jax.nn.glu(jnp.array([2.0, 0.0]))
        Array([1.], dtype=float32)
    """
    x_arr = _array("glu", x)
    size = x_arr.shape[axis]
    if size % 2 != 0:
        raise AssertionError("axis size must be divisible by 2")
    x1, x2 = shape_ops.split(x_arr, 2, axis)
    return jnp_ew.multiply(x1, sigmoid(x2))


def hard_sigmoid(x):
    """``relu6(x + 3) / 6``.

    Example:
        >>> jax.nn.hard_sigmoid(jnp.array([0.0]))
        Array([0.5], dtype=float32)
    """
    return jnp_ew.true_divide(relu6(jnp_ew.add(x, 3.)), 6.)


def hard_silu(x):
    """``x * hard_sigmoid(x)`` (also called hard_swish).

    Example:
        >>> jax.nn.hard_silu(jnp.array([3.0]))
        Array([3.], dtype=float32)
    """
    x_arr = _array("hard_silu", x)
    return jnp_ew.multiply(x_arr, hard_sigmoid(x_arr))


hard_swish = hard_silu


def log1mexp(x):
    """``log(1 - exp(-x))`` for ``x >= 0``, accurate near 0 and for large ``x``.

    Example:
        >>> jax.nn.log1mexp(jnp.array([1.0]))
        Array([-0.45867515], dtype=float32)
    """
    x = _array("log1mexp", x)
    small = jnp_ew.log(jnp_ew.negative(jnp_ew.expm1(jnp_ew.negative(x))))
    large = jnp_ew.log1p(jnp_ew.negative(jnp_ew.exp(jnp_ew.negative(x))))
    return jnp_ew.where(jnp_ew.less(x, jnp_ew.log(2.0)), small, large)


# ------------------------------------------------------------- softmax and friends

def logmeanexp(x, axis=None, where=None, keepdims: bool = False):
    """``logsumexp(x) - log(n)``, n the number of elements reduced (or selected by ``where``).

    Example:
        >>> jax.nn.logmeanexp(jnp.array([0.0, 0.0]))
        Array(0., dtype=float32)
    """
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    x_arr = util.asarray_any(x)
    if where is None:
        count = math.prod(x_arr.shape[i] for i in reduction_dims(x_arr, axis))
        count = util.convert(count, lse.dtype, False)
    else:
        mask = util.broadcast_to(jnp_ew._to_bool(where), x_arr.shape)
        count = reductions.sum(mask, axis=axis, keepdims=keepdims, dtype=lse.dtype)
    return jnp_ew.subtract(lse, jnp_ew.log(count))


def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x)`` over ``axis`` (an int, a tuple or None); masked-out
    elements (``where`` False) are -inf.

    Example:
        >>> jax.nn.log_softmax(jnp.array([0.0, 0.0]))
        Array([-0.6931472, -0.6931472], dtype=float32)
    """
    x_arr = _array("log_softmax", x)
    x_max = reductions.max(x_arr, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x_arr if where is None else jnp_ew.where(where, x_arr, -np.inf)
    shifted = jnp_ew.subtract(x_safe, x_max)
    shifted_logsumexp = jnp_ew.log(
        reductions.sum(jnp_ew.exp(shifted), axis, where=where, keepdims=True))
    result = jnp_ew.subtract(shifted, shifted_logsumexp)
    if where is not None:
        return jnp_ew.where(where, result, -np.inf)
    return result


def softmax(x, axis=-1, where=None):
    """``exp(x - max) / sum(exp(x - max))`` over ``axis`` (an int, a tuple or None);
    masked-out elements (``where`` False) are 0.

    Example:
        >>> jax.nn.softmax(jnp.array([0.0, 0.0]))
        Array([0.5, 0.5], dtype=float32)
    """
    util.check_arraylike("softmax", x)
    x_max = reductions.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp_ew.where(where, x, -np.inf)
    unnormalized = jnp_ew.exp(jnp_ew.subtract(x_safe, x_max))
    result = jnp_ew.true_divide(
        unnormalized, reductions.sum(unnormalized, axis, where=where, keepdims=True))
    if where is not None:
        result = jnp_ew.where(where, result, 0)
    return result


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm: str = "fast"):
    """``(x - mean) / sqrt(variance + epsilon)`` over ``axis`` (layer normalization
    without scale and offset). ``algorithm="fast"`` takes the variance as
    ``mean(x**2) - mean(x)**2`` (clipped at 0), ``"stable"`` as ``mean((x - mean)**2)``.

    Example:
        >>> jax.nn.standardize(jnp.array([1.0, 3.0]))
        Array([-0.999995,  0.999995], dtype=float32)
    """
    util.check_arraylike("standardize", x)
    for name, v in (("mean", mean), ("variance", variance), ("where", where)):
        if v is not None:
            util.check_arraylike("standardize", v)
    if mean is None:
        mean = reductions.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = reductions.mean(jnp_ew.square(jnp_ew.subtract(x, mean)), axis,
                                       keepdims=True, where=where)
        elif algorithm == "fast":
            variance = jnp_ew.subtract(
                reductions.mean(jnp_ew.square(x), axis, keepdims=True, where=where),
                jnp_ew.square(mean))
            # mean(x^2) - mean(x)^2 can round below zero.
            variance = jnp_ew.clip(variance, 0)
        else:
            raise ValueError(
                f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return jnp_ew.multiply(jnp_ew.subtract(x, mean),
                           lax_ew.rsqrt(jnp_ew.add(variance, epsilon)))


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """One-hot encoding of integer indices ``x`` along a new axis ``axis`` of size
    ``num_classes`` (indices outside [0, num_classes) give all zeros).

    Example:
        >>> jax.nn.one_hot(jnp.array([0, 2]), 3)
        Array([[1., 0., 0.],
               [0., 0., 1.]], dtype=float32)
    """
    if isinstance(num_classes, core.Tracer):
        raise ConcretizationTypeError(
            "one_hot: num_classes must be a concrete integer, got a traced value. "
            "The error arose in jax.nn.one_hot argument `num_classes`.")
    try:
        num_classes = operator.index(num_classes)
    except TypeError:
        raise TypeError(f"one_hot: num_classes must be an integer, got {num_classes!r}. "
                        f"The error arose in jax.nn.one_hot argument `num_classes`.") from None
    x_arr = _array("one_hot", x)
    if not dtypes.issubdtype(x_arr.dtype, np.integer):
        warnings.warn(f"jax.nn.one_hot input should be integer-typed; got "
                      f"dtype={x_arr.dtype}", DeprecationWarning, stacklevel=2)
    out_dtype = dtypes.default_float_dtype() if dtype is None else util.requested_dtype(dtype)
    out_axis = util.canonicalize_axis(axis, x_arr.ndim + 1)
    shape = list(x_arr.shape)
    shape.insert(out_axis, num_classes)
    lhs = lax_shapes.broadcast_in_dim(
        x_arr, tuple(shape), tuple(d for d in range(len(shape)) if d != out_axis))
    rhs = lax_shapes.broadcasted_iota(x_arr.dtype, tuple(shape), out_axis)
    return util.convert(lax_ew.eq(lhs, rhs), out_dtype, False)
