"""roll, select, piecewise, diff, gradient, repeat, tile, tril/triu against numpy
(values, eager and jit) and JAX (dtypes, weak types, errors)."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from jax_checks import BF16, check_like_jax, jax, need_jax
from numpy_checks import assert_close, check

rng = np.random.default_rng(13)


# ------------------------------------------------------------------------------ roll

@pytest.mark.parametrize("shift,axis", [(2, None), (-3, None), (13, None), (1, 0), (-1, 1),
                                        ((1, 2), (0, 1)), ((1, -4), (1, 1)), (5, (0, 1)),
                                        (0, 0), ((2,), None)])
def test_roll_static(shift, axis):
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    check(lambda v: jnp.roll(v, shift, axis), lambda v: np.roll(v, shift, axis), [x])


@pytest.mark.parametrize("shift,axis", [(3, None), (-7, 1), (np.array([1, -2]), (0, 1)),
                                        (np.array([5]), 0), (0, 1), (123456, None)])
def test_roll_traced_shift(shift, axis):
    x = np.arange(30, dtype=np.float32).reshape(5, 6)
    want = np.roll(x, tuple(np.atleast_1d(shift)) if np.ndim(shift) else shift, axis)
    got = xjit.jit(lambda v, s: jnp.roll(v, s, axis))(x, jnp.asarray(shift))
    assert_close(got, want)


def test_roll_matches_jax_and_errors():
    need_jax()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    check_like_jax(lambda v: jnp.roll(v, 1), lambda v: jax.numpy.roll(v, 1), (x,))
    check_like_jax(lambda v: jnp.roll(v, 1, 2), lambda v: jax.numpy.roll(v, 1, 2), (x,))
    with pytest.raises(TypeError):
        jnp.roll(x, 1.5)
    with pytest.raises(ValueError):
        xjit.jit(lambda v, s: jnp.roll(v, s, (0, 1)))(x, jnp.ones((2, 2), jnp.int32))
    assert_close(jnp.roll(np.zeros((0, 3), np.float32), 2, 0), np.zeros((0, 3), np.float32))


# -------------------------------------------------------------------- select, piecewise

def test_select_against_numpy_and_jax():
    x = np.arange(-3, 5, dtype=np.int32)
    check(lambda v: jnp.select([v < 0, v > 2], [v * 10, v * 100], 7),
          lambda v: np.select([v < 0, v > 2], [v * 10, v * 100], 7), [x])
    check(lambda v: jnp.select([v < 0, v < 2], [v, -v]),
          lambda v: np.select([v < 0, v < 2], [v, -v]), [x])
    need_jax()
    f = np.linspace(-2, 2, 9).astype(np.float32)
    check_like_jax(lambda v: jnp.select([v > 1, v > 0], [v, 2 * v], 7.5),
                   lambda v: jax.numpy.select([v > 1, v > 0], [v, 2 * v], 7.5), (f,))
    check_like_jax(lambda v: jnp.select([v > 0], [1.0]),
                   lambda v: jax.numpy.select([v > 0], [1.0]), (f,))
    check_like_jax(lambda v: jnp.select([v], [v + 1]),
                   lambda v: jax.numpy.select([v], [v + 1]), (f,))  # non-bool condition
    check_like_jax(lambda v: jnp.select([v > 0], [np.float16(2)], np.int8(1)),
                   lambda v: jax.numpy.select([v > 0], [np.float16(2)], np.int8(1)), (f,))
    with pytest.raises(ValueError):
        jnp.select([f > 0, f > 1], [f])
    with pytest.raises(ValueError):
        jnp.select([], [])
    with pytest.raises(TypeError):
        jnp.select([[True, False]], [f[:2]])


def test_piecewise_against_numpy_and_jax():
    x = np.linspace(-3, 3, 13).astype(np.float32)
    funcs = [lambda v: -v, lambda v: v ** 2, 0.5]
    check(lambda v: jnp.piecewise(v, [v < -1, v > 1], funcs),
          lambda v: np.piecewise(v, [v < -1, v > 1], funcs), [x])
    check(lambda v: jnp.piecewise(v, [v < 0, v > -1], [1.0, 2.0]),   # overlap: last wins
          lambda v: np.piecewise(v, [v < 0, v > -1], [1.0, 2.0]), [x])
    need_jax()
    xi = np.arange(-2, 4, dtype=np.int32)
    check_like_jax(lambda v: jnp.piecewise(v, [v > 0, v > 2], [lambda u: u * 1.5, 7, 3]),
                   lambda v: jax.numpy.piecewise(v, [v > 0, v > 2], [lambda u: u * 1.5, 7, 3]),
                   (xi,))
    check_like_jax(lambda v: jnp.piecewise(v, [True], [lambda u: u * 1.5, 7]),
                   lambda v: jax.numpy.piecewise(v, [True], [lambda u: u * 1.5, 7]), (2.0,))
    check_like_jax(lambda v, s: jnp.piecewise(v, [v > 0], [lambda u, t: u * t], s),
                   lambda v, s: jax.numpy.piecewise(v, [v > 0], [lambda u, t: u * t], s),
                   (x, np.float32(3)))
    with pytest.raises(ValueError):
        jnp.piecewise(x, [x > 0], [1, 2, 3])


# ------------------------------------------------------------------------- diff, gradient

@pytest.mark.parametrize("n,axis", [(1, -1), (2, 0), (3, 1), (0, 0), (5, -1)])
def test_diff(n, axis):
    x = rng.integers(-20, 20, (4, 5)).astype(np.int32)
    check(lambda v: jnp.diff(v, n, axis), lambda v: np.diff(v, n, axis), [x])
    f = rng.normal(size=(4, 5)).astype(np.float32)
    check(lambda v: jnp.diff(v, n, axis), lambda v: np.diff(v, n, axis), [f], rtol=1e-5)


def test_diff_prepend_append_and_types():
    x = np.array([1.0, 4.0, 9.0], np.float32)
    check(lambda v: jnp.diff(v, prepend=0.0, append=np.array([20.0, 30.0], np.float32)),
          lambda v: np.diff(v, prepend=0.0, append=np.array([20.0, 30.0], np.float32)), [x],
          dtype=np.float32)
    m = np.arange(6, dtype=np.int32).reshape(2, 3)
    check(lambda v: jnp.diff(v, axis=0, prepend=np.zeros((1, 3), np.int32), append=5),
          lambda v: np.diff(v, axis=0, prepend=np.zeros((1, 3), np.int32), append=5), [m],
          dtype=np.int32)
    need_jax()
    for a in (np.array([True, False, False, True]), np.array([1, 2, 4], np.int8),
              np.array([1, 2, 4], np.uint8), np.array([1, 2.5], BF16), 1.0):
        check_like_jax(jnp.diff, jax.numpy.diff, (a,))
    check_like_jax(lambda v: jnp.diff(v, prepend=1.5), lambda v: jax.numpy.diff(v, prepend=1.5),
                   (np.array([1, 2, 4], np.int32),))
    with pytest.raises(ValueError):
        jnp.diff(x, -1)
    with pytest.raises(TypeError):
        jnp.diff(x, 1.5)
    with pytest.raises(TypeError):
        xjit.jit(lambda v, k: jnp.diff(v, k))(x, 1)


@pytest.mark.parametrize("edge_order", [None, 1, 2])
def test_gradient(edge_order):
    kw = {} if edge_order is None else {"edge_order": edge_order}
    f1 = (np.arange(7, dtype=np.float32) ** 2)
    check(lambda v: jnp.gradient(v, **kw), lambda v: np.gradient(v, **kw), [f1], rtol=1e-5)
    check(lambda v: jnp.gradient(v, 0.5, **kw), lambda v: np.gradient(v, 0.5, **kw), [f1],
          rtol=1e-5)
    coords = np.array([0.0, 0.5, 1.5, 1.75, 3.0, 4.0, 6.0], np.float32)
    check(lambda v, c: jnp.gradient(v, c, **kw), lambda v, c: np.gradient(v, c, **kw),
          [f1, coords], rtol=1e-4, atol=1e-4)
    f2 = rng.normal(size=(4, 6)).astype(np.float32)
    for got, want in zip(jnp.gradient(f2, 2.0, np.arange(6.0) ** 1.5, **kw),
                         np.gradient(f2, 2.0, np.arange(6.0) ** 1.5, **kw)):
        assert_close(got, want.astype(np.float32), rtol=1e-4, atol=1e-4)
    check(lambda v: jnp.gradient(v, axis=1, **kw), lambda v: np.gradient(v, axis=1, **kw),
          [f2], rtol=1e-5)
    for got, want in zip(xjit.jit(lambda v: jnp.gradient(v, axis=(0, -1), **kw))(f2),
                         np.gradient(f2, axis=(0, -1), **kw)):
        assert_close(got, want, rtol=1e-5)


def test_gradient_types_and_errors():
    need_jax()
    check_like_jax(jnp.gradient, jax.numpy.gradient, (np.array([1, 2, 4, 7], np.int32),))
    check_like_jax(jnp.gradient, jax.numpy.gradient, (np.array([1, 2, 4], np.float16),))
    check_like_jax(lambda v, h: jnp.gradient(v, h), lambda v, h: jax.numpy.gradient(v, h),
                   (np.array([1., 2, 4, 7], np.float32), np.array([0., 1, 3, 4], np.float32)))
    with pytest.raises(ValueError):
        jnp.gradient(np.ones(1))
    with pytest.raises(ValueError):
        jnp.gradient(np.ones(2), edge_order=2)
    with pytest.raises(ValueError):
        jnp.gradient(np.ones(4), edge_order=3)
    with pytest.raises(ValueError):
        jnp.gradient(np.ones(4), np.ones(3))
    with pytest.raises(TypeError):
        jnp.gradient(np.ones((3, 3)), 1.0, 2.0, 3.0)


# ------------------------------------------------------------------- repeat, tile, tri

@pytest.mark.parametrize("repeats,axis,total", [
    (2, None, None), (3, 1, None), (np.array([1, 0, 2]), 1, None), (np.array([2, 1]), 0, None),
    (np.array([3, 0, 1]), 1, 3), (np.array([1, 2, 0]), 1, 6), (2, None, 5), (0, 0, None),
    (np.array([1, 1, 1, 0, 2, 1]), None, 4), (np.array([1, 1, 1, 0, 2, 1]), None, 0)])
def test_repeat_matches_jax(repeats, axis, total):
    need_jax()
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    kw = {} if total is None else {"total_repeat_length": total}
    check_like_jax(lambda v: jnp.repeat(v, repeats, axis, **kw),
                   lambda v: jax.numpy.repeat(v, repeats, axis, **kw), (x,), jit=True)
    if total is not None and np.ndim(repeats):
        # Traced repeats: only the total length is static.
        want = jax.numpy.repeat(x, repeats, axis, **kw)
        got = xjit.jit(lambda v, r: jnp.repeat(v, r, axis, **kw))(x, jnp.asarray(repeats))
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_repeat_errors():
    x = np.arange(3)
    with pytest.raises(xjit.errors.ConcretizationTypeError):
        xjit.jit(lambda v, r: jnp.repeat(v, r))(x, jnp.array([1, 2, 3]))
    with pytest.raises(ValueError):
        jnp.repeat(x, np.array([1, -1, 2]))
    with pytest.raises(ValueError):
        jnp.repeat(x, np.array([1, 2]))
    with pytest.raises(TypeError):
        jnp.repeat(x, 1.5)
    assert_close(jnp.repeat(2.5, 3), np.repeat(np.float32(2.5), 3))


@pytest.mark.parametrize("reps", [2, (2, 1), (1, 3, 2), (0, 2), ()])
def test_tile(reps):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    check(lambda v: jnp.tile(v, reps), lambda v: np.tile(v, reps), [x])


@pytest.mark.parametrize("k", [0, 1, -1, 5])
def test_tril_triu(k):
    x = rng.normal(size=(2, 3, 4)).astype(np.float32)
    check(lambda v: jnp.tril(v, k), lambda v: np.tril(v, k), [x])
    check(lambda v: jnp.triu(v, k), lambda v: np.triu(v, k), [x])
    need_jax()
    check_like_jax(lambda v: jnp.tril(v, k), lambda v: jax.numpy.tril(v, k),
                   (np.ones((3, 3), np.int8),))
    check_like_jax(lambda v: jnp.triu(v, k), lambda v: jax.numpy.triu(v, k), (np.ones(3),))
