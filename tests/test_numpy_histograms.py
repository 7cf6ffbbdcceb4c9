"""jnp.bincount, digitize, histogram*, ravel_multi_index and unravel_index
against numpy (values, eager and jit) and JAX (dtypes, JAX-only semantics and
error types)."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from jax_checks import check_like_jax, jax
from numpy_checks import assert_close

rng = np.random.default_rng(17)
INTS = rng.integers(0, 12, 50).astype(np.int32)
FLOATS = rng.normal(size=200).astype(np.float32)


def _jax_np():
    return jax.numpy if jax is not None else None


# --- bincount --------------------------------------------------------------

@pytest.mark.parametrize("minlength", [0, 5, 20])
def test_bincount_against_numpy(minlength):
    assert_close(jnp.bincount(INTS, minlength=minlength),
                 np.bincount(INTS, minlength=minlength).astype(np.int32))
    w = rng.normal(size=INTS.shape).astype(np.float32)
    assert_close(jnp.bincount(INTS, w, minlength), np.bincount(INTS, w, minlength).astype(np.float32),
                 rtol=1e-5)


def test_bincount_jit_with_length_clips_and_drops():
    x = np.array([-1, -1, 1, 3, 10], np.int32)
    f = xjit.jit(jnp.bincount, static_argnames=["length"])
    assert_close(f(x, length=5), np.array([2, 1, 0, 1, 0], np.int32))
    assert_close(jnp.bincount(np.array([True, False, True])), np.array([1, 2], np.int32))
    assert_close(jnp.bincount(np.zeros(0, np.int32)), np.zeros(0, np.int32))


def test_bincount_like_jax():
    jnp_j = _jax_np()
    if jnp_j is None:
        pytest.skip("jax is not installed")
    w = rng.integers(0, 5, INTS.shape).astype(np.int32)
    check_like_jax(lambda x, w: jnp.bincount(x, w, length=15),
                   lambda x, w: jnp_j.bincount(x, w, length=15), (INTS, w))
    check_like_jax(lambda x: jnp.bincount(x, length=3), lambda x: jnp_j.bincount(x, length=3),
                   (INTS,))


def test_bincount_bad_inputs():
    with pytest.raises(TypeError, match="integer type"):
        jnp.bincount(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="1-dimensional"):
        jnp.bincount(np.ones((2, 2), np.int32))
    with pytest.raises(ValueError, match="weights"):
        jnp.bincount(INTS, np.ones(3, np.float32))
    with pytest.raises(xjit.errors.ConcretizationTypeError):
        xjit.jit(jnp.bincount)(INTS)
    with pytest.raises(ValueError, match="minlength"):
        jnp.bincount(INTS, minlength=-1)


# --- digitize --------------------------------------------------------------

@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("bins", [np.array([1., 2., 3.]), np.array([3., 2., 1.]),
                                  np.array([-1., 0., 0., 2.]), np.array([0.5])])
def test_digitize_against_numpy(bins, right):
    x = np.array([0.0, 1.0, 2.0, 2.5, 1.5, 3.0, 3.5, -2.0, 0.0], np.float32)
    want = np.digitize(x, bins, right=right).astype(np.int32)
    assert_close(jnp.digitize(x, bins, right=right), want)
    assert_close(xjit.jit(lambda a, b: jnp.digitize(a, b, right=right))(x, bins), want)


def test_digitize_empty_bins_and_errors():
    assert_close(jnp.digitize(np.ones((2, 3), np.float32), np.zeros(0, np.float32)),
                 np.zeros((2, 3), np.int32))
    with pytest.raises(ValueError, match="1-dimensional"):
        jnp.digitize(np.ones(3), np.ones((2, 2)))
    with pytest.raises(TypeError):
        jnp.digitize("abc", np.ones(3))


# --- histogram ---------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"bins": 7}, {"bins": 4, "range": (-1.0, 1.0)},
                                    {"bins": np.array([-3., -1., 0., 0.5, 3.])},
                                    {"bins": 5, "density": True}])
def test_histogram_against_numpy(kwargs):
    counts, edges = jnp.histogram(FLOATS, **kwargs)
    want_counts, want_edges = np.histogram(FLOATS, **kwargs)
    assert_close(edges, want_edges.astype(np.float32), rtol=1e-6)
    assert_close(counts, want_counts.astype(np.float32), rtol=1e-5)
    jit_counts, _ = xjit.jit(lambda a: jnp.histogram(a, **kwargs))(FLOATS)
    assert_close(jit_counts, want_counts.astype(np.float32), rtol=1e-5)


def test_histogram_weights_constant_data_and_int_input():
    w = rng.uniform(size=FLOATS.shape).astype(np.float32)
    c, _ = jnp.histogram(FLOATS, bins=6, weights=w)
    assert_close(c, np.histogram(FLOATS, bins=6, weights=w)[0].astype(np.float32), rtol=1e-5)
    c, e = jnp.histogram(np.full(5, 2.0, np.float32), bins=2)
    wc, we = np.histogram(np.full(5, 2.0, np.float32), bins=2)
    assert_close(c, wc.astype(np.float32))
    assert_close(e, we.astype(np.float32))
    c, e = jnp.histogram(INTS, bins=3)
    assert c.dtype == np.float32 and e.dtype == np.float32
    assert_close(c, np.histogram(INTS, bins=3)[0].astype(np.float32))


def test_histogram_like_jax():
    jnp_j = _jax_np()
    if jnp_j is None:
        pytest.skip("jax is not installed")
    check_like_jax(lambda a: jnp.histogram(a, bins=6), lambda a: jnp_j.histogram(a, bins=6),
                   (FLOATS,), rtol=1e-6)
    check_like_jax(lambda a: jnp.histogram_bin_edges(a, 4, (0, 2)),
                   lambda a: jnp_j.histogram_bin_edges(a, 4, (0, 2)), (FLOATS,))


def test_histogram_bad_inputs():
    with pytest.raises(NotImplementedError):
        jnp.histogram(FLOATS, bins="auto")
    with pytest.raises(ValueError, match="same shape"):
        jnp.histogram(FLOATS, weights=np.ones(3, np.float32))
    with pytest.raises(ValueError, match="range"):
        jnp.histogram(FLOATS, bins=3, range=(0.0, 1.0, 2.0))
    with pytest.raises(xjit.errors.ConcretizationTypeError):
        xjit.jit(lambda a, b: jnp.histogram(a, bins=b))(FLOATS, 3)


# --- histogram2d / histogramdd ----------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"bins": 4}, {"bins": (3, 5)},
                                    {"bins": 4, "range": [(-1, 1), (-2, 2)]},
                                    {"bins": [np.array([-2., 0., 2.]), 3]},
                                    {"bins": 3, "density": True}])
def test_histogram2d_against_numpy(kwargs):
    x, y = FLOATS[:100], FLOATS[100:]
    h, ex, ey = jnp.histogram2d(x, y, **kwargs)
    wh, wex, wey = np.histogram2d(x, y, **kwargs)
    # Unweighted counts are integers, as in JAX (numpy gives floats).
    assert_close(h, wh.astype(np.float32 if kwargs.get("density") else np.int32), rtol=1e-5)
    assert_close(ex, wex.astype(np.float32), rtol=1e-6)
    assert_close(ey, wey.astype(np.float32), rtol=1e-6)


def test_histogramdd_against_numpy_and_weights():
    pts = rng.normal(size=(60, 3)).astype(np.float32)
    w = rng.uniform(size=60).astype(np.float32)
    h, edges = jnp.histogramdd(pts, bins=(2, 3, 4), weights=w)
    wh, wedges = np.histogramdd(pts, bins=(2, 3, 4), weights=w)
    assert_close(h, wh.astype(np.float32), rtol=1e-5)
    for e, we in zip(edges, wedges):
        assert_close(e, we.astype(np.float32), rtol=1e-6)
    h = xjit.jit(lambda p: jnp.histogramdd(p, bins=3, density=True)[0])(pts)
    assert_close(h, np.histogramdd(pts, bins=3, density=True)[0].astype(np.float32), rtol=1e-5)


def test_histogramdd_bad_inputs():
    pts = np.zeros((4, 2), np.float32)
    with pytest.raises(ValueError, match="bin for each dimension"):
        jnp.histogramdd(pts, bins=[2, 2, 2])
    with pytest.raises(ValueError, match="range must be"):
        jnp.histogramdd(pts, range=[(0, 1)])
    with pytest.raises(ValueError, match="one weight for each sample"):
        jnp.histogramdd(pts, weights=np.ones(3))
    with pytest.raises(ValueError, match=r"\(N, D\)"):
        jnp.histogramdd(np.zeros(4, np.float32))


# --- ravel_multi_index / unravel_index ----------------------------------------

@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("mode", ["wrap", "clip"])
def test_ravel_multi_index_against_numpy(mode, order):
    idx = (np.array([0, 1, 3, -1], np.int32), np.array([2, 0, 5, 1], np.int32))
    want = np.ravel_multi_index(idx, (3, 4), mode=mode, order=order).astype(np.int32)
    assert_close(jnp.ravel_multi_index(idx, (3, 4), mode=mode, order=order), want)
    f = xjit.jit(lambda a, b: jnp.ravel_multi_index((a, b), (3, 4), mode=mode, order=order))
    assert_close(f(*idx), want)


def test_ravel_multi_index_raise_mode():
    good = (np.array([0, 2]), np.array([3, 1]))
    assert_close(jnp.ravel_multi_index(good, (3, 4)), np.array([3, 9], np.int32))
    with pytest.raises(ValueError, match="invalid entry"):
        jnp.ravel_multi_index((np.array([3]), np.array([0])), (3, 4))
    with pytest.raises(xjit.errors.ConcretizationTypeError):
        xjit.jit(lambda a, b: jnp.ravel_multi_index((a, b), (3, 4)))(*good)
    with pytest.raises(TypeError, match="int indices"):
        jnp.ravel_multi_index((np.array([0.5]), np.array([0])), (3, 4))
    with pytest.raises(ValueError, match="invalid mode"):
        jnp.ravel_multi_index(good, (3, 4), mode="bogus")


def test_unravel_index_against_numpy_and_jax():
    flat = np.array([0, 5, 11, 7], np.int32)
    for got, want in zip(jnp.unravel_index(flat, (3, 4)), np.unravel_index(flat, (3, 4))):
        assert_close(got, want.astype(np.int32))
    jnp_j = _jax_np()
    if jnp_j is None:
        pytest.skip("jax is not installed")
    odd = np.array([-1, -12, -13, 12, 40], np.int32)  # JAX: negative wrap, out of bounds clip
    check_like_jax(lambda i: jnp.unravel_index(i, (3, 4)),
                   lambda i: jnp_j.unravel_index(i, (3, 4)), (odd,))
    assert_close(jnp.unravel_index(np.uint8(7), 5)[0], np.array(4, np.uint8))
    with pytest.raises(TypeError):
        jnp.unravel_index(np.array([1.5]), (3,))
