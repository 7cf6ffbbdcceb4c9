"""lax functions composed of the core ops (lax/extras.py) against numpy, and
against JAX when it is installed, with their bad inputs."""
import numpy as np
import pytest

import xjit
from xjit import lax
from jax_checks import need_jax

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def test_shapes_and_products():
    b = np.ones((2, 4, 5), np.float32)
    np.testing.assert_array_equal(np.asarray(lax.batch_matmul(A, b)), A @ b)
    assert lax.broadcast_to_rank(A[0], 4).shape == (1, 1, 3, 4)
    assert lax.collapse(A, 1).shape == (2, 12) and lax.collapse(A, 0, 2).shape == (6, 4)
    parts = lax.split(np.arange(6), (2, 4))
    assert [np.asarray(p).tolist() for p in parts] == [[0, 1], [2, 3, 4, 5]]
    np.testing.assert_array_equal(np.asarray(lax.tile(A[0], (2, 1))), np.tile(A[0], (2, 1)))
    np.testing.assert_array_equal(np.asarray(lax.tile(A[0, 0], (2, 3))), np.tile(A[0, 0], (2, 3)))
    for i, p in enumerate(lax.unstack(A, 1)):
        np.testing.assert_array_equal(np.asarray(p), A[:, i])
    assert lax.broadcast_shapes((2, 1), (1, 3)) == (2, 3)
    assert lax.empty(np.float32).dtype == np.float32
    got = lax.index_take(A, (np.array([0, 1]), np.array([2, 0])), (0, 1))
    np.testing.assert_array_equal(np.asarray(got), A[[0, 1], [2, 0]])
    with pytest.raises(ValueError, match="sum to the dimension"):
        lax.split(np.arange(6), (2, 3))
    with pytest.raises(ValueError, match="equal rank"):
        lax.batch_matmul(A, A[0])


def test_top_k_family_reduce_xor_nextafter_bessel():
    vals, idx = lax.approx_max_k(A, 2)
    np.testing.assert_array_equal(np.asarray(vals), np.sort(A, -1)[..., ::-1][..., :2])
    vals, idx = lax.approx_min_k(A, 2)
    np.testing.assert_array_equal(np.asarray(vals), np.sort(A, -1)[..., :2])
    np.testing.assert_array_equal(np.asarray(idx), np.argsort(A, -1)[..., :2])
    x = np.array([[1, 2], [4, 7]], np.int32)
    np.testing.assert_array_equal(np.asarray(lax.reduce_xor(x, (1,))), [3, 3])
    np.testing.assert_array_equal(np.asarray(lax.nextafter(np.float32([1, 0]), np.float32([2, -1]))),
                                  np.nextafter(np.float32([1, 0]), np.float32([2, -1])))
    import scipy.special as ss
    v = np.float32([0.0, 0.5, -3.0, 30.0])
    np.testing.assert_allclose(np.asarray(lax.bessel_i0e(v)), ss.i0e(v), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(lax.bessel_i1e(v)), ss.i1e(v), rtol=1e-6, atol=1e-7)
    with pytest.raises(TypeError, match="boolean or integer"):
        lax.reduce_xor(A, (0,))


def test_precision_types_and_platform_dependent():
    assert lax.Precision("highest") is lax.Precision.HIGHEST
    assert str(lax.Precision.HIGH) == "HIGH"
    out = lax.dot(A[0], np.ones((4, 2), np.float32), precision=lax.Precision.HIGHEST)
    np.testing.assert_array_equal(np.asarray(out), A[0] @ np.ones((4, 2)))
    out = lax.dot_general(A[0], np.ones((4, 2), np.float32), (((1,), (0,)), ((), ())),
                          precision=lax.DotAlgorithmPreset.F32_F32_F32)
    assert out.shape == (3, 2)
    f = xjit.jit(lambda x: lax.platform_dependent(x, cpu=lambda v: v + 1, default=lambda v: v - 1))
    assert float(f(1.0)) == 2.0
    with pytest.raises(NotImplementedError, match="no branch"):
        lax.platform_dependent(1.0, tpu=lambda v: v)


def test_against_jax():
    jax = need_jax()
    b = np.ones((2, 4, 5), np.float32)
    for name, args in (("batch_matmul", (A, b)), ("collapse", (A, 1)), ("tile", (A[0], (2, 1))),
                       ("approx_max_k", (A, 2)), ("approx_min_k", (A, 2))):
        got = xjit.tree_util.tree_leaves(getattr(lax, name)(*args))
        want = jax.tree_util.tree_leaves(getattr(jax.lax, name)(*args))
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
