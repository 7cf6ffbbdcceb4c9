"""lax.psum/pmean/pmax/pmin/axis_index under vmap(axis_name=...): values
against numpy, nesting, jit, differentiation, control flow, and JAX."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax
from jax_checks import need_jax
from numpy_checks import assert_close

X = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0) / 3.0


def test_reductions_over_the_axis():
    v = xjit.vmap
    assert_close(v(lambda x: lax.psum(x, "i"), axis_name="i")(X), np.broadcast_to(X.sum(0), X.shape))
    assert_close(v(lambda x: lax.pmean(x, "i"), axis_name="i")(X),
                 np.broadcast_to(X.mean(0), X.shape), rtol=1e-6)
    assert_close(v(lambda x: lax.pmax(x, "i"), axis_name="i")(X), np.broadcast_to(X.max(0), X.shape))
    assert_close(v(lambda x: lax.pmin(x, "i"), axis_name="i")(X), np.broadcast_to(X.min(0), X.shape))
    ints = np.arange(6, dtype=np.int32).reshape(3, 2)
    assert_close(v(lambda x: lax.pmax(x, "i"), axis_name="i")(ints), np.broadcast_to(ints.max(0), (3, 2)))
    assert_close(v(lambda x: lax.pmean(x, "i"), axis_name="i")(ints),
                 np.broadcast_to(ints.mean(0), (3, 2)).astype(np.float32))
    # pytrees, constants (multiplied by the size), booleans (counted as int32)
    out = v(lambda x: lax.psum({"a": x, "b": 2.0, "c": x > 0}, "i"), axis_name="i")(X[:, 0])
    assert_close(out["a"], np.full(3, X[:, 0].sum(), np.float32))
    assert_close(out["b"], np.full(3, 6.0, np.float32))
    assert_close(out["c"], np.full(3, (X[:, 0] > 0).sum(), np.int32))


def test_axis_index_nesting_and_tuples_of_names():
    f = xjit.vmap(xjit.vmap(lambda x: x * 0 + lax.axis_index(("i", "j")), axis_name="j"),
                  axis_name="i")
    assert_close(f(X), np.arange(12, dtype=np.float32).reshape(3, 4))
    g = xjit.vmap(xjit.vmap(lambda x: lax.psum(x, "i") - lax.psum(x, ("i", "j")), axis_name="j"),
                  axis_name="i")
    assert_close(g(X), np.broadcast_to(X.sum(0) - X.sum(), X.shape), rtol=1e-5, atol=1e-5)
    h = xjit.vmap(lambda x: lax.axis_index("i"), axis_name="i", in_axes=1)
    assert_close(h(X), np.arange(4, dtype=np.int32))


def test_jit_control_flow_and_gradients():
    norm = xjit.jit(xjit.vmap(lambda x: x / lax.psum(jnp.abs(x), "i"), axis_name="i"))
    assert_close(norm(X), X / np.abs(X).sum(0), rtol=1e-6)
    inside_cond = xjit.vmap(lambda x: lax.cond(True, lambda y: lax.psum(y, "i"), lambda y: y, x),
                            axis_name="i")
    assert_close(inside_cond(X[:, 0]), np.full(3, X[:, 0].sum(), np.float32))
    in_loop = xjit.vmap(lambda x: lax.fori_loop(0, 2, lambda i, y: lax.psum(y, "i"), x),
                        axis_name="i")
    assert_close(in_loop(X[:, 0]), np.full(3, 3 * X[:, 0].sum(), np.float32), rtol=1e-6)

    def loss(w):   # sum_i sin(w_i) * sum_j w_j
        return jnp.sum(xjit.vmap(lambda a: jnp.sin(a) * lax.psum(a, "i"), axis_name="i")(w))
    w = X[0]
    want = np.cos(w) * w.sum() + np.sin(w).sum()
    assert_close(xjit.grad(loss)(w), want, rtol=1e-5)
    per_lane = xjit.vmap(xjit.grad(lambda a: jnp.sin(a) * lax.psum(a, "i")), axis_name="i")
    assert_close(per_lane(w), want, rtol=1e-5)
    _, t = xjit.jvp(lambda w: xjit.vmap(lambda a: lax.psum(a * a, "i"), axis_name="i")(w),
                    (w,), (np.ones_like(w),))
    assert_close(t, np.full(4, 2 * w.sum(), np.float32), rtol=1e-5)


def test_errors():
    with pytest.raises(NameError, match="unbound axis name: k"):
        lax.psum(1.0, "k")
    with pytest.raises(NameError, match="unbound axis name: j"):
        xjit.vmap(lambda x: lax.psum(x, "j"), axis_name="i")(X)
    with pytest.raises(NotImplementedError, match="axis_index_groups"):
        xjit.vmap(lambda x: lax.psum(x, "i", axis_index_groups=[[0, 1]]), axis_name="i")(X)
    with pytest.raises(NotImplementedError, match="pmax"):   # as JAX: no rule for pmax
        xjit.vmap(xjit.grad(lambda a: lax.pmax(a, "i")), axis_name="i")(X[0])


def test_like_jax():
    jax = need_jax()

    def prog(mod, L, np_):
        def f(x):
            y = x - L.pmean(x, "i")
            return y * L.axis_index("i") + L.pmax(y, "i") - L.pmin(x, "i")
        return mod.jit(mod.vmap(mod.vmap(f, axis_name="i"), axis_name="j", in_axes=1))
    got = prog(xjit, lax, jnp)(X)
    want = prog(jax, jax.lax, jax.numpy)(X)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)
