"""Element-wise fusions reading a row or column vector spread over a matrix
(backends/cpu/jit_region.h: InputSpread): the generated kernel runs a row at
a time with the vector read in place. Checked against numpy, with rows that
parallel chunks split, rows that keep streamed outputs aligned and rows too
short for the generated kernel."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

RNG = np.random.default_rng(33)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("rows,cols", [(97, 1000), (2048, 2048), (64, 256), (300, 100), (40, 4096)])
def test_row_and_column_vectors(rows, cols):
    x, b, w = f32(rows, cols), f32(cols), f32(rows)
    f = lambda x, b, w: jnp.tanh(x * b[None, :] + w[:, None]) - b  # noqa: E731
    got = np.asarray(xjit.jit(f)(x, b, w))
    want = np.tanh(x.astype(np.float64) * b[None, :] + w[:, None]) - b
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_normalised_columns_and_rows():
    x = f32(512, 768)
    got = np.asarray(xjit.jit(lambda x: x / jnp.linalg.norm(x, axis=0))(x))
    np.testing.assert_allclose(got, x / np.linalg.norm(x, axis=0), rtol=1e-5, atol=1e-6)
    got = np.asarray(xjit.jit(lambda x: x - x.mean(axis=1, keepdims=True))(x))
    np.testing.assert_allclose(got, x - x.mean(axis=1, keepdims=True), rtol=1e-5, atol=1e-5)


def test_bfloat16_vector():
    x, b = f32(128, 512).astype(jnp.bfloat16), f32(512).astype(jnp.bfloat16)
    got = np.asarray(xjit.jit(lambda x, b: (x * b) * 2)(x, b), np.float32)
    want = np.asarray((x * b) * 2, np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-2)
