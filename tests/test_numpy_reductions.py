"""xjit.numpy reductions against numpy: axes, keepdims, dtypes (JAX's rules), errors."""
import numpy as np
import pytest

import xjit.numpy as jnp
from numpy_checks import BF16, assert_close, check, eager_and_jit, random_array

rng = np.random.default_rng(1)

AXES = [None, 0, 1, -1, (0, 2), (), (-1, -3)]


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("fn,np_fn", [(jnp.sum, np.sum), (jnp.prod, np.prod),
                                      (jnp.max, np.max), (jnp.min, np.min),
                                      (jnp.amax, np.amax), (jnp.amin, np.amin),
                                      (jnp.mean, np.mean)])
def test_float_reductions(fn, np_fn, axis, keepdims):
    a = random_array(rng, (2, 3, 4), np.float32, low=0.5, high=1.5)
    check(lambda x: fn(x, axis=axis, keepdims=keepdims),
          lambda x: np_fn(x, axis=axis, keepdims=keepdims), [a], dtype=np.float32, rtol=1e-5)


@pytest.mark.parametrize("dtype,want", [(np.int8, np.int32), (np.int16, np.int32),
                                        (np.int32, np.int32), (np.uint8, np.uint32),
                                        (np.bool_, np.int32), (np.float16, np.float16),
                                        (BF16, BF16)])
def test_sum_dtypes_follow_jax(dtype, want):
    a = random_array(rng, (3, 4), dtype, low=0, high=3)
    expected = np.sum(np.asarray(a).astype(np.float64), axis=0)
    for out in eager_and_jit(lambda x: jnp.sum(x, axis=0), jnp.asarray(a)):
        assert_close(out, expected, dtype=want)


def test_sum_with_dtype_argument_and_prod_of_int8():
    a = np.arange(1, 6, dtype=np.int8)
    check(lambda x: jnp.sum(x, dtype=jnp.float32), lambda x: np.sum(x, dtype=np.float32), [a])
    check(jnp.prod, lambda x: np.prod(x.astype(np.int32)), [a], dtype=np.int32)


def test_sum_initial_and_where():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    w = np.array([True, False, True])
    check(lambda x: jnp.sum(x, axis=1, initial=10.0), lambda x: np.sum(x, axis=1, initial=10.0),
          [a], dtype=np.float32)
    check(lambda x: jnp.sum(x, axis=1, where=w), lambda x: np.sum(x, axis=1, where=w),
          [a], dtype=np.float32)
    check(lambda x: jnp.max(x, axis=1, where=w, initial=-1.0),
          lambda x: np.max(x, axis=1, where=w, initial=-1.0), [a], dtype=np.float32)
    check(lambda x: jnp.mean(x, axis=1, where=w), lambda x: np.mean(x, axis=1, where=w),
          [a], dtype=np.float32)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int8, np.float16, np.bool_])
def test_max_min_keep_dtype(dtype):
    a = random_array(rng, (4, 5), dtype)
    check(lambda x: jnp.max(x, axis=1), lambda x: np.max(x, axis=1), [a], dtype=dtype)
    check(lambda x: jnp.min(x, axis=0), lambda x: np.min(x, axis=0), [a], dtype=dtype)


def test_max_propagates_nan():
    a = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]], np.float32)
    check(lambda x: jnp.max(x, axis=1), lambda x: np.max(x, axis=1), [a], dtype=np.float32)


@pytest.mark.parametrize("dtype,want", [(np.int32, np.float32), (np.int8, np.float32),
                                        (np.bool_, np.float32), (np.float16, np.float16),
                                        (np.float32, np.float32)])
