"""custom_jvp, custom_vjp and checkpoint (issue 9), against JAX when installed.

The rules travel in the graph as traced sub-computations of a marked call
(csrc/xjit/transforms/custom_rules.h); these tests check that every
transformation uses them: grad, jvp, vjp, jit, vmap, nested.
"""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit.custom_derivatives import SymbolicZero
from xjit.test_util import check_grads


def make_log1pexp(lib, custom_jvp):
    @custom_jvp
    def log1pexp(x):
        return lib.log(1.0 + lib.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        x, = primals
        t, = tangents
        return log1pexp(x), t * (1.0 - 1.0 / (1.0 + lib.exp(x)))
    return log1pexp


def test_custom_jvp_is_used_and_stable():
    f = make_log1pexp(jnp, xjit.custom_jvp)
    # Differentiating the formula gives nan at 100; the rule gives 1.
    assert float(xjit.grad(f)(100.0)) == 1.0
    assert float(xjit.jit(xjit.grad(f))(100.0)) == 1.0
    np.testing.assert_allclose(xjit.vmap(xjit.grad(f))(np.array([0.0, 100.0], np.float32)),
                               [0.5, 1.0])
    out, t = xjit.jvp(f, (0.0,), (2.0,))
    assert float(out) == pytest.approx(np.log(2.0)) and float(t) == 1.0
    assert float(f(0.0)) == pytest.approx(np.log(2.0))
    assert float(xjit.jit(f)(0.0)) == pytest.approx(np.log(2.0))


def test_custom_jvp_second_order_and_check_grads(x64):
    f = make_log1pexp(jnp, xjit.custom_jvp)
    x = np.array([-1.0, 0.3, 2.0])
    check_grads(f, (x,), order=2)
    h = xjit.grad(xjit.grad(f))(0.0)
    assert float(h) == pytest.approx(0.25)


def test_defjvps_nondiff_argnums_and_pytrees():
    @xjit.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y
    f.defjvps(lambda tx, ans, x, y: 10.0 * tx * y, lambda ty, ans, x, y: jnp.sin(x) * ty)
    gx, gy = xjit.grad(f, argnums=(0, 1))(1.0, 2.0)
    assert float(gx) == 20.0 and float(gy) == pytest.approx(np.sin(1.0))

    def app(fn, x):
        return fn(x)
    g = xjit.custom_jvp(app, nondiff_argnums=(0,))
    g.defjvp(lambda fn, p, t: (app(fn, p[0]), 7.0 * t[0]))
    assert float(xjit.grad(lambda x: g(jnp.sin, x))(1.0)) == 7.0

    @xjit.custom_jvp
    def h(d):
        return {"s": d["a"] * d["b"], "n": jnp.argmax(d["a"])}

    @h.defjvp
    def h_jvp(primals, tangents):
        d, = primals
        t, = tangents
        return h(d), {"s": 2.0 * t["a"] + 3.0 * t["b"], "n": None}
    d = {"a": np.ones(2, np.float32), "b": np.ones(2, np.float32)}
    g = xjit.grad(lambda d: jnp.sum(h(d)["s"]))(d)
    np.testing.assert_allclose(g["a"], 2.0)
    np.testing.assert_allclose(g["b"], 3.0)


def test_custom_jvp_errors():
    f = xjit.custom_jvp(lambda x: x)
    with pytest.raises(AttributeError, match="No JVP defined"):
        f(1.0)
    f.defjvp(lambda p, t: p[0])
    with pytest.raises(TypeError, match="must produce a pair"):
        xjit.grad(f)(1.0)

    def closes(c):
        g = xjit.custom_jvp(lambda x: x * c)
        g.defjvp(lambda p, t: (g(p[0]), t[0] * c))
        return g(2.0)
    with pytest.raises(TypeError, match="closed-over value"):
        xjit.grad(closes)(1.0)
    # Closing over a value that is not differentiated is fine.
    out = xjit.jit(lambda c: xjit.grad(lambda x: closes_const(c, x))(2.0))(3.0)
    assert float(out) == 3.0


def closes_const(c, x):
    g = xjit.custom_jvp(lambda y: y * c)
    g.defjvp(lambda p, t: (g(p[0]), t[0] * c))
    return g(x)


def make_clip_gradient(lib, custom_vjp):
    @custom_vjp
    def clip_gradient(lo, hi, x):
        return x

    def fwd(lo, hi, x):
        return x, (lo, hi)

    def bwd(res, g):
        lo, hi = res
        return (None, None, lib.clip(g, lo, hi))
    clip_gradient.defvjp(fwd, bwd)
    return clip_gradient


def test_custom_vjp_clip_gradient():
    f = make_clip_gradient(jnp, xjit.custom_vjp)
    g = xjit.grad(lambda x: jnp.sum(f(-0.5, 0.5, x) * 3.0))(np.ones(3, np.float32))
    np.testing.assert_allclose(g, 0.5)
    g = xjit.jit(xjit.grad(lambda x: f(-0.5, 0.5, x) * -3.0))(1.0)
    assert float(g) == -0.5
    per = xjit.vmap(xjit.grad(lambda x, s: f(-1.0, 1.0, x) * s), in_axes=(None, 0))(
        1.0, np.array([0.5, 2.0, -4.0], np.float32))
    np.testing.assert_allclose(per, [0.5, 1.0, -1.0])
    assert float(f(-1.0, 1.0, 5.0)) == 5.0


def test_custom_vjp_nondiff_pytrees_and_errors():
    @xjit.custom_vjp
    def f(x, y):
        return {"p": x["a"] * y, "q": y}

    def fwd(x, y):
        return f(x, y), (x["a"], y)

    def bwd(res, ct):
        a, y = res
        return ({"a": ct["p"] * y * 2.0}, jnp.sum(ct["p"] * a) + ct["q"])
    f.defvjp(fwd, bwd)
    g = xjit.grad(lambda x, y: jnp.sum(f(x, y)["p"]) + f(x, y)["q"], argnums=(0, 1))(
        {"a": np.ones(2, np.float32)}, 3.0)
    np.testing.assert_allclose(g[0]["a"], 6.0)
    assert float(g[1]) == 3.0

    def scale(k, x):
        return x * k
    s = xjit.custom_vjp(scale, nondiff_argnums=(0,))
    s.defvjp(lambda k, x: (scale(k, x), None), lambda k, res, ct: (ct * k * 10.0,))
    assert float(xjit.grad(lambda x: s(2.0, x))(1.0)) == 20.0
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        xjit.jvp(s.__call__, (2.0, 1.0), (0.0, 1.0))
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        xjit.jacfwd(lambda x: s(2.0, x))(1.0)
    bad = xjit.custom_vjp(lambda x: x)
    bad.defvjp(lambda x: (x, None), lambda r, g: (g, g))
    with pytest.raises(TypeError, match="same container"):
        xjit.grad(bad)(1.0)


def test_custom_vjp_symbolic_zeros_api():
    seen = []

    @xjit.custom_vjp
    def f(x, y):
        return x * y

    def fwd(x, y):
        seen.append((type(x).__name__, x.perturbed))
        return f(x.value, y.value), (x.value, y.value)

    def bwd(res, g):
        x, y = res
        return (SymbolicZero(xjit._src.core.ShapedArray((), np.float32)), g * x)
    f.defvjp(fwd, bwd, symbolic_zeros=True)
    gx, gy = xjit.grad(f, argnums=(0, 1))(2.0, 3.0)
    assert float(gx) == 0.0 and float(gy) == 2.0
    assert seen[0] == ("CustomVJPPrimal", True)


def test_nested_custom_functions_under_jit_and_vmap():
    inner = make_log1pexp(jnp, xjit.custom_jvp)
    clip = make_clip_gradient(jnp, xjit.custom_vjp)

    @xjit.jit
    def loss(x):
        return jnp.sum(inner(clip(-0.1, 0.1, x) * 100.0))
    g = xjit.vmap(xjit.grad(loss))(np.full((2, 3), 5.0, np.float32))
    np.testing.assert_allclose(g, 0.1 * 1.0)


def test_against_jax():
    jax = pytest.importorskip("jax")
    x = np.linspace(-3, 3, 5).astype(np.float32)
    ours = make_log1pexp(jnp, xjit.custom_jvp)
    theirs = make_log1pexp(jax.numpy, jax.custom_jvp)
    for t_ours, t_theirs in [(xjit.grad, jax.grad), (lambda f: xjit.grad(xjit.grad(f)),
                                                     lambda f: jax.grad(jax.grad(f)))]:
        got = xjit.vmap(t_ours(ours))(x)
        want = jax.vmap(t_theirs(theirs))(x)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
    c_ours = make_clip_gradient(jnp, xjit.custom_vjp)
    c_theirs = make_clip_gradient(jax.numpy, jax.custom_vjp)
    got = xjit.jacrev(lambda v: c_ours(-0.3, 0.3, v) ** 2)(x)
    want = jax.jacrev(lambda v: c_theirs(-0.3, 0.3, v) ** 2)(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


# ---------------------------------------------------------------- checkpoint

def mlp_block(w, x):
    return jnp.sin(jnp.tanh(x @ w) @ w)


@pytest.mark.parametrize("policy", [None, xjit.checkpoint_policies.nothing_saveable,
                                    xjit.checkpoint_policies.everything_saveable,
                                    xjit.checkpoint_policies.dots_saveable,
                                    xjit.checkpoint_policies.checkpoint_dots,
                                    xjit.checkpoint_policies.dots_with_no_batch_dims_saveable])
def test_checkpoint_gradients(policy):
    w = np.random.RandomState(0).randn(3, 3).astype(np.float32) * 0.5
    x = np.random.RandomState(1).randn(4, 3).astype(np.float32)
    f = xjit.checkpoint(mlp_block, policy=policy)
    loss = lambda w, x: jnp.sum(f(w, x) ** 2)  # noqa: E731
    plain = lambda w, x: jnp.sum(mlp_block(w, x) ** 2)  # noqa: E731
    for a, b in zip(xjit.grad(loss, argnums=(0, 1))(w, x), xjit.grad(plain, argnums=(0, 1))(w, x)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xjit.jit(xjit.grad(loss))(w, x), xjit.grad(plain)(w, x),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xjit.vmap(xjit.grad(loss), in_axes=(None, 0))(w, x[:, None]),
                               xjit.vmap(xjit.grad(plain), in_axes=(None, 0))(w, x[:, None]),
                               rtol=1e-5, atol=1e-6)


def _count_in_backward(f, *args, op):
    """How often `op` appears in the graph of grad(f) (forward + backward computations)."""
    return str(xjit.make_graph(xjit.grad(f))(*args)).count(op)


def test_checkpoint_recomputes_in_the_backward_pass():
    x = np.ones(3, np.float32)

    def body(v):
        return jnp.sin(jnp.sin(v))
    plain = _count_in_backward(lambda v: jnp.sum(body(v)), x, op="stablehlo.cosine")
    saved = _count_in_backward(lambda v: jnp.sum(xjit.checkpoint(
        body, policy=xjit.checkpoint_policies.everything_saveable)(v)), x, op="stablehlo.sine")
    remat = _count_in_backward(lambda v: jnp.sum(xjit.remat(body)(v)), x, op="stablehlo.sine")
    assert plain == 2
    assert saved == 2      # the forward's two sines only
    assert remat == 3      # and the inner one again in the backward computation


def test_checkpoint_static_argnums_and_bad_policy():
    def f(x, n):
        for _ in range(n):
            x = jnp.sin(x)
        return x
    g = xjit.grad(xjit.checkpoint(f, static_argnums=(1,)))(0.5, 2)
    assert float(g) == pytest.approx(np.cos(np.sin(0.5)) * np.cos(0.5), rel=1e-6)
    assert float(xjit.checkpoint(f, static_argnums=1)(0.5, 1)) == pytest.approx(np.sin(0.5))
    with pytest.raises(NotImplementedError, match="policy"):
        xjit.checkpoint(f, policy=lambda *a, **k: True)


def test_checkpoint_against_jax():
    jax = pytest.importorskip("jax")
    w = np.random.RandomState(0).randn(3, 3).astype(np.float32) * 0.5
    x = np.random.RandomState(1).randn(4, 3).astype(np.float32)
    got = xjit.grad(lambda w: jnp.sum(xjit.checkpoint(mlp_block)(w, x)))(w)
    want = jax.grad(lambda w: jax.numpy.sum(jax.checkpoint(
        lambda w, x: jax.numpy.sin(jax.numpy.tanh(x @ w) @ w))(w, x)))(w)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_custom_jvp_rule_that_declines_fails_only_when_differentiated():
    @xjit.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        raise NotImplementedError("f has no derivative here")

    x = np.float32(0.5)
    for g in (f, xjit.jit(f), xjit.vmap(f)):
        np.testing.assert_allclose(g(np.full(3, x)), np.sin(np.full(3, x)), rtol=1e-6)
    for g in (xjit.grad(f), xjit.jit(xjit.grad(f)), lambda v: xjit.jvp(f, (v,), (v,))):
        with pytest.raises(NotImplementedError, match="f has no derivative here"):
            g(x)


def test_custom_gradient():
    @xjit.custom_gradient
    def f(x):
        return x ** 2, lambda g: (g * x,)
    assert float(f(3.0)) == 9.0
    assert float(xjit.grad(f)(3.0)) == 3.0  # the rule's g * x, not 2x
    assert float(xjit.jit(xjit.grad(f))(4.0)) == 4.0
    np.testing.assert_array_equal(np.asarray(xjit.vmap(xjit.grad(f))(np.arange(3.0))),
                                  [0.0, 1.0, 2.0])

    @xjit.custom_gradient
    def clipped(x, y):
        return x * y, lambda g: (jnp.clip(g, -1, 1) * y, g * x)
    assert float(xjit.grad(lambda a: clipped(a, 5.0))(2.0)) == 5.0
    assert float(xjit.grad(lambda a: 10 * clipped(a, 5.0))(2.0)) == 5.0  # clipped to 1
    assert float(xjit.grad(clipped, argnums=1)(2.0, 5.0)) == 2.0
