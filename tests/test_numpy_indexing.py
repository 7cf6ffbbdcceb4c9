"""x[idx] on xjit arrays against numpy: basic and advanced indexing, eager and jit."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit._src.numpy.indexing import getitem
from numpy_checks import assert_close

A = np.arange(60, dtype=np.float32).reshape(3, 4, 5)

BASIC = [
    0, -1, 2, (1, 2), (-1, -2, -3), slice(None), slice(1, None), slice(None, None, -1),
    slice(None, None, 2), slice(-2, None), (slice(None), 1), (Ellipsis, 2), (0, Ellipsis, 1),
    (slice(None, None, -2), slice(3, 0, -1)), (None,), (None, 0, None, slice(1, 3)),
    (Ellipsis, None), (slice(5, 10),), (slice(2, 1),), (slice(None), slice(None), slice(4, None, -3)),
    (1, slice(None), None, -1), (),
]


@pytest.mark.parametrize("idx", BASIC, ids=repr)
def test_basic_indexing(idx):
    x = jnp.asarray(A)
    assert_close(getitem(x, idx), A[idx])
    assert_close(x[idx], A[idx])
    assert_close(xjit.jit(lambda v: v[idx])(x), A[idx])


@pytest.mark.parametrize("idx", [3, -4, (0, 4), (0, 0, 5), (0, 0, 0, 0)], ids=repr)
def test_out_of_range_int_raises_index_error(idx):
    with pytest.raises(IndexError):
        getitem(jnp.asarray(A), idx)


def test_two_ellipses_and_bad_index_type():
    with pytest.raises(IndexError):
        getitem(jnp.asarray(A), (Ellipsis, Ellipsis))
    with pytest.raises(TypeError):
        getitem(jnp.asarray(A), "a")
    with pytest.raises(IndexError):
        getitem(jnp.asarray(A), np.array([0.5]))


ADVANCED = [
    np.array([0, 2]), np.array([[0, 1], [2, -1]]), (slice(None), np.array([3, 0, 3])),
    (np.array([0, 1]), np.array([1, 2])), (np.array([0, 1]), slice(None), np.array([4, 0])),
    (1, np.array([0, 3])), (np.array([2]), 3, slice(1, 3)), (Ellipsis, np.array([1, 1, 0])),
    [0, 2], (slice(None), [1, 2], [0, 4]),
]


@pytest.mark.parametrize("idx", ADVANCED, ids=repr)
def test_integer_array_indexing(idx):
    x = jnp.asarray(A)
    want = A[tuple(idx) if isinstance(idx, tuple) else idx]
    assert_close(getitem(x, idx), want)
    if not isinstance(idx, list):
        assert_close(xjit.jit(lambda v: v[idx])(x), want)


def test_traced_integer_indices():
    x = jnp.asarray(A)
    assert_close(xjit.jit(lambda v, i: v[i])(x, 2), A[2])
    assert_close(xjit.jit(lambda v, i: v[:, i])(x, jnp.asarray(np.array([3, -1]))), A[:, [3, -1]])


def test_boolean_mask_indexing():
    x = jnp.asarray(A[0])
    mask = A[0] > 7
    assert_close(x[mask], A[0][mask])
    row_mask = np.array([True, False, True, False])
    assert_close(x[row_mask, 1:3], A[0][row_mask, 1:3])


def test_traced_boolean_mask_raises():
    with pytest.raises(TypeError):
        xjit.jit(lambda v: v[v > 3])(jnp.asarray(A[0]))


@pytest.mark.parametrize("dtype", [np.int8, np.bool_, np.complex64])
def test_indexing_other_dtypes(dtype):
    a = (np.arange(12) % 3).astype(dtype).reshape(3, 4)
    x = jnp.asarray(a)
    assert_close(x[1:, ::-1], a[1:, ::-1])
    assert_close(x[np.array([2, 0])], a[[2, 0]])


def test_take_nonzero_argwhere():
    a = np.array([10, 0, 30, 0], np.int32)
    assert_close(jnp.take(jnp.asarray(a), jnp.asarray(np.array([2, 0]))), a[[2, 0]])
    (nz,) = jnp.nonzero(jnp.asarray(a))
    assert_close(nz, np.nonzero(a)[0].astype(np.int32))
    assert_close(jnp.argwhere(jnp.asarray(a)), np.argwhere(a).astype(np.int32))
