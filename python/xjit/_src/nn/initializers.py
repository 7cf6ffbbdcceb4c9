"""``xjit.nn.initializers``: JAX's parameter initializers.

An initializer is called as ``init(key, shape, dtype=None)``. ``zeros``, ``ones``
and ``constant`` ignore the key; the random ones draw from ``xjit.random``
(``normal``, ``uniform``, ``truncated_normal``, ``split``, ``orthogonal`` when it
has it) with JAX's formulas, so they give JAX's values wherever ``xjit.random``
gives JAX's bits. ``xjit.random`` is looked up when an initializer runs; without
it the random initializers raise ``NotImplementedError``.

Example:
    >>> from xjit.nn import initializers
    >>> jax.nn.initializers.zeros(None, (2,))
    Array([0., 0.], dtype=float32)
"""
from __future__ import annotations

import importlib
import math
from typing import Sequence

import numpy as np

from xjit._src import dtypes
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import creation
from xjit._src.numpy import elementwise as jnp_ew
from xjit._src.numpy import linalg_ops
from xjit._src.numpy import reductions
from xjit._src.numpy import shape_ops
from xjit._src.numpy import util

__all__ = [
    "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal",
    "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform",
    "normal", "ones", "orthogonal", "truncated_normal", "uniform", "variance_scaling",
    "xavier_normal", "xavier_uniform", "zeros",
]


def _random():
    """The ``xjit.random`` module (built apart from this one), found when needed.

    Imported by name at call time: ``xjit.random`` is a public module, and this
    private one must not import it at load time (tests/test_import_structure.py).
    """
    try:
        return importlib.import_module("xjit.random")
    except ModuleNotFoundError as err:
        if err.name not in ("xjit.random", "xjit"):
            raise
        raise NotImplementedError(
            "the random initializers of xjit.nn.initializers need xjit.random, which this "
            "build of xjit does not have") from None


def _dtype(dtype):
    return dtypes.default_float_dtype() if dtype is None else util.requested_dtype(dtype)


def _shape(shape) -> tuple:
    return util.canonical_shape(shape)


def _scalar(value, dtype):
    """``jnp.array(value, dtype)``: a strongly typed scalar."""
    return util.convert(value, dtype, False)


# ------------------------------------------------------------------ constant initializers

def zeros(key, shape, dtype=None):
    """An array of zeros (the key is ignored).

    Example:
        >>> jax.nn.initializers.zeros(None, (1, 2), jnp.int32)
        Array([[0, 0]], dtype=int32)
    """
    return creation.zeros(_shape(shape), _dtype(dtype))


def ones(key, shape, dtype=None):
    """An array of ones (the key is ignored).

    Example:
        >>> jax.nn.initializers.ones(None, (2,))
        Array([1., 1.], dtype=float32)
    """
    return creation.ones(_shape(shape), _dtype(dtype))


def constant(value, dtype=None):
    """An initializer filling with ``value``.

    Example:
        >>> jax.nn.initializers.constant(-7)(None, (2,))
        Array([-7., -7.], dtype=float32)
    """
    def init(key, shape, dtype=dtype):
        return creation.full(_shape(shape), value, dtype=_dtype(dtype))
    return init


# -------------------------------------------------------------------- random initializers

def uniform(scale=1e-2, dtype=None):
    """An initializer drawing uniformly from ``[0, scale)``.

    Example:
        >>> init = jax.nn.initializers.uniform(10.0)
    """
    def init(key, shape, dtype=dtype):
        dt = _dtype(dtype)
        return jnp_ew.multiply(_random().uniform(key, _shape(shape), dt), _scalar(scale, dt))
    return init


def normal(stddev=1e-2, dtype=None):
    """An initializer drawing from a normal distribution with mean 0 and ``stddev``.

    Example:
        >>> init = jax.nn.initializers.normal(5.0)
    """
    def init(key, shape, dtype=dtype):
        dt = _dtype(dtype)
        return jnp_ew.multiply(_random().normal(key, _shape(shape), dt), _scalar(stddev, dt))
    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """An initializer drawing from a normal distribution truncated to
    ``(lower, upper)``, then scaled by ``stddev``.

    Example:
        >>> init = jax.nn.initializers.truncated_normal(5.0)
    """
    def init(key, shape, dtype=dtype):
        dt = _dtype(dtype)
        sample = _random().truncated_normal(key, lower, upper, _shape(shape), dt)
        return jnp_ew.multiply(sample, _scalar(stddev, dt))
    return init


def _axes_size(shape, axes) -> int:
    if isinstance(axes, int):
        return shape[axes]
    return math.prod(shape[i] for i in axes)


