"""Rules added to the transforms (issue 9): prod's zero-safe JVP, vmap of a
reduce with a batched init value, holomorphic differentiation and complex
rules, integer inputs of jacrev (allow_int), and the lean gradient graph of
an MLP training step (no more matmuls than the math needs, no transposes).
"""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax
from xjit.test_util import check_grads


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2)])
def test_prod_grads(axis, x64):
    x = np.random.RandomState(0).uniform(0.5, 1.5, (3, 4, 5))
    check_grads(lambda v: jnp.prod(v, axis=axis), (x,), order=2)


def test_prod_with_zeros_matches_jax():
    jax = pytest.importorskip("jax")
    x = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 4.0], [1.0, 2.0, 5.0]], np.float32)
    for axis in (None, 0, 1):
        got = xjit.jacrev(lambda v: jnp.prod(v, axis=axis))(x)
        want = jax.jacrev(lambda v: jax.numpy.prod(v, axis=axis))(x)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    got = xjit.grad(lambda v: jnp.sum(jnp.cumsum(v) * jnp.prod(v[:2])))(x[0])
    assert np.all(np.isfinite(np.asarray(got)))


def test_reduce_with_a_batched_init_value():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    init = np.array([1.0, -2.0, 30.0], np.float32)
    for op, ref in [(lax.add, np.sum), (lax.max, np.max), (lax.min, np.min),
                    (lax.mul, np.prod)]:
        got = xjit.vmap(lambda v, i: lax.reduce(v, i, op, (0,)))(x, init)
        want = [ref(np.concatenate([[i], v])) for v, i in zip(x, init)]
        np.testing.assert_allclose(got, want, rtol=1e-6)
    got = xjit.vmap(lambda i: lax.reduce(x, i, lax.add, (1,)))(init)
    np.testing.assert_allclose(got, x.sum(1)[None, :] + init[:, None])
    with pytest.raises(NotImplementedError, match="batched init"):
        xjit.vmap(lambda v, i: lax.reduce(v, i, lambda a, b: a + 2 * b, (0,)))(x, init)


Z = np.array([1 + 2j, 3 - 1j, -0.5 + 0.25j], np.complex64)


