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


@pytest.mark.parametrize("shape", [(300, 200), (7, 9, 11), (2, 3, 4, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.float64])
def test_points_through_every_dim(shape, dtype, x64):
    """x[r, c, ...] with an integer array per dim: a gather of single elements
    that the passes rewrite to the flattened array at r * stride + c + ...
    (passes/gather_linearization.cc), negative indices counted from the end."""
    x = (RNG.standard_normal(shape) * 100).astype(dtype)
    idx = tuple(RNG.integers(-n, n, 1000).astype(np.int32) for n in shape)
    got = np.asarray(xjit.jit(lambda a, *i: a[i])(x, *idx))
    np.testing.assert_array_equal(got, x[idx])
    # int64 indices, and one dim given by a scalar.
    wide = tuple(i.astype(np.int64) for i in idx)
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda a, *i: a[i])(x, *wide)), x[idx])
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda a, i: a[i, 1])(x, idx[0])),
                                  x[idx[0], 1])


def test_points_out_of_range_clamp_like_the_reference():
    """Out-of-range points: the gather clamps each index to its dim (JAX's
    default for retrieval), which the flattened form keeps dim by dim."""
    x = RNG.standard_normal((50, 40)).astype(np.float32)
    r = RNG.integers(-120, 120, 5000).astype(np.int32)
    c = RNG.integers(-120, 120, 5000).astype(np.int32)
    f = lambda a, i, j: a[i, j]  # noqa: E731
    got = np.asarray(xjit.jit(f)(x, r, c))
    np.testing.assert_array_equal(got, np.asarray(xjit.jit(f, backend="reference")(x, r, c)))
    rr = np.clip(np.where(r < 0, r + 50, r), 0, 49)
    cc = np.clip(np.where(c < 0, c + 40, c), 0, 39)
    np.testing.assert_array_equal(got, x[rr, cc])
    g = lambda a, i, j: a.at[i, j].get(mode="fill", fill_value=-1.0)  # noqa: E731
    inside = (r >= -50) & (r < 50) & (c >= -40) & (c < 40)
    np.testing.assert_array_equal(np.asarray(xjit.jit(g)(x, r, c)), np.where(inside, x[rr, cc], -1))


@pytest.mark.parametrize("shape,ishape,axis", [((300, 200), (150, 1), 0), ((300, 200), (1, 77), 1),
                                               ((6, 40, 5), (1, 33, 1), 1),
                                               ((6, 40, 5), (6, 1, 5), 1)])
def test_spread_indices_read_whole_windows(shape, ishape, axis):
    """take_along_axis with indices of size 1 off the axis: the passes read
    the spread dims as whole windows (passes/spread_index_gather.cc; a row
    gather for x[p] written as take_along_axis), in range, negative and
    outside, in each mode; indices spread over some batch dims only keep the
    element gather."""
    x = RNG.standard_normal(shape).astype(np.float32)
    n = shape[axis]
    idx = RNG.integers(-n, n, ishape).astype(np.int32)
    got = np.asarray(xjit.jit(lambda a, i: jnp.take_along_axis(a, i, axis=axis))(x, idx))
    np.testing.assert_array_equal(got, np.take_along_axis(x, idx % n, axis=axis))
    wild = RNG.integers(-2 * n, 2 * n, ishape).astype(np.int32)
    for mode in ("clip", "fill"):
        f = lambda a, i: jnp.take_along_axis(a, i, axis=axis, mode=mode)  # noqa: E731
        np.testing.assert_array_equal(np.asarray(xjit.jit(f)(x, wild)),
                                      np.asarray(xjit.jit(f, backend="reference")(x, wild)))
