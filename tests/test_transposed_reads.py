"""Transposes read in place by their consumer's generated kernel (backends/
cpu/operand_reads.h TransposeRead: x.T + y, transpose(0, 2, 1), NCHW <->
NHWC feeding element-wise work), staged a block of rows at a time; and pure
transposes, copied a band of rows or of columns at a time
(transpose_tiles.h). Against numpy, bit for bit (the ops are exact or the
same kernels), and the reference backend."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from numpy_checks import same_as_reference

RNG = np.random.default_rng(41)

CASES = [  # operand shape, permutation
    ((2048, 512), (1, 0)),
    ((300, 259), (1, 0)),
    ((100, 1000), (1, 0)),  # rows of 100: copied first
    ((3, 300, 50), (0, 2, 1)),
    ((4, 64, 300), (0, 2, 1)),
    ((2, 300, 16, 16), (0, 2, 3, 1)),  # NCHW -> NHWC
    ((2, 16, 16, 300), (0, 3, 1, 2)),  # NHWC -> NCHW
    ((16, 20, 300), (2, 0, 1)),
    ((1, 300, 1, 500), (3, 2, 0, 1)),
    ((8, 40, 8, 64), (0, 2, 1, 3)),  # the minor dim stays: copied
]


@pytest.mark.parametrize("shape,perm", CASES)
def test_transpose_feeding_elementwise(shape, perm):
    x = RNG.standard_normal(shape).astype(np.float32)
    y = RNG.standard_normal(np.transpose(x, perm).shape).astype(np.float32)
    want = np.transpose(x, perm) * 2 + y
    got = xjit.jit(lambda a, b: a.transpose(perm) * 2 + b)(x, y)
    np.testing.assert_array_equal(np.asarray(got), want)
    lone = xjit.jit(lambda a, b: a.transpose(perm) - b)(x, y)
    np.testing.assert_array_equal(np.asarray(lone), np.transpose(x, perm) - y)
    same_as_reference(lambda a, b: jnp.tanh(a.transpose(perm)) * b, x, y)


@pytest.mark.parametrize("shape,perm", CASES)
def test_pure_transposes(shape, perm):
    for dtype in (np.float32, np.float64, np.int8):
        x = (RNG.standard_normal(shape) * 50).astype(dtype)
        got = xjit.jit(lambda a: jnp.transpose(a, perm))(x)
        np.testing.assert_array_equal(np.asarray(got), np.transpose(x.astype(got.dtype), perm))


def test_symmetrised_two_transposes_and_a_returned_transpose():
    x = RNG.standard_normal((700, 700)).astype(np.float32)
    z = RNG.standard_normal((700, 700)).astype(np.float32)
    got = xjit.jit(lambda a: (a + a.T) * 0.5)(x)
    np.testing.assert_array_equal(np.asarray(got), (x + x.T) * np.float32(0.5))
    got = xjit.jit(lambda a, b: a.T * b.T + a)(x, z)
    np.testing.assert_array_equal(np.asarray(got), x.T * z.T + x)
    t, s = xjit.jit(lambda a: (a.T, a.T + 1))(x)
    np.testing.assert_array_equal(np.asarray(t), x.T)
    np.testing.assert_array_equal(np.asarray(s), x.T + np.float32(1))


def test_transposes_of_other_types_and_a_donated_operand():
    i = RNG.integers(-1000, 1000, (512, 300)).astype(np.int32)
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda a: a.T * 3 + 1)(i)), i.T * 3 + 1)
    b = RNG.standard_normal((512, 300)).astype(jnp.bfloat16)
    same_as_reference(lambda a: a.T * 2 + 1, b)
    x = RNG.standard_normal((512, 512)).astype(np.float32)
    got = xjit.jit(lambda a: a.T + 1, donate_argnums=0)(xjit.device_put(x))
    np.testing.assert_array_equal(np.asarray(got), x.T + np.float32(1))


def test_transposed_gradients():
    w = RNG.standard_normal((300, 400)).astype(np.float32)
    g = xjit.grad(lambda a: jnp.sum(jnp.sin(a.T) * jnp.arange(300.0)))(w)
    want = (np.cos(w.T) * np.arange(300.0, dtype=np.float32)).T
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-5)
