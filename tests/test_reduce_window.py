"""lax.reduce_window (monoid and traced bodies, variadic), its helpers and
select_and_scatter_add against numpy (and JAX when installed), eager and
under jit, and bad inputs."""
import numpy as np
import pytest

import xjit
from xjit import lax
from conv_reference import reduce_window as np_reduce_window
from jax_checks import jax

RNG = np.random.default_rng(1)

WINDOWS = [
    # shape, window, strides, padding, base_dilation, window_dilation
    ((4, 4), (2, 2), (2, 2), "VALID", None, None),
    ((5, 7), (3, 2), (1, 2), "SAME", None, None),
    ((3, 2), (2, 1), (4, 1), [(2, 1), (0, 0)], (2, 1), (3, 1)),
    ((2, 9, 7), (1, 3, 2), (1, 2, 1), [(0, 0), (1, -1), (2, 1)], (1, 2, 1), (1, 1, 2)),
    ((6,), (4,), (1,), [(-1, 2)], None, None),
]


@pytest.mark.parametrize("case", range(len(WINDOWS)))
@pytest.mark.parametrize("op, np_op, init", [
    (lax.add, np.add, 0.0), (lax.max, np.maximum, -np.inf), (lax.min, np.minimum, np.inf),
    (lax.mul, np.multiply, 1.0)])
@pytest.mark.parametrize("jitted", [False, True])
def test_reduce_window_matches_numpy(case, op, np_op, init, jitted):
    shape, window, strides, padding, bd, wd = WINDOWS[case]
    x = RNG.standard_normal(shape).astype(np.float32)

    def f(a):
        return lax.reduce_window(a, np.float32(init), op, window, strides, padding, bd, wd)

    got = (xjit.jit(f) if jitted else f)(x)
    pads = padding
    if isinstance(padding, str):
        pads = lax.padtype_to_pads(shape, window, strides, padding)
    want = np_reduce_window(x, np.float32(init), np_op, window, strides, pads, bd, wd)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", range(len(WINDOWS)))
def test_reduce_window_matches_jax(case):
    if jax is None:
        pytest.skip("jax is not installed")
    shape, window, strides, padding, bd, wd = WINDOWS[case]
    x = RNG.standard_normal(shape).astype(np.float32)
    for op, jop, init in ((lax.add, jax.lax.add, 0.0), (lax.max, jax.lax.max, -np.inf)):
        got = lax.reduce_window(x, init, op, window, strides, padding, bd, wd)
        want = jax.lax.reduce_window(x, init, jop, window, strides, padding, bd, wd)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_integer_and_helpers():
    x = RNG.integers(-50, 50, (6, 5)).astype(np.int32)
    np.testing.assert_array_equal(
        np.asarray(lax.reduce_window_max(x, (2, 2), (1, 1), "VALID")),
        np_reduce_window(x, np.iinfo(np.int32).min, np.maximum, (2, 2), (1, 1), [(0, 0)] * 2))
    np.testing.assert_array_equal(
        np.asarray(lax.reduce_window_min(x, (3, 1), (2, 1), [(1, 1), (0, 0)])),
        np_reduce_window(x, np.iinfo(np.int32).max, np.minimum, (3, 1), (2, 1),
                         [(1, 1), (0, 0)]))
    got = lax.reduce_window_sum(x, (2, 3), (1, 2), "SAME")
    assert got.dtype == np.int32
    np.testing.assert_array_equal(
        np.asarray(got), np_reduce_window(x, 0, np.add, (2, 3), (1, 2),
                                          lax.padtype_to_pads((6, 5), (2, 3), (1, 2), "SAME")))


