"""Functions JAX lowers to StableHLO for tests/test_stablehlo_jax.py.

Each case is ``name -> (fn, make_inputs)``; ``fn(ns, *args)`` uses ``ns.jnp``,
``ns.lax`` and ``ns.nn`` so the same function runs under JAX (recording, and
the comparison when JAX is installed). ``record_stablehlo_jax.py`` writes each
case's lowered text to data/stablehlo_jax/NAME.mlir and its inputs and JAX's
outputs to NAME.npz.
"""
from __future__ import annotations

import numpy as np


def _rng(seed=0):
    return np.random.default_rng(seed)


def _f32(*shape, seed=0):
    return _rng(seed).standard_normal(shape).astype(np.float32)


def _mlp(ns, x, w1, b1, w2, b2):
    h = ns.nn.relu(x @ w1 + b1)
    return h @ w2 + b2


def _attention(ns, q, k, v):
    s = ns.nn.softmax(q @ k.T / np.float32(np.sqrt(q.shape[-1])), axis=-1)
    return s @ v


def _layer_norm(ns, x, g, b):
    mu = ns.jnp.mean(x, axis=-1, keepdims=True)
    var = ns.jnp.var(x, axis=-1, keepdims=True)
    return (x - mu) / ns.jnp.sqrt(var + 1e-5) * g + b


def _elementwise_f32(ns, x):
    j = ns.jnp
    return (j.sin(x), j.cos(x), j.exp(x), j.log1p(j.abs(x)), j.tanh(x), ns.nn.sigmoid(x),
            j.floor(x), j.ceil(x), j.round(x), j.sign(x), j.sqrt(j.abs(x)), ns.lax.rsqrt(
                j.abs(x) + 1), j.expm1(x), j.arctan2(x, x + 1), x ** 2, j.cbrt(x),
            ns.lax.erf(x), j.isfinite(x / (x - x[0])))


def _elementwise_ints(ns, a, b):
    j = ns.jnp
    return (a + b, a - b, a * b, a // (j.abs(b) + 1), a % (j.abs(b) + 1), j.maximum(a, b),
            j.minimum(a, b), a & b, a | b, a ^ b, ~a, -a, j.abs(a), a << 2, a >> 1,
            ns.lax.population_count(a), ns.lax.clz(a))


def _elementwise_uint8(ns, a, b):
    return (a + b, a * b, a >> 2, a << 1, a // (b | 1), ns.jnp.maximum(a, b), a ^ b)


def _bools(ns, a, b):
    return (a & b, a | b, a ^ b, ~a, ns.jnp.any(a), ns.jnp.all(b, axis=0))


def _low_precision(ns, x):
    j = ns.jnp
    h = x.astype(j.float16)
    bf = x.astype(j.bfloat16)
    return (h * h + h, j.exp(bf) - bf, (bf * 3).astype(j.float32), j.sum(h, axis=0))


def _float64(ns, x):
    j = ns.jnp
    return (j.exp(x) * 1e-3 + j.sin(x), j.sum(x * x), x.astype(j.float32))


def _complex(ns, x, y):
    j = ns.jnp
    z = ns.lax.complex(x, y)
    return (z * z, j.abs(z), j.real(z * 2j), j.imag(z), j.exp(z), z.sum())


def _broadcasting(ns, x, y):
    return (x[:, None] + y[None, :], x[:, None] * 2.0, ns.jnp.broadcast_to(y, (3, 4)))


def _slicing(ns, x):
    return (x[1:3, ::2], x[::-1], x[:, 1], x[-1], x[::2, 1::2], ns.lax.slice(x, (0, 1), (3, 5),
                                                                              (2, 2)))


def _concat_stack(ns, x, y):
    j = ns.jnp
    return (j.concatenate([x, y], axis=0), j.concatenate([x, y, x], axis=1), j.stack([x, y]),
            j.hstack([x, y]))


def _shapes(ns, x):
    j = ns.jnp
    return (x.T, x.reshape(2, 3, 2), j.transpose(x.reshape(2, 3, 2), (2, 0, 1)),
            j.expand_dims(x, 0), j.flip(x, 1), x.ravel())


def _pad(ns, x):
    j = ns.jnp
    return (j.pad(x, ((1, 2), (0, 3))), j.pad(x, 1, constant_values=7.0),
            ns.lax.pad(x, np.float32(0), ((1, 1, 1), (0, 0, 2))))


def _select_clip(ns, x, y):
    j = ns.jnp
    return (j.where(x > y, x, y), j.clip(x, -0.5, 0.5), j.where(x < 0, 0.0, x),
            ns.lax.clamp(np.float32(-1), x, np.float32(1)))


def _iota_onehot(ns, i):
    j = ns.jnp
    return (j.arange(6), ns.nn.one_hot(i, 5), j.arange(12, dtype=j.float32).reshape(3, 4),
            j.eye(3))


def _reductions(ns, x):
    j = ns.jnp
    return (j.sum(x), j.sum(x, axis=0), j.mean(x, axis=1), j.max(x), j.min(x, axis=0),
            j.prod(x, axis=1), j.var(x), j.std(x, axis=0), ns.nn.logsumexp(x, axis=1))


def _argminmax(ns, x):
    j = ns.jnp
    return (j.argmax(x, axis=1), j.argmin(x, axis=0), j.argmax(x))


def _softmax(ns, x):
    return ns.nn.softmax(x, axis=-1), ns.nn.log_softmax(x, axis=0)


def _sort(ns, x):
    j = ns.jnp
    return (j.sort(x, axis=1), j.sort(x, axis=0), j.argsort(x, axis=1), j.sort(x.ravel()))


def _sort_ints(ns, a):
    return ns.jnp.sort(a), ns.lax.sort((a, -a), num_keys=1)


def _scan_cumsum(ns, x):
    # associative_scan lowers to slices, pads, concatenations and adds.
    lax = ns.lax
    return (lax.associative_scan(ns.jnp.add, x, axis=0),
            lax.associative_scan(ns.jnp.maximum, x, axis=1),
            lax.associative_scan(ns.jnp.multiply, x * 0.5, axis=1))


def _cumsum(ns, x):
    return ns.jnp.cumsum(x, axis=1)


def _batched_matmul(ns, a, b):
    j = ns.jnp
    return (j.einsum("bij,bjk->bik", a, b), j.einsum("bij,bij->b", a, a),
            j.tensordot(a, b, axes=([1, 2], [2, 1])))


def _convert(ns, x):
    j = ns.jnp
    return (x.astype(j.int32), x.astype(j.uint8), (x > 0).astype(j.float32), x.astype(j.int8),
            ns.lax.bitcast_convert_type(x, j.int32), x.astype(j.float16).astype(j.float32))


def _norms(ns, x):
    j = ns.jnp
    return (j.linalg.norm(x), j.linalg.norm(x, axis=1), j.dot(x[0], x[1]),
            j.outer(x[0], x[1]), j.vdot(x, x))


def _gelu_silu(ns, x):
    nn = ns.nn
    return nn.gelu(x), nn.silu(x), nn.softplus(x), nn.elu(x), nn.leaky_relu(x), nn.relu6(x * 4)


def _reduce_precision(ns, x):
    return ns.lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10)