def test_holomorphic_against_jax():
    jax = pytest.importorskip("jax")
    jjnp = jax.numpy
    cases = [(lambda z: jnp.sum(z ** 3), lambda z: jjnp.sum(z ** 3)),
             (lambda z: jnp.sum(jnp.sin(z) * jnp.exp(z)), lambda z: jjnp.sum(jjnp.sin(z) * jjnp.exp(z))),
             (lambda z: jnp.sum(jnp.log(z) / z), lambda z: jjnp.sum(jjnp.log(z) / z)),
             (lambda z: jnp.sum(jnp.tanh(z) + jnp.sqrt(z)), lambda z: jjnp.sum(jjnp.tanh(z) + jjnp.sqrt(z)))]
    for ours, theirs in cases:
        np.testing.assert_allclose(xjit.grad(ours, holomorphic=True)(Z),
                                   jax.grad(theirs, holomorphic=True)(Z), rtol=1e-5)
        np.testing.assert_allclose(xjit.jacfwd(xjit.grad(ours, holomorphic=True),
                                               holomorphic=True)(Z),
                                   jax.jacfwd(jax.grad(theirs, holomorphic=True),
                                              holomorphic=True)(Z), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(xjit.jacrev(lambda z: z ** 2, holomorphic=True)(Z),
                               jax.jacrev(lambda z: z ** 2, holomorphic=True)(Z), rtol=1e-6)
    np.testing.assert_allclose(xjit.hessian(lambda z: jnp.sum(z ** 3), holomorphic=True)(Z),
                               jax.hessian(lambda z: jjnp.sum(z ** 3), holomorphic=True)(Z),
                               rtol=1e-6)


def test_complex_inputs_with_real_outputs_against_jax():
    jax = pytest.importorskip("jax")
    jjnp = jax.numpy
    pairs = [(lambda z: jnp.sum(jnp.abs(z) ** 2), lambda z: jjnp.sum(jjnp.abs(z) ** 2)),
             (lambda z: jnp.sum(jnp.abs(z)), lambda z: jjnp.sum(jjnp.abs(z))),
             (lambda z: jnp.sum(jnp.real(z * z)) + jnp.sum(z.imag),
              lambda z: jjnp.sum(jjnp.real(z * z)) + jjnp.sum(z.imag)),
             (lambda z: jnp.sum(z.astype(jnp.float32) * 2.0),
              lambda z: jjnp.sum(z.astype(jjnp.float32) * 2.0))]
    for ours, theirs in pairs:
        np.testing.assert_allclose(xjit.grad(ours)(Z), jax.grad(theirs)(Z), rtol=1e-6)
    np.testing.assert_allclose(xjit.jacrev(jnp.abs)(Z), jax.jacrev(jjnp.abs)(Z), rtol=1e-6)


def test_holomorphic_errors():
    with pytest.raises(TypeError, match="requires inputs with complex dtype"):
        xjit.grad(lambda z: z * z, holomorphic=True)(1.0)
    with pytest.raises(TypeError, match="requires outputs with complex dtype"):
        xjit.grad(lambda z: jnp.sum(jnp.abs(z)), holomorphic=True)(Z)
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs"):
        xjit.jacfwd(lambda z: z * z)(Z)
    with pytest.raises(TypeError, match="jacrev requires real-valued outputs"):
        xjit.jacrev(lambda z: z * z)(Z)
    with pytest.raises(TypeError, match="jacfwd with holomorphic=True requires outputs"):
        xjit.jacfwd(jnp.abs, holomorphic=True)(Z)


def test_integer_inputs_of_jacobians():
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs"):
        xjit.jacfwd(lambda x: x * 2.0)(np.arange(2))
    with pytest.raises(TypeError, match="set allow_int to True"):
        xjit.jacrev(lambda x: x * 2.0)(np.arange(2))
    j = xjit.jacrev(lambda x: x * 2.0, allow_int=True)(np.arange(2, dtype=np.int32))
    assert j.shape == (2, 2) and j.dtype == np.int32 and not np.any(np.asarray(j))
    jx, jn = xjit.jacrev(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(
        np.ones(2, np.float32), 3)
    np.testing.assert_allclose(jx, 3 * np.eye(2))
    assert jn.shape == (2,) and jn.dtype == np.int32
    g = xjit.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(2.0, 3)
    assert g[1].dtype == xjit._src.api_transforms.float0 and g[1].shape == ()


# --------------------------------------------------------- lean gradient graphs

def mlp_loss(params, x, y):
    h = x
    for i, (w, b) in enumerate(params):
        h = h @ w + b
        if i < len(params) - 1:
            h = jnp.tanh(h)
    logz = jnp.log(jnp.sum(jnp.exp(h), axis=-1, keepdims=True))
    return -jnp.mean(jnp.sum((h - logz) * y, axis=-1))


def train_step(params, x, y):
    g = xjit.grad(mlp_loss)(params, x, y)
    return [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(params, g)]


def test_mlp_training_step_has_only_the_matmuls_the_math_needs():
    r = np.random.RandomState(0)
    sizes = [784, 512, 512, 10]
    params = [(r.randn(a, b).astype(np.float32) * 0.01, np.zeros(b, np.float32))
              for a, b in zip(sizes[:-1], sizes[1:])]
    x = r.randn(128, 784).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[np.arange(128) % 10]
    text = xjit.make_graph(train_step)(params, x, y).module.optimized().as_text()
    # 3 forward matmuls, 3 weight gradients, 2 input gradients (none for x).
    assert text.count('"stablehlo.dot_general"') == 8
    # Weight gradients come out as x^T g in the weight's layout: no transposes.
    assert text.count('"stablehlo.transpose"') == 0
    new = xjit.jit(train_step)(params, x, y)
    want = [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb)
            in zip(params, xjit.grad(mlp_loss)(params, x, y))]
    for (a, b), (c, d) in zip(new, want):
        np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b, d, rtol=1e-5, atol=1e-6)