def test_traced_body_and_non_identity_init():
    x = RNG.standard_normal((5, 6)).astype(np.float32)
    # A body that is not a monoid op, and an init that is not the identity.
    got = lax.reduce_window(x, np.float32(1.0), lambda a, b: a + 2 * b, (2, 2), (1, 2),
                            [(1, 0), (0, 1)])
    want = np_reduce_window(x, np.float32(1.0), lambda a, b: a + 2 * b, (2, 2), (1, 2),
                            [(1, 0), (0, 1)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    got = lax.reduce_window(x, np.float32(0.5), lax.add, (2, 2), (1, 1), "VALID")
    want = np_reduce_window(x, np.float32(0.5), np.add, (2, 2), (1, 1), [(0, 0), (0, 0)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


def test_variadic_argmax_window():
    x = RNG.standard_normal((6, 6)).astype(np.float32)
    idx = np.arange(36, dtype=np.int32).reshape(6, 6)

    def body(acc, cur):
        (av, ai), (cv, ci) = acc, cur
        pick = lax.gt(cv, av)
        return lax.select(pick, cv, av), lax.select(pick, ci, ai)

    f = xjit.jit(lambda a, i: lax.reduce_window((a, i), (np.float32(-np.inf), np.int32(-1)),
                                                body, (2, 3), (2, 3), "VALID"))
    vals, where = f(x, idx)
    want = x.reshape(3, 2, 2, 3).transpose(0, 2, 1, 3).reshape(3, 2, 6)
    np.testing.assert_array_equal(np.asarray(vals), want.max(-1))
    np.testing.assert_array_equal(np.asarray(x).ravel()[np.asarray(where)], want.max(-1))


def test_select_and_scatter_add_is_maxpool_gradient():
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    src = RNG.standard_normal((2, 3)).astype(np.float32)
    got = np.asarray(lax.select_and_scatter_add(src, x, "ge", (2, 2), (2, 2), "VALID"))
    want = np.zeros_like(x)
    for i in range(2):
        for j in range(3):
            w = x[2 * i:2 * i + 2, 2 * j:2 * j + 2]
            a, b = np.unravel_index(np.argmax(w), w.shape)
            want[2 * i + a, 2 * j + b] += src[i, j]
    np.testing.assert_allclose(got, want)


def test_text_has_window_attributes():
    x = np.zeros((4, 4), np.float32)
    text = xjit.jit(lambda a: lax.reduce_window(a, -np.inf, lax.max, (2, 2), (2, 1),
                                                [(0, 1), (1, 0)])).lower(x).as_text()
    assert "stablehlo.reduce_window" in text
    assert "window_dimensions = array<i64: 2, 2>" in text
    assert "dense<[[0, 1], [1, 0]]>" in text


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"window_dimensions": (2,)}, ValueError, "window_dimensions must have 2"),
    ({"window_dimensions": (0, 2)}, ValueError, "must be positive"),
    ({"window_strides": (1, -1)}, ValueError, "must be positive"),
    ({"padding": [(0, 0)]}, ValueError, "padding must have 2"),
    ({"padding": "FULL"}, RuntimeError, "Unrecognized padding"),
    ({"padding": 3}, TypeError, "padding must be a string"),
])
def test_bad_inputs(kwargs, exc, match):
    args = dict(window_dimensions=(2, 2), window_strides=(1, 1), padding="VALID")
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        lax.reduce_window(np.zeros((4, 4), np.float32), 0.0, lax.add, **args)


def test_bad_structure_and_body():
    x = np.zeros((4, 4), np.float32)
    with pytest.raises(ValueError, match="same tree structure"):
        lax.reduce_window((x, x), 0.0, lax.add, (2, 2), (1, 1), "VALID")
    with pytest.raises(TypeError, match="must match"):
        lax.reduce_window(x, np.int32(0), lambda a, b: a + b, (2, 2), (1, 1), "VALID")
    with pytest.raises(TypeError):
        lax.reduce_window(x, np.float32(0), lambda a, b: (a, b), (2, 2), (1, 1), "VALID")


def test_select_and_scatter_add_bad_inputs():
    x = np.zeros((4, 4), np.float32)
    with pytest.raises(ValueError, match="select_prim"):
        lax.select_and_scatter_add(np.zeros((2, 2), np.float32), x, "eq", (2, 2), (2, 2),
                                   "VALID")
    with pytest.raises(TypeError, match="source must have the shape of the windows"):
        lax.select_and_scatter_add(np.zeros((3, 2), np.float32), x, "ge", (2, 2), (2, 2),
                                   "VALID")


def test_empty_windows():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    got = lax.reduce_window(x, -np.inf, lax.max, (5, 1), (1, 1), "VALID")
    assert got.shape == (0, 4)
    got = lax.reduce_window(np.zeros((0, 4), np.float32), 0.0, lax.add, (1, 2), (1, 1), "VALID")
    assert got.shape == (0, 3)
    # A window entirely in padding reduces to the init value.
    got = lax.reduce_window(x, np.float32(7), lambda a, b: a + b, (1, 1), (1, 1),
                            [(0, 0), (2, 0)])
    np.testing.assert_array_equal(np.asarray(got)[:, :2], 14.0)
