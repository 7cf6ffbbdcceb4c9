"""grad/jvp/vmap of convolution, reduce_window and select_and_scatter: the
transpose rules against JAX's gradients (every layout and group count),
finite differences, and vmap against a Python loop."""
import numpy as np
import pytest

import xjit
from xjit import lax
from xjit.test_util import check_grads
from jax_checks import jax

RNG = np.random.default_rng(4)


CONVS = [
    # lhs, rhs, strides, padding, lhs_dil, rhs_dil, dn, fgc, bgc
    ((2, 3, 6, 5), (4, 3, 3, 2), (1, 1), "VALID", None, None, None, 1, 1),
    ((2, 6, 5, 3), (3, 2, 3, 4), (2, 1), "SAME", None, (1, 2), ("NHWC", "HWIO", "NHWC"), 1, 1),
    ((1, 2, 7, 6), (3, 2, 3, 2), (2, 3), [(2, -1), (1, 0)], (1, 2), (2, 1), None, 1, 1),
    ((2, 6, 5, 5), (9, 2, 3, 3), (1, 1), [(1, 1), (0, 2)], None, None, None, 3, 1),
    ((4, 3, 5, 5), (6, 3, 3, 3), (2, 1), "VALID", None, None, None, 1, 2),
    ((3, 6, 4, 5), (4, 2, 3, 3), (1, 2), [(1, 0), (0, 1)], None, None,
     ("CWNH", "OHWI", "HCWN"), 1, 1),
    ((2, 9, 4), (3, 2, 6), (2,), [(1, 1)], (2,), None, ("NWC", "WIO", "NWC"), 2, 1),
]


def _conv_fn(case, mod):
    _, _, strides, padding, ld, rd, dn, fgc, bgc = case
    return lambda a, b: mod.conv_general_dilated(a, b, strides, padding, ld, rd, dn,
                                                 feature_group_count=fgc,
                                                 batch_group_count=bgc)


@pytest.mark.parametrize("case", range(len(CONVS)))
def test_conv_grads_match_jax(case):
    if jax is None:
        pytest.skip("jax is not installed")
    c = CONVS[case]
    x, k = RNG.standard_normal(c[0]).astype(np.float32), RNG.standard_normal(c[1]).astype(
        np.float32)
    f, jf = _conv_fn(c, lax), _conv_fn(c, jax.lax)
    w = RNG.standard_normal(np.asarray(jf(x, k)).shape).astype(np.float32)
    got = xjit.grad(lambda a, b: (f(a, b) * w).sum(), argnums=(0, 1))(x, k)
    want = jax.grad(lambda a, b: (jf(a, b) * w).sum(), argnums=(0, 1))(x, k)
    for g, h in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(h), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", [0, 2, 3, 4])
def test_conv_check_grads(case, x64):
    c = CONVS[case]
    x, k = RNG.standard_normal(c[0]), RNG.standard_normal(c[1])
    check_grads(_conv_fn(c, lax), (x, k), order=2)


