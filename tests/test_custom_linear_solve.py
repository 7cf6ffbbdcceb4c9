"""lax.custom_linear_solve and custom_derivatives.linear_call: values and
derivatives (jvp, grad, jit, vmap, higher order) against numpy's linear
algebra and JAX."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax
from xjit.custom_derivatives import linear_call
from jax_checks import need_jax
from numpy_checks import assert_close

rng = np.random.default_rng(3)
_M = rng.normal(size=(3, 3)).astype(np.float32)
SPD = (_M @ _M.T + 3 * np.eye(3)).astype(np.float32)          # symmetric positive definite
GEN = (_M + 4 * np.eye(3)).astype(np.float32)                 # general, well conditioned
B = rng.normal(size=3).astype(np.float32)
W = np.arange(1.0, 4.0, dtype=np.float32)


def make_cg(L, np_):
    """Conjugate gradients for 3x3 systems: a while_loop, never differentiated."""
    def cg(mv, b):
        def body(c):
            x, r, p, k = c
            ap = mv(p)
            a = (r @ r) / (p @ ap)
            x2, r2 = x + a * p, r - a * ap
            return x2, r2, r2 + (r2 @ r2) / (r @ r) * p, k + 1
        return L.while_loop(lambda c: c[3] < 3, body, (np_.zeros_like(b), b, b, 0))[0]
    return cg


def make_richardson(L, np_, inv_diag):
    """Preconditioned Richardson iteration x <- x + D^-1 (b - A x), 60 steps."""
    def solve(mv, b):
        return L.fori_loop(0, 60, lambda i, x: x + inv_diag * (b - mv(x)), np_.zeros_like(b))
    return solve


def objective(L, np_, symmetric):
    cg = make_cg(L, np_)

    def f(a, b):
        x = L.custom_linear_solve(lambda v: a @ v, b, cg, symmetric=symmetric)
        return np_.sum(x * W)
    return f


def test_symmetric_solve_value_and_gradients():
    f = objective(lax, jnp, True)
    a64 = SPD.astype(np.float64)
    x = np.linalg.solve(a64, B)
    lam = np.linalg.solve(a64.T, W)
    assert_close(f(SPD, B), np.float32(W @ x), rtol=1e-4)
    ga, gb = xjit.grad(f, argnums=(0, 1))(SPD, B)
    assert_close(gb, lam.astype(np.float32), rtol=1e-4, atol=1e-6)
    assert_close(ga, (-np.outer(lam, x)).astype(np.float32), rtol=1e-4, atol=1e-6)
    assert_close(xjit.jit(xjit.grad(f, argnums=1))(SPD, B), lam.astype(np.float32), rtol=1e-4)
    _, t = xjit.jvp(f, (SPD, B), (np.ones_like(SPD), np.ones_like(B)))
    dx = np.linalg.solve(a64, np.ones(3) - np.ones((3, 3)) @ x)
    assert_close(t, np.float32(W @ dx), rtol=1e-4)
    bs = np.stack([B, 2 * B, -B])
    assert_close(xjit.vmap(xjit.grad(f, argnums=1), in_axes=(None, 0))(SPD, bs),
                 np.stack([lam] * 3).astype(np.float32), rtol=1e-4, atol=1e-6)


def test_transpose_solve_for_a_general_matrix_and_aux():
    inv_d = (1.0 / np.diagonal(GEN)).astype(np.float32)
    solve = make_richardson(lax, jnp, inv_d)

    def f(a, b):
        x, aux = lax.custom_linear_solve(
            lambda v: a @ v, b, lambda mv, r: (solve(mv, r), jnp.sum(r)),
            transpose_solve=lambda vm, r: (solve(vm, r), jnp.sum(r)), has_aux=True)
        return jnp.sum(x * W) + 0.0 * aux, aux
    a64 = GEN.astype(np.float64)
    x = np.linalg.solve(a64, B)
    lam = np.linalg.solve(a64.T, W)
    (val, aux), (ga, gb) = xjit.value_and_grad(f, argnums=(0, 1), has_aux=True)(GEN, B)
    assert_close(val, np.float32(W @ x), rtol=1e-4)
    assert_close(aux, np.float32(B.sum()), rtol=1e-5)
    assert_close(gb, lam.astype(np.float32), rtol=1e-4, atol=1e-6)
    assert_close(ga, (-np.outer(lam, x)).astype(np.float32), rtol=1e-4, atol=1e-6)


def test_like_jax():
    jax = need_jax()
    ours, theirs = objective(lax, jnp, True), objective(jax.lax, jax.numpy, True)
    for tr in (lambda m, f: m.grad(f, argnums=(0, 1)), lambda m, f: m.jit(f),
               lambda m, f: m.hessian(f, argnums=1)):
        got, want = tr(xjit, ours)(SPD, B), tr(jax, theirs)(SPD, B)
        for g, w in zip(xjit.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-4, atol=1e-6)


def test_bad_inputs():
    cg = make_cg(lax, jnp)
    with pytest.raises(TypeError, match="matvec\\(\\) output pytree structure"):
        lax.custom_linear_solve(lambda v: (v, v), B, cg, symmetric=True)
    with pytest.raises(TypeError, match="solve\\(\\) output pytree structure"):
        lax.custom_linear_solve(lambda v: v, B, lambda mv, b: (b, b))
    with pytest.raises(TypeError, match="has_aux=True requires"):
        lax.custom_linear_solve(lambda v: v, B, lambda mv, b: b, has_aux=True)


# --- linear_call ---------------------------------------------------------------

def scaled(s, x):
    """s * x, with a transpose that is deliberately 10 * ct (to see it used)."""
    return linear_call(lambda s, x: s * x, lambda s, ct: 10.0 * ct, s, x)


def test_linear_call_runs_forward_and_transposes_with_the_rule():
    assert_close(scaled(2.0, np.float32(3.0)), np.float32(6.0))
    assert_close(xjit.jit(scaled)(2.0, np.float32(3.0)), np.float32(6.0))
    assert_close(xjit.grad(lambda x: scaled(2.0, x))(np.float32(1.0)), np.float32(10.0))
    _, t = xjit.jvp(lambda x: scaled(2.0, x), (np.float32(1.0),), (np.float32(1.0),))
    assert_close(t, np.float32(2.0))   # forward mode runs the function itself
    xs = np.arange(3, dtype=np.float32)
    assert_close(xjit.vmap(xjit.grad(lambda x: scaled(2.0, x)))(xs), np.full(3, 10.0, np.float32))
    # g(x) = T(x) with T the rule (10 *); reverse mode transposes T back to
    # the function (2 *), forward mode runs T (as JAX's linear_call does).
    def g(x):
        _, pb = xjit.vjp(lambda y: scaled(2.0, y) * x, np.float32(1.0))
        return pb(np.float32(1.0))[0]
    assert_close(g(np.float32(3.0)), np.float32(30.0))
    assert_close(xjit.grad(g)(np.float32(3.0)), np.float32(2.0))
    assert_close(xjit.jvp(g, (np.float32(3.0),), (np.float32(1.0),))[1], np.float32(10.0))


def test_linear_call_errors():
    with pytest.raises(TypeError, match="floating point"):
        xjit.jit(lambda x: linear_call(lambda s, x: x, lambda s, c: c, (), x))(np.int32(1))
    with pytest.raises(TypeError, match="transpose returned"):
        xjit.jit(lambda x: linear_call(lambda s, x: x, lambda s, c: (c, c), (), x))(
            np.float32(1))
    with pytest.raises(TypeError, match="residual arguments cannot be differentiated"):
        xjit.jvp(lambda s: scaled(s, np.float32(1.0)), (np.float32(2.0),), (np.float32(1.0),))
