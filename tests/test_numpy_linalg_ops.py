"""matmul, dot, vdot, inner, outer, tensordot against numpy (eager and jit)."""
import numpy as np
import pytest

import xjit.numpy as jnp
from numpy_checks import BF16, check, eager_and_jit, random_array

rng = np.random.default_rng(3)


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
                                    ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
                                    ((5, 2, 3), (5, 3, 4)), ((2, 1, 2, 3), (4, 3, 2)),
                                    ((3,), (2, 3, 4))])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_matmul(shapes, dtype):
    a = random_array(rng, shapes[0], dtype)
    b = random_array(rng, shapes[1], dtype)
    check(jnp.matmul, np.matmul, [a, b], dtype=dtype, rtol=1e-5, atol=1e-4)
    check(lambda x, y: x @ y, np.matmul, [a, b], dtype=dtype, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.complex64])
def test_matmul_other_dtypes(dtype):
    a = random_array(rng, (3, 4), dtype, low=-1, high=1)
    b = random_array(rng, (4, 2), dtype, low=-1, high=1)
    check(jnp.matmul, np.matmul, [a, b], dtype=dtype, rtol=5e-2 if dtype == BF16 else 5e-3,
          atol=5e-2 if dtype == BF16 else 5e-3)


def test_matmul_promotes():
    a = jnp.asarray(random_array(rng, (2, 3), np.int8))
    b = jnp.asarray(random_array(rng, (3, 2), np.float16))
    for out in eager_and_jit(jnp.matmul, a, b):
        assert out.dtype == np.float16


def test_matmul_errors():
    with pytest.raises(TypeError):
        jnp.matmul(jnp.zeros((2, 3)), jnp.zeros((4, 2)))
    with pytest.raises(ValueError):
        jnp.matmul(jnp.zeros((2, 2, 3)), jnp.zeros((3, 3, 2)))
    with pytest.raises(ValueError):
        jnp.matmul(jnp.zeros(()), jnp.zeros(3))


@pytest.mark.parametrize("shapes", [((), (3,)), ((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)),
                                    ((2, 2, 3), (4, 3, 5))])
def test_dot(shapes):
    a = random_array(rng, shapes[0], np.float32)
    b = random_array(rng, shapes[1], np.float32)
    check(jnp.dot, np.dot, [a, b], dtype=np.float32, rtol=1e-5, atol=1e-4)


def test_vdot_inner_outer_tensordot():
    z = random_array(rng, (2, 3), np.complex64)
    check(jnp.vdot, np.vdot, [z, z], dtype=np.complex64, rtol=1e-5, atol=1e-4)
    a = random_array(rng, (2, 3), np.float32)
    b = random_array(rng, (4, 3), np.float32)
    check(jnp.inner, np.inner, [a, b], dtype=np.float32, rtol=1e-5, atol=1e-4)
    check(jnp.outer, np.outer, [a, b], dtype=np.float32, rtol=1e-6)
    c = random_array(rng, (3, 4, 5), np.float32)
    d = random_array(rng, (4, 5, 2), np.float32)
    check(jnp.tensordot, np.tensordot, [c, d], dtype=np.float32, rtol=1e-5, atol=1e-4)
    check(lambda x, y: jnp.tensordot(x, y, axes=([1], [0])),
          lambda x, y: np.tensordot(x, y, axes=([1], [0])), [c, d], dtype=np.float32,
          rtol=1e-5, atol=1e-4)
    with pytest.raises(TypeError):
        jnp.tensordot(jnp.asarray(c), jnp.asarray(d), axes=([0], [0]))


def test_bool_matmul():
    a = random_array(rng, (3, 4), np.bool_)
    b = random_array(rng, (4, 2), np.bool_)
    check(jnp.matmul, np.matmul, [a, b], dtype=np.bool_)
