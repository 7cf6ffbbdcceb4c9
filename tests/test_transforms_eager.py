"""Transformations outside jit see concrete values (issue 9).

``grad(f)(x)`` called outside jit traces ``f`` with tracers that also know
their values, so Python control flow on them (``if x > 0:``, ``int(x)``,
indexing a list) works as in JAX, and the graph is the one for those values.
Inside jit the tracer errors stay. ``vmap`` passes unmapped arguments
through unchanged, as JAX does.
"""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import errors


def branchy(x):
    return x * 2.0 if x > 0 else x ** 3


def test_grad_follows_the_branch_taken():
    assert float(xjit.grad(branchy)(1.5)) == 2.0
    assert float(xjit.grad(branchy)(-2.0)) == pytest.approx(12.0)
    assert float(xjit.value_and_grad(branchy)(-1.0)[0]) == -1.0


def test_conversions_that_work_and_those_that_do_not():
    # bool, int, operator.index and item() use the value (as JAX's JVPTracer);
    # float(), tolist() and numpy conversion raise as in JAX.
    assert float(xjit.grad(lambda x: x * int(x))(2.5)) == 2.0
    assert float(xjit.grad(lambda x, i: x * [1.0, 2.0, 3.0][i])(2.0, 1)) == 2.0
    assert float(xjit.grad(lambda x: x * [1.0, 2.0, 3.0][x.astype(int)])(2.0)) == 3.0
    assert float(xjit.grad(lambda x: x * x.item())(3.0)) == 3.0
    with pytest.raises(errors.ConcretizationTypeError):
        xjit.grad(lambda x: x * float(x))(2.0)
    with pytest.raises(errors.ConcretizationTypeError):
        xjit.grad(lambda x: x[0] * x.tolist()[1])(np.ones(2, np.float32))
    with pytest.raises(errors.TracerArrayConversionError):
        xjit.grad(lambda x: x * np.asarray(x))(2.0)


def test_inside_jit_the_tracer_error_stays():
    with pytest.raises(errors.TracerBoolConversionError):
        xjit.grad(xjit.jit(branchy))(1.0)
    with pytest.raises(errors.TracerBoolConversionError):
        xjit.jit(xjit.grad(branchy))(1.0)
    with pytest.raises(errors.TracerBoolConversionError):
        xjit.make_graph(xjit.grad(branchy))(1.0)


def test_every_transformation_sees_values():
    x = np.array([0.5, 1.0], np.float32)
    f = lambda v: v * 2.0 if v.sum() > 0 else v * 3.0  # noqa: E731
    np.testing.assert_allclose(xjit.jacfwd(f)(x), 2 * np.eye(2))
    np.testing.assert_allclose(xjit.jacrev(f)(-x), 3 * np.eye(2))
    np.testing.assert_allclose(
        xjit.hessian(lambda v: jnp.sum(v ** 3) if v.sum() > 0 else jnp.sum(v))(x),
        np.diag(6 * x))
    assert float(xjit.grad(xjit.grad(lambda v: v ** 3 if v > 0 else v))(1.0)) == 6.0
    out, t = xjit.jvp(branchy, (1.0,), (1.0,))
    assert float(t) == 2.0
    assert float(xjit.vjp(branchy, -1.0)[1](1.0)[0]) == 3.0
    assert float(xjit.linearize(branchy, 1.0)[1](1.0)) == 2.0


def test_grad_of_a_function_using_vmap_over_a_closed_over_value():
    g = xjit.grad(lambda x: jnp.sum(xjit.vmap(lambda y: y * 2 if x > 0 else y)(jnp.ones(2) * x)))
    assert float(g(1.0)) == 4.0
    assert float(g(-1.0)) == 2.0


def test_vmap_passes_unmapped_arguments_through():
    seen = []

    def f(x, n):
        seen.append(type(n))
        return x * n if n > 2 else x
    np.testing.assert_allclose(xjit.vmap(f, in_axes=(0, None))(np.ones(3, np.float32), 3), 3.0)
    assert seen == [int]
    out = xjit.vmap(lambda x, n: x * n.sum() if n.sum() > 2 else x,
                    in_axes=(0, None))(np.ones(3, np.float32), np.ones(4, np.float32))
    np.testing.assert_allclose(out, 4.0)
    with pytest.raises(errors.TracerBoolConversionError):
        xjit.vmap(lambda x: x * 2 if x > 0 else x)(np.ones(3, np.float32))
    with pytest.raises(errors.TracerBoolConversionError):
        xjit.vmap(xjit.grad(branchy))(np.ones(2, np.float32))


def test_long_chains_and_reductions():
    def f(x):
        y = x
        for _ in range(1500):   # deeper than the recursion limit
            y = y * 1.0001
        return y if jnp.sum(y) > 0 else -y
    assert float(xjit.grad(f)(1.0)) == pytest.approx(1.0001 ** 1500, rel=1e-4)
    g = xjit.grad(lambda x: jnp.sum(x ** 2) if jnp.sum(x) > 0 else jnp.sum(x))
    np.testing.assert_allclose(g(np.ones(3, np.float32)), 2 * np.ones(3))
    np.testing.assert_allclose(g(-np.ones(3, np.float32)), np.ones(3))


def test_against_jax():
    jax = pytest.importorskip("jax")

    def make(np_):
        def f(x, n):
            acc = x
            for i in range(int(n)):
                acc = np_.sin(acc) if acc[i] > 0 else acc * 2.0
            return np_.sum(acc)
        return f
    x = np.array([0.3, -0.2, 0.9], np.float32)
    for n in (1, 2, 3):
        got = xjit.grad(make(jnp))(x, n)
        want = jax.grad(make(jax.numpy))(x, n)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
