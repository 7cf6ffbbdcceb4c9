"""xjit.numpy shape manipulation against numpy (eager and jit) and its errors."""
import numpy as np
import pytest

import xjit.numpy as jnp
from numpy_checks import BF16, check, random_array

rng = np.random.default_rng(2)


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.bool_, BF16, np.complex64])
def test_reshape_and_ravel(dtype):
    a = random_array(rng, (2, 3, 4), dtype)
    check(lambda x: jnp.reshape(x, (6, -1)), lambda x: np.reshape(x, (6, -1)), [a], dtype=dtype)
    check(lambda x: jnp.reshape(x, (4, 3, 2), order="F"),
          lambda x: np.reshape(x, (4, 3, 2), order="F"), [a], dtype=dtype)
    check(jnp.ravel, np.ravel, [a], dtype=dtype)
    check(lambda x: x.reshape(24), lambda x: x.reshape(24), [a], dtype=dtype)


def test_reshape_errors():
    x = jnp.zeros((2, 3))
    with pytest.raises(TypeError):
        jnp.reshape(x, (4, 2))
    with pytest.raises(ValueError):
        jnp.reshape(x, (-1, -1))


@pytest.mark.parametrize("axes", [None, (1, 0, 2), (2, 0, 1), (-1, 0, 1)])
def test_transpose(axes):
    a = random_array(rng, (2, 3, 4), np.float32)
    check(lambda x: jnp.transpose(x, axes), lambda x: np.transpose(x, axes), [a])


def test_transpose_bad_axes():
    with pytest.raises(ValueError):
        jnp.transpose(jnp.zeros((2, 3)), (0, 0))
    with pytest.raises(ValueError):
        jnp.transpose(jnp.zeros((2, 3)), (0, 2))


def test_swapaxes_moveaxis_matrix_transpose():
    a = random_array(rng, (2, 3, 4), np.int32)
    check(lambda x: jnp.swapaxes(x, 0, -1), lambda x: np.swapaxes(x, 0, -1), [a])
    check(lambda x: jnp.moveaxis(x, 0, -1), lambda x: np.moveaxis(x, 0, -1), [a])
    check(lambda x: jnp.moveaxis(x, (0, 1), (2, 0)), lambda x: np.moveaxis(x, (0, 1), (2, 0)), [a])
    check(jnp.matrix_transpose, lambda x: np.swapaxes(x, -1, -2), [a])


def test_squeeze_expand_dims():
    a = random_array(rng, (1, 3, 1, 2), np.float32)
    check(jnp.squeeze, np.squeeze, [a])
    check(lambda x: jnp.squeeze(x, axis=2), lambda x: np.squeeze(x, axis=2), [a])
    check(lambda x: jnp.squeeze(x, axis=(0, -2)), lambda x: np.squeeze(x, axis=(0, -2)), [a])
    check(lambda x: jnp.expand_dims(x, 1), lambda x: np.expand_dims(x, 1), [a])
    check(lambda x: jnp.expand_dims(x, (0, -1)), lambda x: np.expand_dims(x, (0, -1)), [a])
    with pytest.raises(ValueError):
        jnp.squeeze(jnp.asarray(a), axis=1)
    with pytest.raises(ValueError):
        jnp.expand_dims(jnp.asarray(a), 7)


def test_broadcast_to_and_arrays():
    a = random_array(rng, (3, 1), np.float32)
    check(lambda x: jnp.broadcast_to(x, (2, 3, 4)), lambda x: np.broadcast_to(x, (2, 3, 4)), [a])
    b = random_array(rng, (4,), np.int32)
    outs = jnp.broadcast_arrays(jnp.asarray(a), jnp.asarray(b))
    exp = np.broadcast_arrays(a, b)
    for o, e in zip(outs, exp):
        np.testing.assert_array_equal(np.asarray(o), e)
    assert jnp.broadcast_shapes((2, 1), (1, 3)) == (2, 3)
    with pytest.raises(ValueError):
        jnp.broadcast_to(jnp.asarray(a), (2, 2))


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_concatenate(axis):
    a = random_array(rng, (2, 3), np.float32)
    b = random_array(rng, (2, 3), np.float32)
    check(lambda x, y: jnp.concatenate([x, y], axis=axis),
          lambda x, y: np.concatenate([x, y], axis=axis), [a, b])