@pytest.mark.parametrize("case", [0, 1, 3, 4, 5, 6])
@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0)])
def test_conv_vmap(case, in_axes):
    c = CONVS[case]
    f = _conv_fn(c, lax)
    x = RNG.standard_normal((3,) + c[0]).astype(np.float32)
    k = RNG.standard_normal((3,) + c[1]).astype(np.float32)
    xs = x if in_axes[0] == 0 else x[0]
    ks = k if in_axes[1] == 0 else k[0]
    got = xjit.vmap(f, in_axes=in_axes)(xs, ks)
    want = np.stack([np.asarray(f(x[i] if in_axes[0] == 0 else xs,
                                  k[i] if in_axes[1] == 0 else ks)) for i in range(3)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)


POOLS = [
    ((4, 6), (2, 2), (2, 2), "VALID", None, None),
    ((5, 7), (3, 3), (1, 2), "SAME", None, None),
    ((2, 6, 5), (1, 2, 3), (1, 2, 1), [(0, 0), (1, 0), (0, 1)], None, None),
    ((6, 5), (2, 2), (1, 1), [(1, 1), (0, 1)], (2, 1), None),
]


@pytest.mark.parametrize("case", range(len(POOLS)))
@pytest.mark.parametrize("kind", ["max", "min", "add"])
def test_pool_grads_match_jax(case, kind):
    if jax is None:
        pytest.skip("jax is not installed")
    shape, window, strides, padding, bd, wd = POOLS[case]
    x = RNG.permutation(np.prod(shape)).reshape(shape).astype(np.float32)  # no ties
    init = {"max": -np.inf, "min": np.inf, "add": 0.0}[kind]
    op = {"max": lax.max, "min": lax.min, "add": lax.add}[kind]
    jop = {"max": jax.lax.max, "min": jax.lax.min, "add": jax.lax.add}[kind]

    def f(a):
        return lax.reduce_window(a, init, op, window, strides, padding, bd, wd)

    def jf(a):
        return jax.lax.reduce_window(a, init, jop, window, strides, padding, bd, wd)

    w = RNG.standard_normal(np.asarray(jf(x)).shape).astype(np.float32)
    got = xjit.grad(lambda a: (f(a) * w).sum())(x)
    want = jax.grad(lambda a: (jf(a) * w).sum())(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
    t = RNG.standard_normal(shape).astype(np.float32)
    _, got_t = xjit.jvp(f, (x,), (t,))
    _, want_t = jax.jvp(jf, (x,), (t,))
    np.testing.assert_allclose(np.asarray(got_t), np.asarray(want_t), rtol=1e-5, atol=1e-5)


def test_max_pool_second_order(x64):
    x = RNG.permutation(36).reshape(6, 6).astype(np.float64) / 7.0
    f = lambda a: lax.reduce_window(a, -np.inf, lax.max, (2, 2), (2, 2), "VALID")  # noqa: E731
    check_grads(f, (x,), order=2, eps=1e-3)
    s = lambda a: lax.reduce_window(a, 0.0, lax.add, (3, 2), (1, 2), "SAME")  # noqa: E731
    check_grads(s, (x,), order=2)


def test_reduce_window_vmap():
    x = RNG.standard_normal((3, 5, 6)).astype(np.float32)
    f = lambda a: lax.reduce_window(a, -np.inf, lax.max, (2, 3), (1, 2), "SAME")  # noqa: E731
    np.testing.assert_allclose(np.asarray(xjit.vmap(f)(x)),
                               np.stack([np.asarray(f(v)) for v in x]))
    g = lambda a: lax.select_and_scatter_add(a[:2, :3], a, "ge", (2, 2), (2, 2), "VALID")  # noqa
    np.testing.assert_allclose(np.asarray(xjit.vmap(g)(x[:, :4, :6])),
                               np.stack([np.asarray(g(v)) for v in x[:, :4, :6]]))


def test_vmap_of_grad_of_cnn():
    x = RNG.standard_normal((4, 1, 6, 6)).astype(np.float32)
    k = RNG.standard_normal((2, 1, 3, 3)).astype(np.float32)

    def loss(kk, xx):
        y = lax.conv(xx[None], kk, (1, 1), "SAME")
        y = lax.reduce_window(y, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        return (y ** 2).sum()

    got = xjit.vmap(xjit.grad(loss), in_axes=(None, 0))(k, x)
    want = np.stack([np.asarray(xjit.grad(loss)(k, v)) for v in x])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)


def test_sum_window_gradient_of_init(x64):
    x = RNG.standard_normal((5, 6))
    f = lambda a, i: lax.reduce_window(a, i, lambda u, v: u + v, (2, 3), (1, 2),  # noqa: E731
                                       [(1, 0), (1, 1)], (2, 1))
    check_grads(f, (x, 0.5), order=1)
    g = xjit.grad(lambda i: f(x, i).sum())(0.5)
    # Each output adds the init once plus once per padded/hole position.
    ones = np.ones_like(x)
    real = np.asarray(lax.reduce_window(ones, 0.0, lax.add, (2, 3), (1, 2), [(1, 0), (1, 1)],
                                        (2, 1)))
    np.testing.assert_allclose(float(g), (1 + 6 - real).sum())
