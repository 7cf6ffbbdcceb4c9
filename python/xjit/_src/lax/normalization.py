"""Batch normalization in ``xjit.lax``: ``batch_norm_inference``,
``batch_norm_training`` and ``batch_norm_grad``, the StableHLO ops of those
names. JAX has no public lax batch norm (flax and haiku write it with
``jnp.mean``/``jnp.var``); these three are xjit extras, named after the ops.

Every dimension but ``feature_index`` is reduced over; ``scale``, ``offset``,
``mean`` and ``variance`` are 1-d, of size ``operand.shape[feature_index]``,
of the operand's (floating-point) dtype.

Example:
    >>> x = np.array([[1., 2.], [3., 6.]], np.float32)
    >>> y, mean, var = lax.batch_norm_training(x, np.ones(2, np.float32),
    ...                                        np.zeros(2, np.float32),
    ...                                        epsilon=0.0, feature_index=1)
    >>> mean
    Array([2., 4.], dtype=float32)
"""
from __future__ import annotations

import numbers
import operator

import numpy as np

from xjit._src import dispatch
from xjit._src.lax import operands as ops
from xjit._src.traceback_util import api_boundary


def _check(name: str, operand, vectors: dict, epsilon, feature_index, grad_output=None) -> dict:
    """The op's attributes after JAX-style checks of its arguments."""
    args = [operand, *vectors.values()] + ([] if grad_output is None else [grad_output])
    ops.check_arraylike(name, *args)
    dt = ops.dtype_of(operand)
    if ops.kind(dt) != "f":
        raise TypeError(f"{name} does not accept dtype {np.dtype(dt).name}. Accepted dtypes "
                        f"are subtypes of floating.")
    shape = ops.shape_of(operand)
    if isinstance(feature_index, bool) or not isinstance(feature_index, numbers.Integral):
        raise TypeError(f"{name}: feature_index must be an int, got {feature_index!r}")
    feature_index = operator.index(feature_index)
    if not 0 <= feature_index < len(shape):
        raise ValueError(f"{name}: feature_index {feature_index} is out of range for an operand "
                         f"of rank {len(shape)} (need 0 <= feature_index < {len(shape)})")
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"{name}: epsilon must be a real number, got {epsilon!r}")
    features = shape[feature_index]
    for what, v in vectors.items():
        if ops.dtype_of(v) != dt:
            raise TypeError(f"{name}: {what} must have the operand's dtype {np.dtype(dt).name}, "
                            f"got {ops.dtype_of(v).name}")
        if ops.shape_of(v) != (features,):
            raise TypeError(f"{name}: {what} must have shape ({features},) (the operand's "
                            f"dimension {feature_index}), got {ops.shape_of(v)}")
    if grad_output is not None:
        if ops.dtype_of(grad_output) != dt or ops.shape_of(grad_output) != shape:
            raise TypeError(f"{name}: grad_output must have the operand's type "
                            f"{np.dtype(dt).name}{list(shape)}, got "
                            f"{ops.dtype_of(grad_output).name}{list(ops.shape_of(grad_output))}")
    return {"epsilon": float(epsilon), "feature_index": feature_index}


def _operands(*xs) -> list:
    return [ops.as_operand(x) for x in xs]


@api_boundary
def batch_norm_inference(operand, scale, offset, mean, variance, *, epsilon: float,
                         feature_index: int):
    """``scale * (operand - mean) / sqrt(variance + epsilon) + offset``, the
    vectors broadcast along ``feature_index`` (StableHLO ``batch_norm_inference``;
    an xjit extra: JAX has no lax batch norm).

    Example:
        >>> x = np.array([[1., 2.], [3., 6.]], np.float32)
        >>> one, zero = np.ones(2, np.float32), np.zeros(2, np.float32)
        >>> lax.batch_norm_inference(x, one, zero, np.array([2., 4.], np.float32),
        ...                          np.array([1., 4.], np.float32), epsilon=0.0,
        ...                          feature_index=1)
        Array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
    """
    name = "batch_norm_inference"
    attrs = _check(name, operand, {"scale": scale, "offset": offset, "mean": mean,
                                   "variance": variance}, epsilon, feature_index)
    return dispatch.bind("batch_norm_inference",
                         _operands(operand, scale, offset, mean, variance), attrs)


@api_boundary
def batch_norm_training(operand, scale, offset, *, epsilon: float, feature_index: int):
    """Normalizes ``operand`` with its own per-feature mean and (biased, divided
    by N) variance; returns ``(output, batch_mean, batch_var)`` (StableHLO
    ``batch_norm_training``; an xjit extra: JAX has no lax batch norm)."""
    name = "batch_norm_training"
    attrs = _check(name, operand, {"scale": scale, "offset": offset}, epsilon, feature_index)
    return tuple(dispatch.bind("batch_norm_training", _operands(operand, scale, offset), attrs))


@api_boundary
def batch_norm_grad(operand, scale, mean, variance, grad_output, *, epsilon: float,
                    feature_index: int):
    """The gradients of ``batch_norm_training`` with respect to operand, scale
    and offset given ``grad_output`` and the batch statistics: returns
    ``(grad_operand, grad_scale, grad_offset)`` (StableHLO ``batch_norm_grad``;
    an xjit extra: JAX has no lax batch norm)."""
    name = "batch_norm_grad"
    attrs = _check(name, operand, {"scale": scale, "mean": mean, "variance": variance},
                   epsilon, feature_index, grad_output)
    return tuple(dispatch.bind("batch_norm_grad",
                               _operands(operand, scale, mean, variance, grad_output), attrs))