def test_mean_dtypes(dtype, want):
    a = random_array(rng, (3, 4), dtype, low=0, high=5)
    expected = np.mean(np.asarray(a).astype(np.float64), axis=1)
    for out in eager_and_jit(lambda x: jnp.mean(x, axis=1), jnp.asarray(a)):
        assert_close(out, expected, dtype=want, rtol=2e-3 if want == np.float16 else 1e-6)


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("ddof", [0, 1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_var_std(axis, ddof, keepdims):
    a = random_array(rng, (4, 5), np.float32)
    check(lambda x: jnp.var(x, axis=axis, ddof=ddof, keepdims=keepdims),
          lambda x: np.var(x, axis=axis, ddof=ddof, keepdims=keepdims), [a], dtype=np.float32,
          rtol=1e-5)
    check(lambda x: jnp.std(x, axis=axis, ddof=ddof, keepdims=keepdims),
          lambda x: np.std(x, axis=axis, ddof=ddof, keepdims=keepdims), [a], dtype=np.float32,
          rtol=1e-5)


def test_var_of_ints_and_complex():
    a = np.array([1, 2, 3, 10], np.int32)
    check(jnp.var, np.var, [a], dtype=np.float32, rtol=1e-6)
    z = np.array([1 + 1j, 2 - 1j, -1j], np.complex64)
    check(jnp.var, np.var, [z], dtype=np.float32, rtol=1e-6)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("fn,np_fn", [(jnp.argmax, np.argmax), (jnp.argmin, np.argmin)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.bool_])
def test_argmax_argmin(fn, np_fn, axis, dtype):
    a = random_array(rng, (4, 6), dtype, low=0, high=4)   # ties: first occurrence wins
    check(lambda x: fn(x, axis=axis), lambda x: np_fn(x, axis=axis), [a], dtype=np.int32)


def test_argmax_keepdims():
    a = random_array(rng, (3, 4), np.float32)
    check(lambda x: jnp.argmax(x, axis=1, keepdims=True),
          lambda x: np.argmax(x, axis=1, keepdims=True), [a], dtype=np.int32)


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.float32])
def test_any_all(axis, keepdims, dtype):
    a = random_array(rng, (3, 4), dtype, low=0, high=2)
    check(lambda x: jnp.any(x, axis=axis, keepdims=keepdims),
          lambda x: np.any(x, axis=axis, keepdims=keepdims), [a], dtype=np.bool_)
    check(lambda x: jnp.all(x, axis=axis, keepdims=keepdims),
          lambda x: np.all(x, axis=axis, keepdims=keepdims), [a], dtype=np.bool_)


def test_count_nonzero_and_ptp():
    a = np.array([[0, 1, 5], [2, 0, 0]], np.int32)
    check(lambda x: jnp.count_nonzero(x, axis=1), lambda x: np.count_nonzero(x, axis=1), [a],
          dtype=np.int32)
    check(lambda x: jnp.ptp(x, axis=0), lambda x: np.ptp(x, axis=0), [a], dtype=np.int32)


def test_bad_axis_raises_axis_error():
    x = jnp.zeros((2, 3))
    with pytest.raises(ValueError):
        jnp.sum(x, axis=2)
    with pytest.raises(ValueError):
        jnp.mean(x, axis=-3)
    with pytest.raises(ValueError):
        jnp.argmax(x, axis=5)
    with pytest.raises(ValueError):
        jnp.sum(x, axis=(0, 0))


def test_empty_max_raises():
    with pytest.raises(ValueError):
        jnp.max(jnp.zeros((0, 3)), axis=0)
    with pytest.raises(ValueError):
        jnp.argmax(jnp.zeros((0,)))


def test_sum_of_empty_is_zero():
    check(lambda x: jnp.sum(x, axis=0), lambda x: np.sum(x, axis=0),
          [np.zeros((0, 3), np.float32)], dtype=np.float32)


def test_array_methods_delegate_to_reductions():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = jnp.asarray(a)
    assert_close(x.sum(axis=0), a.sum(axis=0))
    assert_close(x.mean(), np.float32(a.mean()))
    assert_close(x.max(axis=1), a.max(axis=1))