def test_concatenate_promotes_and_errors():
    a = np.arange(3, dtype=np.int8)
    b = np.arange(2, dtype=np.float16)
    check(lambda x, y: jnp.concatenate([x, y]), lambda x, y: np.concatenate([x, y]).astype(np.float16),
          [a, b], dtype=np.float16)
    with pytest.raises(ValueError):
        jnp.concatenate([jnp.zeros((2, 3)), jnp.zeros((3, 2))], axis=0)
    with pytest.raises(ValueError):
        jnp.concatenate([jnp.zeros((2, 3)), jnp.zeros(3)])
    with pytest.raises(ValueError):
        jnp.concatenate([jnp.zeros((2, 3))], axis=2)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack(axis):
    a = random_array(rng, (2, 3), np.int32)
    b = random_array(rng, (2, 3), np.int32)
    check(lambda x, y: jnp.stack([x, y], axis=axis), lambda x, y: np.stack([x, y], axis=axis), [a, b])


def test_stack_shape_mismatch():
    with pytest.raises(ValueError):
        jnp.stack([jnp.zeros(2), jnp.zeros(3)])


def test_hstack_vstack_dstack_column_stack():
    a, b = np.arange(3, dtype=np.float32), np.arange(3, 6, dtype=np.float32)
    for fn, np_fn in [(jnp.hstack, np.hstack), (jnp.vstack, np.vstack), (jnp.dstack, np.dstack),
                      (jnp.column_stack, np.column_stack)]:
        check(lambda x, y: fn([x, y]), lambda x, y: np_fn([x, y]), [a, b])
    m = np.ones((2, 2), np.float32)
    check(lambda x, y: jnp.hstack([x, y]), lambda x, y: np.hstack([x, y]), [m, m])


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
def test_flip(axis):
    a = random_array(rng, (3, 4), np.float32)
    check(lambda x: jnp.flip(x, axis), lambda x: np.flip(x, axis), [a])
    check(jnp.fliplr, np.fliplr, [a])
    check(jnp.flipud, np.flipud, [a])


def test_split():
    a = np.arange(12, dtype=np.int32).reshape(6, 2)
    for got, want in zip(jnp.split(jnp.asarray(a), 3), np.split(a, 3)):
        np.testing.assert_array_equal(np.asarray(got), want)
    for got, want in zip(jnp.split(jnp.asarray(a), [1, 4], axis=0), np.split(a, [1, 4], axis=0)):
        np.testing.assert_array_equal(np.asarray(got), want)
    for got, want in zip(jnp.array_split(jnp.asarray(a), 4), np.array_split(a, 4)):
        np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(ValueError):
        jnp.split(jnp.asarray(a), 4)


def test_atleast():
    assert jnp.atleast_1d(1.0).shape == (1,)
    assert jnp.atleast_2d(jnp.zeros(3)).shape == (1, 3)
    assert jnp.atleast_3d(jnp.zeros((2, 3))).shape == (2, 3, 1)


def test_shape_ndim_size_astype():
    x = jnp.zeros((2, 3))
    assert jnp.shape(x) == (2, 3) and jnp.ndim(x) == 2 and jnp.size(x) == 6
    assert jnp.size(x, 1) == 3 and jnp.ndim(1.0) == 0
    a = np.array([1.7, -2.2], np.float32)
    check(lambda v: jnp.astype(v, jnp.int32), lambda v: v.astype(np.int32), [a], dtype=np.int32)
    check(lambda v: v.astype(jnp.bfloat16), lambda v: v, [a], dtype=BF16)


def test_result_type_promote_types_can_cast():
    assert jnp.result_type(jnp.int8, 1.0) == np.float32
    assert jnp.result_type(jnp.uint8, jnp.int8) == np.int16
    assert jnp.promote_types(jnp.bfloat16, jnp.float16) == np.float32
    assert jnp.can_cast(jnp.int8, jnp.int32)
    assert not jnp.can_cast(jnp.float32, jnp.int32)
    assert jnp.isscalar(1.0) and not jnp.isscalar(jnp.zeros(2))


@pytest.mark.parametrize("repeats,axis", [(2, None), (3, 0), (2, 1), ([1, 0, 2], 1), (0, 0)])
def test_repeat(repeats, axis):
    a = random_array(rng, (2, 3), np.int32)
    check(lambda x: jnp.repeat(x, repeats, axis=axis), lambda x: np.repeat(x, repeats, axis=axis), [a])


@pytest.mark.parametrize("reps", [2, (2, 1), (1, 3), (2, 1, 2)])
def test_tile(reps):
    a = random_array(rng, (2, 3), np.float32)
    check(lambda x: jnp.tile(x, reps), lambda x: np.tile(x, reps), [a])
