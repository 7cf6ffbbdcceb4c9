"""lax.composite: a named op whose meaning is its decomposition, as JAX's."""
import functools

import jax
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax


def _tangent(x):
    return lax.sin(x) / lax.cos(x)


def test_value_eager_and_jit(default_platform):
    x = np.array([0.0, 0.5, 1.0], np.float32)
    t = lax.composite(_tangent, name="my.tangent")
    want = np.tan(x)
    np.testing.assert_allclose(np.asarray(t(x)), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(xjit.jit(t)(x)), want, rtol=1e-6)


def test_printed_as_stablehlo_composite_with_attributes_and_version():
    @functools.partial(lax.composite, name="my.softmax", version=2)
    def softmax(x, *, axis, unused=None):
        return xjit.nn.softmax(x, axis)

    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    f = xjit.jit(lambda x: softmax(x, axis=1))
    text = f.lower(x).as_text()
    assert ('"stablehlo.composite"(%arg0) {name = "my.softmax", composite_attributes = '
            '{axis = 1 : i64}, version = 2 : i32, decomposition = @softmax}') in text, text
    np.testing.assert_allclose(np.asarray(f(x)), np.asarray(jax.nn.softmax(x, axis=1)),
                               rtol=1e-6)
    # The text runs as StableHLO too.
    from xjit import stablehlo
    (got,) = stablehlo.run(stablehlo.parse(text), x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(jax.nn.softmax(x, axis=1)), rtol=1e-6)


def test_pytrees_captures_grad_and_vmap_agree_with_jax():
    def decomposition(p, x):
        return {"y": p["w"] * jnp.sin(x) + p["b"], "z": x * 2.0}

    def jdecomposition(p, x):
        return {"y": p["w"] * jax.numpy.sin(x) + p["b"], "z": x * 2.0}

    c = lax.composite(decomposition, name="my.affine_sin")
    jc = jax.lax.composite(jdecomposition, name="my.affine_sin")
    p = {"w": np.float32(1.5), "b": np.float32(0.25)}
    x = np.linspace(-1, 1, 5).astype(np.float32)
    got, want = c(p, x), jc(p, x)
    for k in ("y", "z"):
        np.testing.assert_allclose(np.asarray(got[k]), np.asarray(want[k]), rtol=1e-6)
    # JAX 0.10.2 has no JVP rule for composite; xjit differentiates the
    # decomposition, so compare with JAX's gradient of the decomposition.
    loss = lambda p, x, comp: comp(p, x)["y"].sum()
    g = xjit.grad(lambda p, x: loss(p, x, c), argnums=(0, 1))(p, x)
    jg = jax.grad(lambda p, x: loss(p, x, jdecomposition), argnums=(0, 1))(p, x)
    # d/dw is a sum of sines over a symmetric range, 0 up to the last bits
    # of sin (libm's, JAX's and xjit's float32 sine differ by up to 1 ulp).
    for a, b in zip(xjit.tree_util.tree_leaves(g), jax.tree_util.tree_leaves(jg)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)
    xs = np.stack([x, -x])
    v = xjit.vmap(lambda x: c(p, x)["y"])(xs)
    # JAX 0.10.2 cannot batch composite either: compare with its vmap of the decomposition.
    np.testing.assert_allclose(
        np.asarray(v), np.asarray(jax.vmap(lambda x: jdecomposition(p, x)["y"])(xs)), rtol=1e-6)
    # A value the decomposition closes over becomes an extra operand.
    scale = np.float32(3.0)

    def outer(s, x):
        return lax.composite(lambda x: x * s, name="my.scale")(x)
    np.testing.assert_allclose(np.asarray(xjit.jit(outer)(scale, x)), x * scale, rtol=1e-6)


def test_bad_inputs():
    with pytest.raises(ValueError, match="namespaced"):
        lax.composite(_tangent, name="tangent")
    with pytest.raises(ValueError, match="version"):
        lax.composite(_tangent, name="my.t", version=-1)
    c = lax.composite(lambda x, *, k: x * k, name="my.mul")

    def traced_attribute(x):
        return c(x, k=x)
    with pytest.raises(xjit.errors.UnexpectedTracerError, match="attribute 'k' is a traced value"):
        xjit.jit(traced_attribute)(np.float32(2.0))
    with pytest.raises(TypeError, match="must be a bool, int, float"):
        c(np.float32(1.0), k=object())