def compute_fans(shape: Sequence[int], in_axis=-2, out_axis=-1, batch_axis=()):
    """(fan_in, fan_out) of a weight shape: the input and output sizes times the
    receptive field (the axes that are neither input, output nor batch)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(
            f"Can't compute input and output sizes of a {len(shape)}-dimensional weights "
            f"tensor with default in_axis. Must be at least 2D or specify in_axis explicitly.")
    in_size = _axes_size(shape, in_axis)
    out_size = _axes_size(shape, out_axis)
    batch_size = _axes_size(shape, batch_axis)
    receptive_field_size = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field_size, out_size * receptive_field_size


def _real_dtype(dt):
    return np.dtype(util.real_dtype(dt))


def _complex_uniform(key, shape, dtype):
    """Uniform on the unit-variance disk (JAX's complex ``uniform`` branch)."""
    rnd = _random()
    key_r, key_theta = rnd.split(key)
    real_dt = _real_dtype(dtype)
    r = jnp_ew.sqrt(jnp_ew.multiply(2, rnd.uniform(key_r, shape, real_dt)))
    r = util.convert(r, dtype, False)
    theta = jnp_ew.multiply(2 * np.pi, util.convert(rnd.uniform(key_theta, shape, real_dt),
                                                    dtype, False))
    return jnp_ew.multiply(r, jnp_ew.exp(jnp_ew.multiply(1j, theta)))


def _complex_truncated_normal(key, upper, shape, dtype):
    """Complex normal of unit variance with modulus truncated to ``upper``."""
    rnd = _random()
    key_r, key_theta = rnd.split(key)
    real_dt = _real_dtype(dtype)
    t = jnp_ew.multiply(
        jnp_ew.subtract(1, jnp_ew.exp(_scalar(-(upper ** 2), dtype))),
        util.convert(rnd.uniform(key_r, shape, real_dt), dtype, False))
    r = jnp_ew.sqrt(jnp_ew.negative(jnp_ew.log(jnp_ew.subtract(1, t))))
    theta = jnp_ew.multiply(2 * np.pi, util.convert(rnd.uniform(key_theta, shape, real_dt),
                                                    dtype, False))
    return jnp_ew.multiply(r, jnp_ew.exp(jnp_ew.multiply(1j, theta)))


def variance_scaling(scale, mode: str, distribution: str, in_axis=-2, out_axis=-1,
                     batch_axis=(), dtype=None):
    """An initializer whose samples have variance ``scale / n``, ``n`` per ``mode``
    (``"fan_in"``, ``"fan_out"``, ``"fan_avg"``, ``"fan_geo_avg"``), from
    ``distribution`` (``"truncated_normal"``, ``"normal"``, ``"uniform"``).

    Example:
        >>> init = jax.nn.initializers.variance_scaling(2.0, "fan_in", "truncated_normal")
    """
    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        dt = _dtype(dtype)
        fan_in, fan_out = compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode == "fan_in":
            denominator = fan_in
        elif mode == "fan_out":
            denominator = fan_out
        elif mode == "fan_avg":
            denominator = (fan_in + fan_out) / 2
        elif mode == "fan_geo_avg":
            denominator = (fan_in * fan_out) ** 0.5
        else:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = _scalar(scale / denominator, dt)
        is_real = dtypes.issubdtype(dt, np.floating)
        if distribution == "truncated_normal":
            if is_real:
                # 0.8796... is the stddev of a standard normal truncated to (-2, 2).
                stddev = jnp_ew.true_divide(jnp_ew.sqrt(variance),
                                            _scalar(.87962566103423978, dt))
                sample = _random().truncated_normal(key, -2, 2, shape, dt)
                return jnp_ew.multiply(sample, stddev)
            stddev = jnp_ew.true_divide(jnp_ew.sqrt(variance), _scalar(.95311164380491208, dt))
            return jnp_ew.multiply(_complex_truncated_normal(key, 2, shape, dt), stddev)
        if distribution == "normal":
            return jnp_ew.multiply(_random().normal(key, shape, dt), jnp_ew.sqrt(variance))
        if distribution == "uniform":
            if is_real:
                sample = _random().uniform(key, shape, dt, -1)
                return jnp_ew.multiply(sample, jnp_ew.sqrt(jnp_ew.multiply(3, variance)))
            return jnp_ew.multiply(_complex_uniform(key, shape, dt), jnp_ew.sqrt(variance))
        raise ValueError(
            f"invalid distribution for variance scaling initializer: {distribution}")
    return init


def _scaled(scale, mode, distribution):
    def make(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis=in_axis, out_axis=out_axis,
                                batch_axis=batch_axis, dtype=dtype)
    return make


def glorot_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """``variance_scaling(1.0, "fan_avg", "uniform")`` (Glorot & Bengio).

    Example:
        >>> init = jax.nn.initializers.glorot_uniform()
    """
    return _scaled(1.0, "fan_avg", "uniform")(in_axis, out_axis, batch_axis, dtype)


def glorot_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """``variance_scaling(1.0, "fan_avg", "truncated_normal")``.

    Example:
        >>> init = jax.nn.initializers.glorot_normal()
    """
    return _scaled(1.0, "fan_avg", "truncated_normal")(in_axis, out_axis, batch_axis, dtype)


def lecun_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """``variance_scaling(1.0, "fan_in", "uniform")``.

    Example:
        >>> init = jax.nn.initializers.lecun_uniform()
    """
    return _scaled(1.0, "fan_in", "uniform")(in_axis, out_axis, batch_axis, dtype)


def lecun_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """``variance_scaling(1.0, "fan_in", "truncated_normal")``.

    Example:
        >>> init = jax.nn.initializers.lecun_normal()
    """
    return _scaled(1.0, "fan_in", "truncated_normal")(in_axis, out_axis, batch_axis, dtype)


def he_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """``variance_scaling(2.0, "fan_in", "uniform")`` (He et al.).

    Example:
        >>> init = jax.nn.initializers.he_uniform()
    """
    return _scaled(2.0, "fan_in", "uniform")(in_axis, out_axis, batch_axis, dtype)


def he_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """``variance_scaling(2.0, "fan_in", "truncated_normal")``.

    Example:
        >>> init = jax.nn.initializers.he_normal()
    """
    return _scaled(2.0, "fan_in", "truncated_normal")(in_axis, out_axis, batch_axis, dtype)


xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


# ---------------------------------------------------------------------------- orthogonal

def orthonormal_columns(z):
    """The Q of the QR factorization of ``z`` (m x n, m >= n) whose R has a positive
    diagonal: that Q is unique, and equals LAPACK's Q times sign(diag(R)).

    Gram-Schmidt, each column projected out twice ("twice is enough": orthogonal
    to working precision); one static step per column.
    """
    m, n = z.shape
    conj_t = lambda a: jnp_ew.conjugate(shape_ops.matrix_transpose(a))  # noqa: E731
    q = creation.zeros((m, n), z.dtype)
    column = lax_shapes.broadcasted_iota(np.int32, (m, n), 1)
    for j in range(n):
        v = lax_shapes.slice(z, (0, j), (m, j + 1))
        for _ in range(2):
            v = jnp_ew.subtract(v, linalg_ops.matmul(q, linalg_ops.matmul(conj_t(q), v)))
        norm = jnp_ew.sqrt(reductions.sum(jnp_ew.real(jnp_ew.multiply(jnp_ew.conjugate(v), v))))
        v = jnp_ew.true_divide(v, util.convert(norm, v.dtype, False))
        q = lax_ew.select(lax_ew.eq(column, np.int32(j)), util.broadcast_to(v, (m, n)), q)
    return q


def _random_orthogonal(key, n, m, dtype):
    """``jax.random.orthogonal(key, n, (), dtype, m)``: from ``xjit.random`` when it
    has it, otherwise from its normal samples as JAX computes it."""
    rnd = _random()
    if hasattr(rnd, "orthogonal"):
        return rnd.orthogonal(key, n, (), dtype, m)
    z = rnd.normal(key, (max(n, m), min(n, m)), dtype)
    q = orthonormal_columns(z)
    return shape_ops.matrix_transpose(q) if n < m else q


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer returning a (semi-)orthogonal matrix over ``column_axis`` and
    the flattened other axes, times ``scale``.

    Example:
        >>> init = jax.nn.initializers.orthogonal()
    """
    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        dt = _dtype(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(d == 0 for d in shape):
            return creation.zeros(shape, dt)
        n_rows, n_cols = math.prod(shape) // shape[column_axis], shape[column_axis]
        q = _random_orthogonal(key, n_rows, n_cols, dt)
        q = shape_ops.reshape(q, tuple(np.delete(shape, column_axis)) + (shape[column_axis],))
        q = shape_ops.moveaxis(q, -1, column_axis)
        return jnp_ew.multiply(_scalar(scale, dt), q)
    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer for 3-5D convolution kernels: zeros except an orthogonal
    matrix at the spatial centre (Xiao et al.).

    Example:
        >>> init = jax.nn.initializers.delta_orthogonal()
    """
    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        dt = _dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        ortho = orthogonal(scale=scale, column_axis=column_axis, dtype=dt)(key, shape[-2:])
        spatial = shape[:-2]
        centre = [(k - 1) // 2 for k in spatial]
        block = shape_ops.reshape(ortho, (1,) * len(spatial) + tuple(shape[-2:]))
        config = [(c, k - c - 1, 0) for c, k in zip(centre, spatial)] + [(0, 0, 0)] * 2
        return lax_shapes.pad(block, np.zeros((), dt), config)
    return init

