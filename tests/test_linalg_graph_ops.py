"""lax.linalg.cholesky / triangular_solve (the StableHLO graph ops) and what is
built on them alone (jnp.linalg.cholesky, scipy.linalg cholesky, cho_factor,
cho_solve, solve_triangular, block_diag): against numpy/scipy and JAX on cpu
and reference, batched, empty and failing inputs; their JVP/VJP (check_grads
and jax.grad) and vmap; bad inputs."""
import numpy as np
import pytest
import scipy.linalg

import xjit
import xjit.numpy as jnp
from xjit import lax
from xjit.lax import linalg as xlinalg
from xjit.scipy import linalg as xsl
from xjit.test_util import check_grads
from jax_checks import both_x64, jax, need_jax
from linalg_checks import DTYPES, TOL, random_matrices

rand = random_matrices(11)


def spd(shape, dtype):
    m = rand(shape, dtype)
    n = shape[-1]
    return (m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n)).astype(dtype)


def tri(shape, dtype, lower):
    a = rand(shape, dtype)
    n = shape[-1]
    a = a + (n + 2) * np.eye(n, dtype=dtype)
    return np.tril(a) if lower else np.triu(a)


def close(got, want, dtype, scale=1.0):
    tol = TOL[np.dtype(dtype)] * scale
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 5, 5), (2, 2, 3, 3), (0, 2, 2), (0, 0)])
@pytest.mark.parametrize("jitted", [False, True])
def test_cholesky_matches_numpy(dtype, shape, jitted, default_platform, x64):
    a = spd(shape, dtype)
    f = xjit.jit(jnp.linalg.cholesky) if jitted else jnp.linalg.cholesky
    got = f(a)
    assert got.dtype == dtype and got.shape == shape
    close(got, np.linalg.cholesky(a) if a.size else a, dtype)
    up = jnp.linalg.cholesky(a, upper=True)
    close(up, np.conj(np.swapaxes(np.linalg.cholesky(a), -1, -2)) if a.size else a, dtype)


def test_cholesky_failure_is_nan_as_jax(default_platform):
    need_jax()
    a = np.array([[[1., 2.], [2., 1.]], [[4., 2.], [2., 5.]]], np.float32)
    got = np.asarray(xlinalg.cholesky(a))
    want = np.asarray(jax.lax.linalg.cholesky(a))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    c = np.array([[1., 2.], [2., 1.]], np.complex64)
    gc, wc = np.asarray(xlinalg.cholesky(c)), np.asarray(jax.lax.linalg.cholesky(c))
    np.testing.assert_array_equal(np.isnan(gc.real), np.isnan(wc.real))
    np.testing.assert_array_equal(np.isnan(gc.imag), np.isnan(wc.imag))


def test_cholesky_reads_one_triangle_without_symmetrize(x64):
    a = spd((4, 4), np.float64)
    junk = a + np.triu(rand((4, 4), np.float64), 1)
    got = xlinalg.cholesky(junk, symmetrize_input=False)
    np.testing.assert_allclose(np.asarray(got), np.linalg.cholesky(a), rtol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a,conjugate_a", [(False, False), (True, False),
                                                     (True, True), (False, True)])
