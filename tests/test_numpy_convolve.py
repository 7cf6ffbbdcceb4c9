"""jnp.convolve / jnp.correlate against numpy: every mode, both length orders,
integer promotion, complex conjugation, and bad inputs."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

RNG = np.random.default_rng(2)


@pytest.mark.parametrize("fn", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("na, nv", [(7, 3), (3, 7), (5, 5), (1, 4), (6, 2)])
def test_matches_numpy(fn, mode, na, nv):
    a = RNG.standard_normal(na).astype(np.float32)
    v = RNG.standard_normal(nv).astype(np.float32)
    got = getattr(jnp, fn)(a, v, mode)
    want = getattr(np, fn)(a, v, mode)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_jit_and_default_modes():
    a, v = np.arange(6.0, dtype=np.float32), np.array([1.0, -2.0, 0.5], np.float32)
    np.testing.assert_allclose(np.asarray(xjit.jit(jnp.convolve)(a, v)), np.convolve(a, v),
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.correlate(a, v)), np.correlate(a, v), rtol=1e-6)


def test_integers_promote_to_float():
    got = jnp.convolve(np.array([1, 2, 3]), np.array([1, 1]))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(got), [1, 3, 5, 3])
    got = jnp.convolve(np.array([1, 2, 3]), np.array([1, 1]), preferred_element_type=np.int32)
    assert got.dtype == np.int32


def test_complex_correlate_conjugates():
    a = (RNG.standard_normal(5) + 1j * RNG.standard_normal(5)).astype(np.complex64)
    v = (RNG.standard_normal(3) + 1j * RNG.standard_normal(3)).astype(np.complex64)
    for mode in ("full", "same", "valid"):
        np.testing.assert_allclose(np.asarray(jnp.correlate(a, v, mode)),
                                   np.correlate(a, v, mode), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(np.asarray(jnp.correlate(v, a, mode)),
                                   np.correlate(v, a, mode), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("a, v, mode, match", [
    (np.zeros(0), np.ones(2), "full", "inputs cannot be empty"),
    (np.ones(3), np.ones(2), "x", "mode must be one of"),
    (np.ones((3, 2)), np.ones(2), "full", "only support 1-dimensional"),
])
def test_bad_inputs(a, v, mode, match):
    with pytest.raises(ValueError, match=match):
        jnp.convolve(a, v, mode)
