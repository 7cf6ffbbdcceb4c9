"""Eager xjit.numpy calls through jit's C++ fast path (eager_fast_path.py)
behave like the op-by-op path: same values, dtypes and weak types, the same
errors, and arrays of another platform stay there."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp


def test_values_dtypes_and_weak_types():
    x = jnp.arange(6.0).reshape(2, 3)
    assert jnp.add(x, 1).dtype == np.float32
    y = jnp.multiply(2.0, 3.0)
    assert y.weak_type and float(y) == 6.0
    np.testing.assert_allclose(np.asarray(jnp.sum(x, 1)), [3.0, 12.0])
    np.testing.assert_allclose(np.asarray(jnp.mean(x, axis=0, keepdims=True)), [[1.5, 2.5, 3.5]])
    assert jnp.argmax(x, axis=1).dtype == np.int32
    np.testing.assert_allclose(np.asarray(jnp.sum(x, axis=[0, 1])), 15.0)  # list axis: eager


def test_python_ints_are_checked_against_the_dtype():
    small = np.array([5], np.uint8)
    with pytest.raises(OverflowError, match="-3"):
        jnp.greater(small, -3)            # found by the API fuzzer (seed 1)
    with pytest.raises(OverflowError):
        jnp.add(np.array([1], np.int8), 300)
    assert bool(jnp.greater(small, 3)[0])
    assert jnp.add(small, 1).dtype == np.uint8


def test_errors_are_the_eager_ones():
    with pytest.raises(TypeError, match="add"):
        jnp.add("a", 1)
    with pytest.raises(ValueError):
        jnp.add(np.ones(3), np.ones(4))


def test_other_platform_arrays_stay_there():
    ref = xjit.devices("reference")[0]
    x = xjit.device_put(np.ones(3, np.float32), ref)
    out = x + x
    assert out.device == ref
    assert jnp.sum(x).device == ref
