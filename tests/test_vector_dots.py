"""Dots with a vector side (matrix @ vector, vector @ matrix, row-wise dot
products, dots of vectors, batched forms): the passes turn them into a
multiply and a sum (passes/dot_strength_reduction.cc). Against numpy in
float64 and float32; halves and integers keep the dot."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from numpy_checks import same_as_reference

RNG = np.random.default_rng(41)

CASES = [
    ("ij,j->i", (300, 200), (200,)),
    ("j,jk->k", (200,), (200, 300)),
    ("ij,ij->i", (300, 200), (300, 200)),
    ("ij,ij->j", (300, 200), (300, 200)),
    ("i,i->", (1000,), (1000,)),
    ("bij,bj->bi", (4, 30, 20), (4, 20)),
    ("ibj,bj->bi", (30, 4, 20), (4, 20)),  # batch dim after the free one
    ("bij,j->bi", (4, 30, 20), (20,)),
    ("ij,i->j", (300, 200), (300,)),
]


@pytest.mark.parametrize("spec,a,b", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_dots_match_numpy(spec, a, b, dtype, x64):
    x = RNG.standard_normal(a).astype(dtype)
    y = RNG.standard_normal(b).astype(dtype)
    got = np.asarray(xjit.jit(lambda p, q: jnp.einsum(spec, p, q))(x, y))
    want = np.einsum(spec, x.astype(np.float64), y.astype(np.float64))
    assert got.dtype == dtype and got.shape == want.shape
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_matmul_forms_and_other_types():
    a = RNG.standard_normal((64, 48)).astype(np.float32)
    v = RNG.standard_normal(48).astype(np.float32)
    w = RNG.standard_normal(64).astype(np.float32)
    np.testing.assert_allclose(np.asarray(xjit.jit(lambda p, q: p @ q)(a, v)), a @ v, rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(np.asarray(xjit.jit(lambda p, q: q @ p)(a, w)), w @ a, rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(np.asarray(xjit.jit(jnp.dot)(v, v)), v @ v, rtol=1e-5)
    ai = (a * 10).astype(np.int32)
    vi = (v * 10).astype(np.int32)
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda p, q: p @ q)(ai, vi)), ai @ vi)
    ab = a.astype(jnp.bfloat16)
    vb = v.astype(jnp.bfloat16)
    got = np.asarray(xjit.jit(lambda p, q: p @ q)(ab, vb)).astype(np.float32)
    want = ab.astype(np.float32) @ vb.astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=2e-2, atol=5e-2)


def test_gradient_through_a_vector_dot():
    a = RNG.standard_normal((30, 20)).astype(np.float32)
    v = RNG.standard_normal(20).astype(np.float32)
    ga, gv = xjit.jit(xjit.grad(lambda p, q: jnp.sum(jnp.tanh(p @ q)), argnums=(0, 1)))(a, v)
    s = 1 - np.tanh(a @ v) ** 2
    np.testing.assert_allclose(np.asarray(ga), np.outer(s, v), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(gv), s @ a, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(2048, 300), (37, 1000), (5000, 17), (1, 64)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scaled_column_sums_keep_the_reference_bits(shape, dtype, x64):
    """v @ x and (v[:, None] * x).sum(0): the column fusion scales each row
    inside the sum (backends/cpu/row_fusion.cc AbsorbRowScaling); the product
    rounded before the add, so the bits are the interpreter's. The product
    also returned, or read twice, keeps its own op."""
    x = RNG.standard_normal(shape).astype(dtype)
    v = RNG.standard_normal(shape[0]).astype(dtype)
    same_as_reference(lambda p, q: p @ q, v, x)
    same_as_reference(lambda p, q: (p[:, None] * q).sum(0), v, x)
    same_as_reference(lambda p, q: ((p[:, None] * q).sum(0), p[:, None] * q), v, x)
    same_as_reference(lambda p, q: (p[:, None] * q).sum(0) + (p[:, None] * q).max(0), v, x)
    np.testing.assert_allclose(np.asarray(xjit.jit(lambda p, q: p @ q)(v, x)),
                               v.astype(np.float64) @ x, rtol=1e-4, atol=1e-4)
