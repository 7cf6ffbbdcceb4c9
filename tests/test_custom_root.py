"""lax.custom_root (implicit differentiation of a root) and xjit.closure_convert,
against analytic derivatives and JAX."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax
from jax_checks import jax, need_jax
from numpy_checks import assert_close


def _newton(f, x0):
    """Newton's method on a scalar, as a while_loop (never differentiated)."""
    df = lambda x: xjit.jvp(f, (x,), (jnp.ones_like(x),))[1]  # noqa: E731
    return lax.while_loop(lambda x: jnp.abs(f(x)) > 1e-6, lambda x: x - f(x) / df(x), x0)


def _scalar_solve(g, y):
    return y / g(1.0)


def sqrt_root(a):
    return lax.custom_root(lambda x: x * x - a, 1.0, _newton, _scalar_solve)


def test_value_and_derivatives_of_a_scalar_root():
    assert_close(sqrt_root(4.0), np.float32(2.0), rtol=1e-5)
    assert_close(xjit.grad(sqrt_root)(4.0), np.float32(0.25), rtol=1e-5)
    assert_close(xjit.jit(xjit.grad(sqrt_root))(9.0), np.float32(1 / 6), rtol=1e-5)
    _, t = xjit.jvp(sqrt_root, (4.0,), (2.0,))
    assert_close(t, np.float32(0.5), rtol=1e-5)
    assert_close(xjit.grad(xjit.grad(sqrt_root))(4.0), np.float32(-1 / 32), rtol=1e-4)
    a = np.array([1.0, 4.0, 16.0], np.float32)
    assert_close(xjit.vmap(xjit.grad(sqrt_root))(a), 0.5 / np.sqrt(a), rtol=1e-5)


def test_vector_root_with_aux_and_two_parameters():
    # Root of A x - b (x = A^-1 b), solved by a fixed number of Jacobi sweeps.
    def solve_linear(f, x0):
        def body(_, x):
            return x - 0.25 * f(x)
        x = lax.fori_loop(0, 200, body, x0)
        return x, jnp.sum(jnp.abs(f(x)))

    def tangent_solve(g, y):
        return _solve2(xjit.jacfwd(g)(y), y)

    def root(A, b):
        x, resid = lax.custom_root(lambda x: A @ x - b, jnp.zeros(2), solve_linear,
                                   tangent_solve, has_aux=True)
        return jnp.sum(x * jnp.array([1.0, 2.0])), resid

    A = np.array([[3.0, 1.0], [0.5, 2.0]], np.float32)
    b = np.array([1.0, -1.0], np.float32)
    (val, resid), (gA, gb) = xjit.value_and_grad(root, argnums=(0, 1), has_aux=True)(A, b)
    Ainv = np.linalg.inv(A.astype(np.float64))
    x = Ainv @ b
    w = np.array([1.0, 2.0])
    assert_close(val, np.float32(w @ x), rtol=1e-4)
    assert float(resid) < 1e-4
    lam = Ainv.T @ w      # d(w.x)/db = A^-T w; d/dA = -lam x^T
    assert_close(gb, lam.astype(np.float32), rtol=1e-4, atol=1e-5)
    assert_close(gA, (-np.outer(lam, x)).astype(np.float32), rtol=1e-4, atol=1e-5)


def _solve2(m, y):
    """A 2x2 solve by Cramer's rule (linear in y, so it transposes)."""
    det = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
    return jnp.stack([(m[1, 1] * y[0] - m[0, 1] * y[1]) / det,
                      (m[0, 0] * y[1] - m[1, 0] * y[0]) / det])


def test_like_jax():
    jx = need_jax()

    def make(L, np_):
        def f(a, c):
            fun = lambda x: np_.tanh(x) * c - a  # noqa: E731
            solve = lambda f, x0: L.fori_loop(0, 60, lambda i, x: x - f(x) / (c * (1 - np_.tanh(x) ** 2)), x0)  # noqa: E731,E501
            return L.custom_root(fun, 0.0, solve, lambda g, y: y / g(1.0)) ** 2
        return f
    ours, theirs = make(lax, jnp), make(jx.lax, jx.numpy)
    args = (0.3, 1.5)
    for transform in (lambda m, f: f, lambda m, f: m.grad(f, argnums=(0, 1)),
                      lambda m, f: m.jit(m.grad(f, argnums=1))):
        got = transform(xjit, ours)(*args)
        want = transform(jx, theirs)(*args)
        for g, w in zip(xjit.tree_util.tree_leaves(got), jx.tree_util.tree_leaves(want)):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5)


def test_bad_inputs():
    with pytest.raises(TypeError, match="f\\(\\) output pytree structure"):
        lax.custom_root(lambda x: (x, x), 1.0, _newton, _scalar_solve)
    with pytest.raises(TypeError, match="solve\\(\\) output pytree structure"):
        lax.custom_root(lambda x: x - 1.0, 1.0, lambda f, x: (x, x), _scalar_solve)
    with pytest.raises(TypeError, match="has_aux=True requires"):
        lax.custom_root(lambda x: x - 1.0, 1.0, lambda f, x: x, _scalar_solve, has_aux=True)


def test_closure_convert():
    def outer(a):
        f = lambda x: jnp.sin(x) * a  # noqa: E731
        conv, consts = xjit.closure_convert(f, 1.0)
        assert len(consts) == 1
        return conv(2.0, *consts) + conv(0.5, a * 2)
    assert_close(xjit.jit(outer)(3.0), np.float32(np.sin(2.0) * 3 + np.sin(0.5) * 6), rtol=1e-6)
    assert_close(xjit.grad(outer)(3.0), np.float32(np.sin(2.0) + 2 * np.sin(0.5)), rtol=1e-6)
    conv, consts = xjit.closure_convert(lambda x: x + 1.0, np.zeros(3, np.float32))
    assert consts == []
    with pytest.raises(TypeError, match="converted for float32\\[3\\]"):
        conv(np.zeros(2, np.float32))
    if jax is not None:
        _, jconsts = jax.closure_convert(lambda x: x + 1.0, np.zeros(3, np.float32))
        assert len(jconsts) == 0