def _nested_calls(ns, x):
    inner = ns.jit(lambda y: ns.jnp.sin(y) * 2)
    return inner(x) + inner(x * 2)


def _power_remainder(ns, x, y):
    j = ns.jnp
    return j.power(j.abs(x) + 0.5, y), j.remainder(x, 0.7), j.fmod(x, 0.7), j.square(y)


CASES = {
    "mlp": (_mlp, lambda: (_f32(4, 8), _f32(8, 16, seed=1), _f32(16, seed=2),
                           _f32(16, 3, seed=3), _f32(3, seed=4))),
    "attention": (_attention, lambda: (_f32(5, 8), _f32(5, 8, seed=1), _f32(5, 4, seed=2))),
    "layer_norm": (_layer_norm, lambda: (_f32(3, 6), _f32(6, seed=1), _f32(6, seed=2))),
    "elementwise_f32": (_elementwise_f32, lambda: (_f32(7),)),
    "elementwise_i32": (_elementwise_ints, lambda: (
        _rng().integers(-50, 50, (6,)).astype(np.int32),
        _rng(1).integers(-50, 50, (6,)).astype(np.int32))),
    "elementwise_i64": (_elementwise_ints, lambda: (
        _rng().integers(-5000, 5000, (6,)).astype(np.int64),
        _rng(1).integers(-5000, 5000, (6,)).astype(np.int64))),
    "elementwise_i16": (_elementwise_ints, lambda: (
        _rng().integers(-500, 500, (6,)).astype(np.int16),
        _rng(1).integers(-500, 500, (6,)).astype(np.int16))),
    "elementwise_u8": (_elementwise_uint8, lambda: (
        _rng().integers(0, 255, (8,)).astype(np.uint8),
        _rng(1).integers(0, 255, (8,)).astype(np.uint8))),
    "bools": (_bools, lambda: (_rng().random((3, 4)) > 0.5, _rng(1).random((3, 4)) > 0.5)),
    "low_precision": (_low_precision, lambda: (_f32(3, 4),)),
    "float64": (_float64, lambda: (_rng().standard_normal((5,)),)),
    "complex64": (_complex, lambda: (_f32(4), _f32(4, seed=1))),
    "broadcasting": (_broadcasting, lambda: (_f32(3), _f32(4, seed=1))),
    "slicing": (_slicing, lambda: (_f32(4, 6),)),
    "concat_stack": (_concat_stack, lambda: (_f32(2, 3), _f32(2, 3, seed=1))),
    "shapes": (_shapes, lambda: (_f32(3, 4),)),
    "pad": (_pad, lambda: (_f32(2, 3),)),
    "select_clip": (_select_clip, lambda: (_f32(3, 4), _f32(3, 4, seed=1))),
    "iota_onehot": (_iota_onehot, lambda: (np.array([0, 3, 4, 1], np.int32),)),
    "reductions": (_reductions, lambda: (_f32(3, 5),)),
    "argminmax": (_argminmax, lambda: (_f32(4, 5),)),
    "softmax": (_softmax, lambda: (_f32(3, 5),)),
    "sort": (_sort, lambda: (_f32(3, 5),)),
    "sort_ints": (_sort_ints, lambda: (_rng().integers(-9, 9, (7,)).astype(np.int32),)),
    "scan_cumsum": (_scan_cumsum, lambda: (_f32(5, 6),)),
    "cumsum": (_cumsum, lambda: (_f32(3, 5),)),
    "batched_matmul": (_batched_matmul, lambda: (_f32(2, 3, 4), _f32(2, 4, 3, seed=1))),
    "convert": (_convert, lambda: (_f32(6) * 10,)),
    "norms": (_norms, lambda: (_f32(2, 5),)),
    "activations": (_gelu_silu, lambda: (_f32(9),)),
    "reduce_precision": (_reduce_precision, lambda: (_f32(6) * 1000,)),
    "nested_calls": (_nested_calls, lambda: (_f32(4),)),
    "power_remainder": (_power_remainder, lambda: (_f32(5), _f32(5, seed=1))),
}
