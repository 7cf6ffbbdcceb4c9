"""cumsum/cumprod and diagonal/trace/diag against numpy (eager and jit)."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from numpy_checks import check, random_array

rng = np.random.default_rng(4)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_cumsum_cumprod(axis, dtype):
    a = random_array(rng, (3, 5), dtype, low=1, high=3)
    check(lambda x: jnp.cumsum(x, axis=axis), lambda x: np.cumsum(x, axis=axis), [a],
          dtype=dtype, rtol=1e-6)
    check(lambda x: jnp.cumprod(x, axis=axis), lambda x: np.cumprod(x, axis=axis), [a],
          dtype=dtype, rtol=1e-6)


def test_cumsum_dtypes_follow_jax():
    a = np.array([True, True, False, True])
    check(jnp.cumsum, lambda x: np.cumsum(x).astype(np.int32), [a], dtype=np.int32)
    b = np.arange(1, 40, dtype=np.int8)
    # JAX keeps the integer width (the sums wrap around), as numpy with dtype=int8.
    check(jnp.cumsum, lambda x: np.cumsum(x, dtype=np.int8), [b], dtype=np.int8)
    check(lambda x: jnp.cumsum(x, dtype=jnp.float32), lambda x: np.cumsum(x, dtype=np.float32), [b])
    check(jnp.cumsum, np.cumsum, [np.zeros((0,), np.float32)], dtype=np.float32)


@pytest.mark.parametrize("offset", [0, 1, -1, 3, -4, 6])
def test_diagonal_and_trace(offset):
    a = random_array(rng, (4, 5), np.float32)
    check(lambda x: jnp.diagonal(x, offset), lambda x: np.diagonal(x, offset), [a])
    check(lambda x: jnp.trace(x, offset), lambda x: np.trace(x, offset), [a], rtol=1e-6)


def test_diagonal_of_batched_and_other_axes():
    a = random_array(rng, (2, 3, 4), np.int32)
    check(lambda x: jnp.diagonal(x, 0, 1, 2), lambda x: np.diagonal(x, 0, 1, 2), [a])
    check(lambda x: jnp.diagonal(x, 1, 2, 0), lambda x: np.diagonal(x, 1, 2, 0), [a])
    with pytest.raises(ValueError):
        jnp.diagonal(jnp.zeros(3))


def test_diagonal_is_read_not_summed():
    """A strided slice of the flattened plane: -0.0 and NaN on the diagonal
    stay as they are, bools stay bool, empty diagonals are empty, and the
    gradient and vmap go through the slice."""
    z = np.array([[-0.0, np.nan, 1], [2, -0.0, 3]], np.float32)
    for offset in range(-3, 4):
        got = np.asarray(xjit.jit(lambda x: jnp.diagonal(x, offset))(z))
        want = np.diagonal(z, offset)
        assert got.shape == want.shape
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(got, want)
    b = np.eye(3, 4, 1, dtype=bool)
    got = jnp.diagonal(b, 1)
    assert got.dtype == np.bool_ and np.array_equal(np.asarray(got), np.diagonal(b, 1))
    assert jnp.diagonal(np.zeros((0, 3), np.float32)).shape == (0,)
    g = xjit.grad(lambda x: jnp.sum(jnp.diagonal(x, -1) ** 2))(np.ones((3, 4), np.float32))
    np.testing.assert_array_equal(np.asarray(g), 2 * np.eye(3, 4, -1, dtype=np.float32))
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got = xjit.vmap(lambda x: jnp.diagonal(x, 1))(a)
    np.testing.assert_array_equal(np.asarray(got), np.diagonal(a, 1, 1, 2))


@pytest.mark.parametrize("k", [0, 1, -2])
def test_diag(k):
    v = np.array([1, 2, 3], np.int32)
    check(lambda x: jnp.diag(x, k), lambda x: np.diag(x, k), [v])
    m = random_array(rng, (3, 4), np.float32)
    check(lambda x: jnp.diag(x, k), lambda x: np.diag(x, k), [m])
