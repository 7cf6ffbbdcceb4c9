"""grad, jvp, vjp, linearize, jacobians, hessian, vmap, stop_gradient (issue 9).

Derivatives are checked numerically with ``xjit.test_util.check_grads``
(JVP against central differences, VJP against the JVP) for float32 and
float64; batching against a Python loop; and, when JAX is installed, the
same transformations against JAX.
"""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax
from xjit.test_util import check_grads


def rand(shape, dtype=np.float32, lo=-1.5, hi=1.5, seed=0):
    return np.random.RandomState(seed).uniform(lo, hi, shape).astype(dtype)


# One entry per differentiable op family: (name, function, argument maker).
UNARY = [
    ("sin", jnp.sin, None), ("cos", jnp.cos, None), ("tan", lambda x: jnp.tan(0.5 * x), None),
    ("tanh", jnp.tanh, None), ("exp", jnp.exp, None), ("expm1", jnp.expm1, None),
    ("log", jnp.log, (0.5, 2.0)), ("log1p", jnp.log1p, (0.5, 2.0)),
    ("sqrt", jnp.sqrt, (0.5, 2.0)), ("rsqrt", lax.rsqrt, (0.5, 2.0)),
    ("cbrt", jnp.cbrt, (0.5, 2.0)), ("logistic", lax.logistic, None), ("erf", lax.erf, None),
    ("abs", jnp.abs, (0.2, 2.0)), ("neg", jnp.negative, None),
    ("square", jnp.square, None), ("reciprocal", jnp.reciprocal, (0.5, 2.0)),
    ("floor", lambda x: jnp.floor(x) + x, None), ("sign", lambda x: jnp.sign(x) * x, None),
]
BINARY = [
    ("add", jnp.add, None), ("sub", jnp.subtract, None), ("mul", jnp.multiply, None),
    ("div", jnp.divide, (0.5, 2.0)), ("pow", jnp.power, (0.5, 2.0)),
    ("max", jnp.maximum, None), ("min", jnp.minimum, None), ("atan2", jnp.arctan2, None),
    ("rem", jnp.remainder, (0.5, 2.0)),
]
STRUCTURAL = [
    ("sum", lambda x: jnp.sum(x * x, axis=1), (2, 3)),
    ("mean", lambda x: jnp.mean(jnp.sin(x)), (2, 3)),
    ("max_reduce", lambda x: jnp.max(x, axis=0), (3, 4)),
    ("min_reduce", lambda x: jnp.min(x), (3, 4)),
    ("broadcast", lambda x: jnp.broadcast_to(x, (4, 2, 3)) * 2.0, (2, 3)),
    ("reshape", lambda x: jnp.reshape(x, (3, 2)) ** 2, (2, 3)),
    ("transpose", lambda x: jnp.transpose(x) * jnp.arange(2.0), (2, 3)),
    ("slice", lambda x: x[1:, ::2] ** 2, (3, 4)),
    ("concatenate", lambda x: jnp.concatenate([x, x ** 2], axis=1), (2, 3)),
    ("pad", lambda x: lax.pad(x ** 2, 0.5, [(1, -1, 1), (-1, 2, 0)]), (2, 3)),
    ("rev", lambda x: lax.rev(jnp.sin(x), (0,)), (3, 2)),
    ("matmul", lambda x: x @ x.T, (3, 4)),
    ("dot_general", lambda x: lax.dot_general(x, jnp.cos(x), (((2,), (1,)), ((0,), (0,)))),
     (2, 3, 3)),
    ("where", lambda x: jnp.where(x > 0, x ** 2, jnp.sin(x)), (5,)),
    ("clip", lambda x: jnp.clip(x, -0.5, 0.7) * x, (5,)),
    ("convert", lambda x: (x.astype(jnp.float32) ** 2).astype(x.dtype), (4,)),
    ("softmax", lambda x: jnp.exp(x) / jnp.sum(jnp.exp(x), axis=-1, keepdims=True), (2, 3)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,f,rng", UNARY, ids=[u[0] for u in UNARY])
def test_unary_grads(name, f, rng, dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    lo, hi = rng or (-1.5, 1.5)
    x = rand((2, 3), dtype, lo, hi)
    check_grads(f, (x,), order=2 if dtype == np.float64 else 1, atol=1e-2 if dtype == np.float32 else None,
                rtol=1e-2 if dtype == np.float32 else None)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,f,rng", BINARY, ids=[b[0] for b in BINARY])
def test_binary_grads(name, f, rng, dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    lo, hi = rng or (-1.5, 1.5)
    x, y = rand((2, 3), dtype, lo, hi, 1), rand((2, 3), dtype, lo, hi, 2)
    tol = 1e-2 if dtype == np.float32 else None
    check_grads(f, (x, y), order=1, atol=tol, rtol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,f,shape", STRUCTURAL, ids=[s[0] for s in STRUCTURAL])
def test_structural_grads(name, f, shape, dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    x = rand(shape, dtype, seed=3)
    tol = 2e-2 if dtype == np.float32 or name == "convert" else None
    check_grads(f, (x,), order=1, atol=tol, rtol=tol)


def test_second_order_through_jit(x64):
    f = xjit.jit(lambda x, y: jnp.sum(jnp.tanh(x @ y) ** 2))
    check_grads(f, (rand((2, 3), np.float64), rand((3, 2), np.float64, seed=1)), order=2)


# ------------------------------------------------------------------ behaviours

def test_grad_values():
    assert float(xjit.grad(lambda x: x ** 3)(2.0)) == pytest.approx(12.0)
    g = xjit.grad(lambda x: jnp.sum(jnp.sin(x)))(np.arange(3.0, dtype=np.float32))
    np.testing.assert_allclose(g, np.cos(np.arange(3.0)), rtol=1e-6)


def test_argnums_tuple_and_has_aux():
    def f(x, y, z):
        return jnp.sum(x * y) + z, {"aux": x * 2}
    x, y = np.ones(3, np.float32), np.arange(3.0, dtype=np.float32)
    (gx, gz), aux = xjit.grad(f, argnums=(0, 2), has_aux=True)(x, y, 1.0)
    np.testing.assert_allclose(gx, y)
    assert float(gz) == 1.0
    np.testing.assert_allclose(aux["aux"], x * 2)
    (v, aux2), g = xjit.value_and_grad(f, has_aux=True)(x, y, 1.0)
    assert float(v) == pytest.approx(4.0)
    np.testing.assert_allclose(g, y)


def test_pytree_inputs_and_outputs():
    params = {"w": np.ones((2, 3), np.float32), "b": np.zeros(3, np.float32)}

    def loss(p, x):
        return jnp.sum(jnp.tanh(x @ p["w"] + p["b"]) ** 2)
    g = xjit.grad(loss)(params, np.ones((4, 2), np.float32))
    assert set(g) == {"w", "b"} and g["w"].shape == (2, 3)
    jac = xjit.jacrev(lambda p: {"y": p["w"].sum(0) * p["b"]})(params)
    assert jac["y"]["w"].shape == (3, 2, 3) and jac["y"]["b"].shape == (3, 3)


def test_grad_of_non_scalar_raises():
    with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions. "
                                        r"Output had shape: \(3,\)"):
        xjit.grad(lambda x: x * 2)(np.ones(3, np.float32))


def test_grad_of_int_input():
    with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs"):
        xjit.grad(lambda x: x * 2.0)(3)
    g = xjit.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(2.0, 3)
    assert float(g[0]) == 3.0 and g[1].dtype == xjit._src.api_transforms.float0


def test_integer_outputs_get_float0_tangents():
    out, t = xjit.jvp(lambda x: (x * 2, jnp.argmax(x)), (np.arange(3.0, dtype=np.float32),),
                      (np.ones(3, np.float32),))
    np.testing.assert_allclose(t[0], 2 * np.ones(3))
    assert t[1].dtype == xjit._src.api_transforms.float0


def test_jvp_checks_tangents():
    with pytest.raises(TypeError, match="dtypes must be equal"):
        xjit.jvp(jnp.sin, (np.float32(1),), (np.int32(1),))
    with pytest.raises(ValueError, match="different primal and tangent shapes"):
        xjit.jvp(jnp.sin, (np.ones(3, np.float32),), (np.ones(2, np.float32),))


def test_vjp_and_linearize():
    x = np.arange(3.0, dtype=np.float32)
    y, pullback = xjit.vjp(lambda a: jnp.sin(a) * a, x)
    (ct,) = pullback(np.ones(3, np.float32))
    np.testing.assert_allclose(ct, np.cos(x) * x + np.sin(x), rtol=1e-6)
    y2, f_jvp = xjit.linearize(lambda a: a ** 2, x)
    np.testing.assert_allclose(f_jvp(np.ones(3, np.float32)), 2 * x)


def test_compositions():
    f = lambda x: jnp.sin(x) * x ** 2  # noqa: E731
    d2 = xjit.grad(xjit.grad(f))(1.0)
    expected = -np.sin(1.0) + 4 * np.cos(1.0) + 2 * np.sin(1.0)
    assert float(d2) == pytest.approx(expected, rel=1e-5)
    assert float(xjit.jit(xjit.grad(f))(1.0)) == pytest.approx(
        float(xjit.grad(xjit.jit(f))(1.0)), rel=1e-6)
    xs = np.linspace(-1, 1, 5).astype(np.float32)
    per_example = xjit.vmap(xjit.grad(f))(xs)
    np.testing.assert_allclose(per_example, [float(xjit.grad(f)(float(v))) for v in xs],
                               rtol=1e-5)
    h = xjit.hessian(lambda v: jnp.sum(v ** 3))(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(h, np.diag([6.0, 12.0]))
    jf = xjit.jacfwd(xjit.jacrev(lambda v: jnp.sum(jnp.sin(v))))(xs)
    np.testing.assert_allclose(jf, np.diag(-np.sin(xs)), atol=1e-6)
    # grad inside jit inside vmap.
    out = xjit.vmap(xjit.jit(xjit.grad(lambda v: jnp.sum(v * v))))(np.ones((2, 3), np.float32))
    np.testing.assert_allclose(out, 2 * np.ones((2, 3)))


def test_closure_over_outer_value():
    # d/dx [x * grad(lambda y: x * y ** 2)(1.0)] = d/dx 2x^2 = 4x
    g = xjit.grad(lambda x: x * xjit.grad(lambda y: x * y ** 2)(1.0))(3.0)
    assert float(g) == pytest.approx(12.0)


def test_stop_gradient():
    assert float(xjit.grad(lambda x: x * lax.stop_gradient(x))(3.0)) == 3.0
    g = xjit.grad(lambda x: jnp.sum(xjit.vmap(lambda v: v * lax.stop_gradient(v))(x)))(
        np.ones(3, np.float32) * 2)
    np.testing.assert_allclose(g, 2 * np.ones(3))
    assert float(lax.stop_gradient(2.0)) == 2.0


def test_jacobians_match_each_other():
    f = lambda v: jnp.tanh(v[:, None] * v[None, :])  # noqa: E731
    x = rand((3,), seed=5)
    np.testing.assert_allclose(xjit.jacfwd(f)(x), xjit.jacrev(f)(x), rtol=1e-5, atol=1e-6)
    assert xjit.jacobian(f)(x).shape == (3, 3, 3)


# ------------------------------------------------------------------------ vmap

def loop(f, *args, in_axes):
    n = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = [f(*[a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes)])
            for i in range(n)]
    return np.stack([np.asarray(o) for o in outs])


VMAP_CASES = [
    ("elementwise", lambda x, y: jnp.sin(x) * y + 1.0, [(3, 4), (3, 4)], (0, 0)),
    ("unbatched", lambda x, y: x * y, [(3, 4), (4,)], (0, None)),
    ("in_axis1", lambda x, y: x - y, [(4, 3), (4,)], (1, None)),
    ("matmul", lambda x, y: x @ y, [(5, 2, 3), (3, 4)], (0, None)),
    ("matmul_both", lambda x, y: x @ y, [(5, 2, 3), (5, 3, 4)], (0, 0)),
    ("matvec_rhs", lambda x, y: x @ y, [(2, 3), (5, 3)], (None, 0)),
    ("reduce", lambda x, y: jnp.sum(x, axis=0) + jnp.max(y), [(3, 4, 2), (3, 5)], (0, 0)),
    ("shape_ops", lambda x, y: jnp.concatenate([x.T, y[None, :2]], 0)[::-1],
     [(3, 2, 4), (3, 4)], (0, 0)),
    ("pad_slice", lambda x, y: lax.pad(x, y, [(1, 0, 1)])[1:], [(3, 4), (3,)], (0, 0)),
    ("where", lambda x, y: jnp.where(x > y, x, y), [(3, 4), (3,)], (0, 0)),
    ("iota", lambda x, y: x + jnp.arange(4.0) * y, [(3, 4), (3,)], (0, 0)),
]


@pytest.mark.parametrize("name,f,shapes,in_axes", VMAP_CASES, ids=[c[0] for c in VMAP_CASES])
def test_vmap_matches_loop(name, f, shapes, in_axes):
    args = [rand(s, seed=i) for i, s in enumerate(shapes)]
    got = xjit.vmap(f, in_axes=in_axes)(*args)
    np.testing.assert_allclose(got, loop(f, *args, in_axes=in_axes), rtol=1e-5, atol=1e-6)


def test_vmap_axes_and_pytrees():
    x = {"a": np.ones((2, 3), np.float32), "b": np.arange(3.0, dtype=np.float32)}
    out = xjit.vmap(lambda d: d["a"] * d["b"], in_axes=({"a": 1, "b": 0},))(x)
    assert out.shape == (3, 2)
    out = xjit.vmap(lambda v: (v, v.sum()), out_axes=(1, 0))(np.ones((4, 2), np.float32))
    assert out[0].shape == (2, 4) and out[1].shape == (4,)
    out = xjit.vmap(lambda v: 2.0, axis_size=3, in_axes=None)(1.0)
    assert out.shape == (3,)
    assert xjit.vmap(lambda v: v, axis_name="i")(np.ones(2, np.float32)).shape == (2,)


def test_vmap_errors():
    with pytest.raises(ValueError, match="inconsistent sizes"):
        xjit.vmap(lambda a, b: a + b)(np.ones(3, np.float32), np.ones(4, np.float32))
    with pytest.raises(ValueError, match="at least one non-None"):
        xjit.vmap(lambda a: a, in_axes=None)(1.0)
    with pytest.raises(ValueError, match="out_axes is None"):
        xjit.vmap(lambda a: a, out_axes=None)(np.ones(3, np.float32))


def test_vmap_of_jit_and_nested_vmap():
    f = xjit.jit(lambda x: jnp.sum(x ** 2))
    out = xjit.vmap(xjit.vmap(f))(np.ones((2, 3, 4), np.float32))
    np.testing.assert_allclose(out, 4 * np.ones((2, 3)))


def test_make_graph_and_eval_shape():
    g = xjit.make_graph(lambda x: jnp.sin(x) + 1)(np.ones(3, np.float32))
    assert "stablehlo.sine" in str(g)
    s = xjit.eval_shape(xjit.grad(lambda x: jnp.sum(x)), xjit.ShapeDtypeStruct((2,), np.float32))
    assert s.shape == (2,)


def test_missing_rule_is_a_clear_error():
    with pytest.raises(NotImplementedError, match="reduce"):
        xjit.grad(lambda x: lax.reduce(x, np.float32(0), lambda a, b: a + b * b, (0,)))(
            np.ones(3, np.float32))


# ------------------------------------------------------------- against JAX

jax_cases = [
    ("mlp", lambda w, x: jnp.sum(jnp.tanh(x @ w) ** 2), [(3, 4), (5, 3)]),
    ("softmax_ce", lambda w, x: -jnp.sum(jnp.log(jnp.exp(x @ w) / jnp.sum(jnp.exp(x @ w), -1,
                                                                           keepdims=True))),
     [(3, 4), (5, 3)]),
    ("maxes", lambda w, x: jnp.sum(jnp.max(w, axis=0)) + jnp.sum(jnp.maximum(x, 0.1)),
     [(3, 4), (5, 3)]),
]


@pytest.mark.parametrize("name,f,shapes", jax_cases, ids=[c[0] for c in jax_cases])
def test_against_jax(name, f, shapes):
    jax = pytest.importorskip("jax")
    jjnp = pytest.importorskip("jax.numpy")
    args = [rand(s, seed=i) for i, s in enumerate(shapes)]
    jf = {"mlp": lambda w, x: jjnp.sum(jjnp.tanh(x @ w) ** 2),
          "softmax_ce": lambda w, x: -jjnp.sum(jax.nn.log_softmax(x @ w)),
          "maxes": lambda w, x: jjnp.sum(jjnp.max(w, axis=0)) + jjnp.sum(jjnp.maximum(x, 0.1)),
          }[name]
    for ours, theirs in [(xjit.grad(f, argnums=(0, 1)), jax.grad(jf, argnums=(0, 1))),
                         (xjit.jacrev(f), jax.jacrev(jf)),
                         (xjit.vmap(xjit.grad(f), in_axes=(None, 0)),
                          jax.vmap(jax.grad(jf), in_axes=(None, 0)))]:
        got, want = ours(*args), theirs(*args)
        for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-4, atol=1e-5)