@pytest.mark.parametrize("unit_diagonal", [False, True])
def test_triangular_solve_matches_jax(dtype, left_side, lower, transpose_a, conjugate_a,
                                      unit_diagonal, x64):
    need_jax()
    a = rand((2, 4, 4), dtype) + 6 * np.eye(4, dtype=dtype)
    b = rand((2, 4, 3) if left_side else (2, 3, 4), dtype)
    kw = dict(left_side=left_side, lower=lower, transpose_a=transpose_a,
              conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    got = xlinalg.triangular_solve(a, b, **kw)
    with both_x64(True):
        want = np.asarray(jax.lax.linalg.triangular_solve(a, b, **kw))
    close(got, want, dtype)


@pytest.mark.parametrize("left_side", [True, False])
def test_triangular_solve_vector_rhs_and_platforms(left_side, default_platform):
    a = tri((3, 5, 5), np.float32, lower=True)
    b = rand((3, 5), np.float32)
    got = np.asarray(xjit.jit(lambda a, b: xlinalg.triangular_solve(
        a, b, left_side=left_side, lower=True))(a, b))
    for i in range(3):
        if left_side:
            want = np.linalg.solve(a[i], b[i])
        else:
            want = np.linalg.solve(a[i].T, b[i])
        np.testing.assert_allclose(got[i], want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_scipy_cholesky_cho_solve(dtype, lower, default_platform, x64):
    a = spd((5, 5), dtype)
    b = rand((5, 2), dtype)
    c = xsl.cholesky(a, lower=lower)
    close(c, scipy.linalg.cholesky(a, lower=lower), dtype)
    cf = xsl.cho_factor(a, lower=lower)
    assert cf[1] == lower
    close(xsl.cho_solve(cf, b), scipy.linalg.cho_solve(scipy.linalg.cho_factor(a, lower=lower),
                                                       b), dtype, 10)
    close(xsl.cho_solve(cf, b[:, 0]), np.linalg.solve(a, b[:, 0]), dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower", [True, False])
def test_solve_triangular_matches_scipy(dtype, trans, lower, x64):
    a = tri((4, 4), dtype, lower)
    b = rand((4, 3), dtype)
    want = scipy.linalg.solve_triangular(a, b, trans=trans, lower=lower)
    close(xsl.solve_triangular(a, b, trans=trans, lower=lower), want, dtype)
    close(xsl.solve_triangular(a, b[:, 1], trans=trans, lower=lower), want[:, 1], dtype)
    wu = scipy.linalg.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=True)
    close(xsl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=True), wu, dtype)


def test_block_diag_matches_scipy():
    a, b, c = np.ones((2, 2)), 2 * np.ones((1, 3)), np.float32(5)
    np.testing.assert_array_equal(np.asarray(xsl.block_diag(a, b, c)),
                                  scipy.linalg.block_diag(a, b, c))
    np.testing.assert_array_equal(np.asarray(xsl.block_diag()), np.zeros((1, 0)))
    np.testing.assert_array_equal(np.asarray(xsl.block_diag(np.arange(3))),
                                  scipy.linalg.block_diag(np.arange(3)))
    with pytest.raises(ValueError, match="at most 2 dimensions"):
        xsl.block_diag(np.ones((1, 1, 1)))


# ---------------------------------------------------------------- transforms

@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_cholesky_check_grads(dtype, x64):
    a = spd((3, 3), dtype)
    check_grads(lambda x: jnp.linalg.cholesky(x), (a,), order=2, modes=("fwd", "rev"),
                atol=1e-6, rtol=1e-6)
    check_grads(lambda x: xlinalg.cholesky(x, symmetrize_input=False), (a,), order=1,
                modes=("fwd", "rev"), atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("transpose_a,conjugate_a", [(False, False), (True, False),
                                                     (True, True)])
def test_triangular_solve_check_grads(dtype, left_side, transpose_a, conjugate_a, x64):
    a = tri((3, 3), dtype, lower=True)
    b = rand((3, 2) if left_side else (2, 3), dtype)
    for unit in (False, True):
        f = lambda a, b: xlinalg.triangular_solve(  # noqa: E731
            a, b, left_side=left_side, lower=True, transpose_a=transpose_a,
            conjugate_a=conjugate_a, unit_diagonal=unit)
        check_grads(f, (a, b), order=2, modes=("fwd", "rev"), atol=1e-6, rtol=1e-6)


def test_cholesky_grad_matches_jax(x64):
    need_jax()
    a = spd((4, 4), np.float64)
    w = rand((4, 4), np.float64)
    f = lambda m, L: (L(m) * w).sum()  # noqa: E731
    got = xjit.grad(lambda m: f(m, jnp.linalg.cholesky))(a)
    with both_x64(True):
        want = jax.grad(lambda m: f(m, jax.numpy.linalg.cholesky))(a)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-8, atol=1e-10)


def test_vmap_matches_batch():
    a = spd((5, 3, 3), np.float32)
    b = rand((5, 3, 2), np.float32)
    got = xjit.vmap(jnp.linalg.cholesky)(a)
    np.testing.assert_allclose(np.asarray(got), np.asarray(jnp.linalg.cholesky(a)), rtol=1e-5)
    solve = lambda l, b: xlinalg.triangular_solve(l, b, left_side=True, lower=True)  # noqa
    l = np.asarray(jnp.linalg.cholesky(a))
    np.testing.assert_allclose(np.asarray(xjit.vmap(solve)(l, b)), np.asarray(solve(l, b)),
                               rtol=1e-5)
    # one operand unbatched
    np.testing.assert_allclose(np.asarray(xjit.vmap(solve, in_axes=(None, 0))(l[0], b)),
                               np.stack([np.asarray(solve(l[0], b[i])) for i in range(5)]),
                               rtol=1e-5)
    # vmap of grad
    g = xjit.vmap(xjit.grad(lambda m: jnp.linalg.cholesky(m).sum()))(a)
    for i in range(5):
        np.testing.assert_allclose(
            np.asarray(g[i]), np.asarray(xjit.grad(lambda m: jnp.linalg.cholesky(m).sum())(a[i])),
            rtol=1e-4, atol=1e-5)


def test_lowered_text_has_the_ops():
    text = xjit.jit(lambda a, b: xlinalg.triangular_solve(
        xlinalg.cholesky(a), b, left_side=True, lower=True)).lower(
        spd((3, 3), np.float32), rand((3, 1), np.float32)).as_text()
    assert "stablehlo.cholesky" in text and "stablehlo.triangular_solve" in text
    assert "#stablehlo<transpose NO_TRANSPOSE>" in text


def test_bad_inputs():
    with pytest.raises(TypeError, match="floating-point or complex"):
        xlinalg.cholesky(np.eye(3, dtype=np.int32))
    with pytest.raises(TypeError, match="square"):
        xlinalg.cholesky(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="at least 2 dimensions"):
        xlinalg.cholesky(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="square matrices"):
        jnp.linalg.cholesky(np.ones((2, 3), np.float32))
    a = np.eye(3, dtype=np.float32)
    with pytest.raises(ValueError, match="incompatible shapes"):
        xlinalg.triangular_solve(a, np.ones((3, 2), np.float32), left_side=False)
    with pytest.raises(ValueError, match="batch dimensions"):
        xlinalg.triangular_solve(np.ones((2, 3, 3), np.float32), np.ones((4, 3, 2), np.float32),
                                 left_side=True)
    with pytest.raises(TypeError, match="same dtype"):
        xlinalg.triangular_solve(a, np.ones((3, 2), np.int32), left_side=True)
    with pytest.raises(TypeError, match="floating-point or complex"):
        xlinalg.triangular_solve(np.eye(3, dtype=np.int32), np.ones((3, 2), np.int32))
    with pytest.raises(ValueError, match="Invalid 'trans'"):
        xsl.solve_triangular(a, np.ones(3, np.float32), trans=3)
    with pytest.raises(ValueError, match="incompatible shapes"):
        xsl.cho_solve((a, True), np.ones(4, np.float32))
