"""Gathers of one element per position through one indexed dim
(take_along_axis; backends/cpu/gather.cc ElementGatherThunk): against numpy
and the reference backend, along every axis, with negative and out-of-range
indices (JAX's modes), batch dims of several sizes, odd element widths."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

RNG = np.random.default_rng(31)


@pytest.mark.parametrize("shape,axis", [((512, 512), 0), ((512, 300), 1), ((7, 9, 11), 1),
                                        ((3, 4, 5, 6), 3), ((1000,), 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.complex64, np.int16])
def test_take_along_axis(shape, axis, dtype):
    x = (RNG.standard_normal(shape) * 100).astype(dtype)
    idx = RNG.integers(-shape[axis], shape[axis], shape).astype(np.int32)
    got = np.asarray(xjit.jit(lambda a, i: jnp.take_along_axis(a, i, axis=axis))(x, idx))
    np.testing.assert_array_equal(got, np.take_along_axis(x, idx % shape[axis], axis=axis))


def test_broadcast_indices_and_out_of_range():
    x = RNG.standard_normal((300, 200)).astype(np.float32)
    idx = RNG.integers(-400, 400, (300, 1)).astype(np.int32)
    for mode in ("clip", "fill"):
        f = lambda a, i: jnp.take_along_axis(a, i, axis=0, mode=mode)  # noqa: E731
        got = np.asarray(xjit.jit(f)(x, idx))
        want = np.asarray(xjit.jit(f, backend="reference")(x, idx))
        np.testing.assert_array_equal(got, want)


def test_inverse_through_the_permutation_gather():
    a = RNG.standard_normal((300, 300)).astype(np.float32) + np.eye(300, dtype=np.float32) * 20
    got = np.asarray(xjit.jit(jnp.linalg.inv)(a))
    np.testing.assert_allclose(got @ a, np.eye(300), atol=2e-4)


@pytest.mark.parametrize("shape", [(2048, 300), (5, 7, 64), (1, 9)])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.complex64])
def test_column_gathers(shape, dtype):
    """x[..., idx] and take(x, idx, axis=-1): GatherColumnsThunk, row by row."""
    x = (RNG.standard_normal(shape) * 100).astype(dtype)
    c = shape[-1]
    idx = RNG.integers(-c, c, 37).astype(np.int32)
    got = np.asarray(xjit.jit(lambda a, i: a[..., i])(x, idx))
    np.testing.assert_array_equal(got, x[..., idx])
    for mode in ("clip", "fill"):
        wild = RNG.integers(-2 * c, 2 * c, 37).astype(np.int32)
        f = lambda a, i: jnp.take(a, i, axis=-1, mode=mode)  # noqa: E731
        np.testing.assert_array_equal(np.asarray(xjit.jit(f)(x, wild)),
                                      np.asarray(xjit.jit(f, backend="reference")(x, wild)))
