"""Transform rules of issue 9's last ops: the JVP of `map` (its computation
vmapped and differentiated), of `bitcast_convert` (zero, as JAX), of a
general or variadic `reduce_window` (JAX's reduce_window_jvp, forward mode
only); batching of `rng_bit_generator` (JAX's rule) and of `reduce_window`
with a batched init value.
"""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax
from xjit._src import core, dispatch, tracing
from xjit._src.lax import operands as ops
from xjit.test_util import check_grads


def stablehlo_map(fn, *xs):
    """The `map` op (no public lax function binds it) of `fn` over `xs`."""
    xs = [ops.as_operand(x) for x in xs]
    dts = [np.dtype(x.dtype) for x in xs]

    def region(mb):
        avals = [core.ShapedArray((), d) for d in dts]
        return tracing.trace_region(mb, "map_fn", avals, fn, [dts[0]]).computation

    return dispatch.bind("map", xs, {"dimensions": list(range(np.ndim(xs[0])))},
                         weak_type=[False], regions=[region])


def mapped(a, b):
    return stablehlo_map(lambda u, v: jnp.sin(u) * v + u * u / (1 + v * v), a, b)


def test_map_grads(x64):
    rng = np.random.RandomState(0)
    a, b = rng.uniform(0.5, 2, (2, 3)), rng.uniform(-1, 1, (2, 3))
    check_grads(mapped, (a, b), order=2, modes=["fwd", "rev"])
    check_grads(lambda v: stablehlo_map(jnp.exp, v), (a[0],), order=1)
    check_grads(lambda v: stablehlo_map(lambda s: s * 3.0, v), (np.float64(0.5),), order=1)


def test_map_gradient_matches_the_closed_form_under_jit_and_vmap():
    a = np.linspace(0.5, 2, 6, dtype=np.float32).reshape(2, 3)
    b = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    want = np.cos(a) * b + 2 * a / (1 + b * b)
    loss = lambda u, v: mapped(u, v).sum()
    np.testing.assert_allclose(xjit.grad(loss)(a, b), want, rtol=1e-5)
    np.testing.assert_allclose(xjit.jit(xjit.grad(loss))(a, b), want, rtol=1e-5)
    np.testing.assert_allclose(xjit.vmap(xjit.grad(loss))(a, b), want, rtol=1e-5)
    t = xjit.jvp(mapped, (a, b), (np.ones_like(a), np.zeros_like(b)))[1]
    np.testing.assert_allclose(t, want, rtol=1e-5)
    empty = np.zeros((0, 3), np.float32)
    assert xjit.jvp(mapped, (empty, empty), (empty, empty))[1].shape == (0, 3)


def test_bitcast_convert_has_a_zero_tangent_as_in_jax():
    jax = pytest.importorskip("jax")
    x = np.array([0.5, 1.0, 2.0], np.float32)
    for dt in (np.int32, np.float32, np.float16):
        ours = xjit.jvp(lambda v: lax.bitcast_convert_type(v, dt), (x,), (x,))
        theirs = jax.jvp(lambda v: jax.lax.bitcast_convert_type(v, dt), (x,), (x,))
        np.testing.assert_array_equal(np.asarray(ours[0]), np.asarray(theirs[0]))
        assert ours[1].dtype == theirs[1].dtype
        if np.dtype(dt).kind == "f":
            np.testing.assert_array_equal(np.asarray(ours[1]), np.zeros_like(ours[0]))
    grad = xjit.grad(lambda v: jnp.sum(lax.bitcast_convert_type(v, jnp.float32) + v))(x)
    np.testing.assert_array_equal(grad, np.ones(3, np.float32))


def complex_window_product(lax_module):
    """A variadic reduce_window: the product of (re, im) pairs as complex numbers."""
    def f(re, im):
        body = lambda a, b: (a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0])
        one, zero = re.dtype.type(1), re.dtype.type(0)
        return lax_module.reduce_window((re, im), (one, zero), body, (2, 2), (1, 1), "SAME")
    return f


def test_variadic_reduce_window_jvp_matches_jax():
    jax = pytest.importorskip("jax")
    rng = np.random.RandomState(1)
    re, im = rng.uniform(0.5, 1.5, (3, 4)).astype(np.float32), rng.randn(3, 4).astype(np.float32)
    ours = xjit.jvp(complex_window_product(lax), (re, im), (im, re))
    theirs = jax.jvp(complex_window_product(jax.lax), (re, im), (im, re))
    for got, want in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_general_reduce_window_grads_forward_mode(x64):
    rng = np.random.RandomState(2)
    re, im = rng.uniform(0.5, 1.5, (3, 4)), rng.randn(3, 4)
    check_grads(complex_window_product(lax), (re, im), order=2, modes=["fwd"])
    prod = lambda v: lax.reduce_window(v, 1.0, lax.mul, (2, 2), (1, 2), "SAME")
    check_grads(prod, (re,), order=1, modes=["fwd"])
    affine = lambda v: lax.reduce_window(v, 1.0, lambda a, b: a * b + a, (2,), (1,), "VALID")
    check_grads(affine, (re[0],), order=1, modes=["fwd"])