def test_transposed_dot_gradients_are_right(x64):
    # Layouts where the transpose rule cannot avoid a transpose still work.
    check_grads(lambda a, b: (a @ b).T, (np.ones((2, 3)), np.arange(12.0).reshape(3, 4)),
                order=1)
    check_grads(lambda a, b: lax.dot_general(a, b, (((0,), (1,)), ((2,), (0,)))),
                (np.random.RandomState(0).randn(3, 4, 2), np.random.RandomState(1).randn(2, 3, 5)),
                order=2)


def test_vmap_of_sort_family_matches_a_loop():
    rng = np.random.RandomState(1)
    x = rng.randn(4, 3, 5).astype(np.float32)
    keys = rng.randint(0, 3, (4, 5)).astype(np.int32)
    for axis in (0, 1, -1):
        got = xjit.vmap(lambda v: jnp.sort(v, axis=axis))(x)
        want = np.stack([np.sort(v, axis=axis) for v in x])
        np.testing.assert_array_equal(np.asarray(got), want)
    got = xjit.vmap(lambda v: jnp.argsort(v, stable=True))(keys)
    np.testing.assert_array_equal(np.asarray(got),
                                  np.stack([np.argsort(k, kind="stable") for k in keys]))
    k, v = xjit.vmap(lambda a, b: lax.sort_key_val(a, b))(keys, x[:, 0])
    for i in range(4):
        order = np.argsort(keys[i], kind="stable")
        np.testing.assert_array_equal(np.asarray(k)[i], keys[i][order])
        np.testing.assert_array_equal(np.asarray(v)[i], x[i, 0][order])
    # Only one operand batched: the other is broadcast along the batch.
    got = xjit.vmap(lambda a: lax.sort_key_val(a, x[0, 0])[1])(keys)
    np.testing.assert_array_equal(
        np.asarray(got), np.stack([x[0, 0][np.argsort(k, kind="stable")] for k in keys]))


def test_vmap_of_bitcast_convert_and_reduce_precision():
    x = np.random.RandomState(2).randn(3, 4).astype(np.float32)
    got = xjit.vmap(lambda v: lax.bitcast_convert_type(v, np.int32))(x)
    np.testing.assert_array_equal(np.asarray(got), x.view(np.int32))
    got = xjit.vmap(lambda v: lax.bitcast_convert_type(v, np.uint8))(x)
    np.testing.assert_array_equal(np.asarray(got), x.view(np.uint8).reshape(3, 4, 4))
    got = xjit.vmap(lambda v: lax.reduce_precision(v, exponent_bits=5, mantissa_bits=10))(x)
    np.testing.assert_array_equal(np.asarray(got), x.astype(np.float16).astype(np.float32))


def test_reduce_precision_grads_round_the_tangent():
    x = np.array([1.0, 2.5, -3.0], np.float32)
    f = lambda v: jnp.sum(lax.reduce_precision(v * v, exponent_bits=8, mantissa_bits=7))
    got = xjit.grad(f)(x)
    np.testing.assert_array_equal(np.asarray(got), 2 * x)  # exact in bfloat16
    _, t = xjit.jvp(lambda v: lax.reduce_precision(v, exponent_bits=5, mantissa_bits=2),
                    (x,), (np.array([1.1, 1.0, 0.3], np.float32),))
    want = np.array([1.0, 1.0, 0.3125], np.float32)  # tangents rounded to 2 mantissa bits
    np.testing.assert_array_equal(np.asarray(t), want)
    g = xjit.grad(lambda v: jnp.sum(lax.reduce_precision(v, exponent_bits=5, mantissa_bits=2)))(x)
    np.testing.assert_array_equal(np.asarray(g), np.ones(3, np.float32))