def test_general_reduce_window_reverse_mode_and_init_tangent_errors():
    re = np.ones((3, 4), np.float32)
    f = complex_window_product(lax)
    # JAX: "ValueError: Linearization failed to produce known values ..."
    with pytest.raises(ValueError, match="forward mode only"):
        xjit.grad(lambda a, b: f(a, b)[0].sum())(re, re)
    # JAX: "TypeError: reduce_window jvp does not support non-zero init_value_tangent."
    g = lambda v, i: lax.reduce_window((v, v), (i, i), lambda a, b: (a[0] * b[0], a[1] + b[1]),
                                       (2,), (1,), "VALID")
    with pytest.raises(TypeError, match="init_value_tangent"):
        xjit.jvp(g, (re[0], np.float32(1)), (re[0], np.float32(1)))


def test_argmax_pooling_jvp_keeps_the_value_tangent():
    x = np.array([[1.0, 5.0, 2.0], [4.0, 3.0, 0.0]], np.float32)
    t = np.arange(6, dtype=np.float32).reshape(2, 3) + 10
    idx = np.arange(6, dtype=np.int32).reshape(2, 3)

    def pool(v):
        def body(a, b):
            pick = a[0] >= b[0]
            return lax.select(pick, a[0], b[0]), lax.select(pick, a[1], b[1])
        return lax.reduce_window((v, idx), (np.float32(-np.inf), np.int32(0)), body,
                                 (2, 2), (1, 1), "VALID")

    (value, where), (tv, tw) = xjit.jvp(pool, (x,), (t,))
    np.testing.assert_array_equal(where, [[1, 1]])
    np.testing.assert_array_equal(tv, [[11.0, 11.0]])
    assert tw.dtype == np.dtype([("float0", "V")])


WINDOWS = [
    dict(window_dimensions=(2, 3), window_strides=(1, 2), padding="VALID"),
    dict(window_dimensions=(2, 3), window_strides=(2, 1), padding=((1, 0), (2, 1)),
         base_dilation=(2, 1), window_dilation=(1, 2)),
    dict(window_dimensions=(3, 2), window_strides=(1, 1), padding=((-1, 1), (0, 2))),
]


@pytest.mark.parametrize("op", [lax.add, lax.max, lax.min, lax.mul])
@pytest.mark.parametrize("window", range(len(WINDOWS)))
def test_vmap_of_reduce_window_with_a_batched_init_matches_a_loop(op, window):
    kw = WINDOWS[window]
    xs = np.random.RandomState(3).uniform(0.5, 1.5, (3, 5, 6)).astype(np.float32)
    inits = np.array([1.5, -2.0, 0.5], np.float32)
    got = xjit.vmap(lambda v, i: lax.reduce_window(v, i, op, **kw))(xs, inits)
    want = np.stack([lax.reduce_window(v, i, op, **kw) for v, i in zip(xs, inits)])
    np.testing.assert_allclose(got, want, rtol=1e-5)
    got = xjit.vmap(lambda i: lax.reduce_window(xs[0], i, op, **kw), in_axes=0)(inits)
    want = np.stack([lax.reduce_window(xs[0], i, op, **kw) for i in inits])
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_vmap_of_reduce_window_with_a_batched_init_and_a_general_body_raises():
    jax = pytest.importorskip("jax")
    xs, inits = np.ones((2, 4), np.float32), np.ones(2, np.float32)
    body = lambda a, b: a * b + a
    # JAX raises NotImplementedError for every body.
    with pytest.raises(NotImplementedError, match="initial values"):
        jax.vmap(lambda v, i: jax.lax.reduce_window(v, i, body, (2,), (1,), "VALID"))(xs, inits)
    with pytest.raises(NotImplementedError, match="initial values"):
        xjit.vmap(lambda v, i: lax.reduce_window(v, i, body, (2,), (1,), "VALID"))(xs, inits)


@pytest.mark.parametrize("algorithm", ["RNG_THREE_FRY", "RNG_PHILOX"])
def test_vmap_of_rng_bit_generator_matches_jax(algorithm):
    jax = pytest.importorskip("jax")
    keys = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], np.uint32)
    for shape, dtype in [((3,), np.uint32), ((2, 2), np.uint8)]:
        ours = xjit.vmap(lambda k: lax.rng_bit_generator(
            k, shape, dtype, algorithm=getattr(lax.RandomAlgorithm, algorithm)))(keys)
        theirs = jax.vmap(lambda k: jax.lax.rng_bit_generator(
            k, shape, dtype, algorithm=getattr(jax.lax.RandomAlgorithm, algorithm)))(keys)
        for got, want in zip(ours, theirs):
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    # An unbatched key: the op is not batched, its results are broadcast.
    ours = xjit.vmap(lambda k, x: lax.rng_bit_generator(k, (2,)), in_axes=(None, 0))(
        keys[0], np.zeros(3))
    theirs = jax.vmap(lambda k, x: jax.lax.rng_bit_generator(k, (2,)), in_axes=(None, 0))(
        keys[0], np.zeros(3))
    for got, want in zip(ours, theirs):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
