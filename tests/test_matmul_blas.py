"""float64 and complex matrix products on the cpu backend run as BLAS gemm
calls (backends/cpu/blas_gemm.cc): every operand layout dot_general can
present (transposed, batched, batch dims in the middle, unit dims,
vector operands) against the reference backend's own loop, and NaN/inf
propagation."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

RNG = np.random.default_rng(11)


def _rand(shape, dt):
    x = RNG.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dt)


def _on(platform, f, *args):
    xjit.config.update("jax_platform_name", platform)
    try:
        return np.asarray(xjit.jit(f)(*args))
    finally:
        xjit.config.update("jax_platform_name", None)


CASES = [
    ("a @ b", lambda a, b: a @ b, (64, 48), (48, 80)),
    ("a.T @ b", lambda a, b: a.T @ b, (48, 64), (48, 80)),
    ("a @ b.T", lambda a, b: a @ b.T, (64, 48), (80, 48)),
    ("a.T @ b.T", lambda a, b: a.T @ b.T, (48, 64), (80, 48)),
    ("batched", lambda a, b: jnp.einsum("bij,bjk->bik", a, b), (3, 20, 30), (3, 30, 40)),
    ("batched transposed", lambda a, b: jnp.einsum("bji,bkj->bik", a, b), (3, 30, 20), (3, 40, 30)),
    ("batch in the middle", lambda a, b: jnp.einsum("ibj,jbk->bik", a, b), (20, 3, 30), (30, 3, 40)),
    ("row vector", lambda a, b: a @ b, (1, 50), (50, 70)),
    ("column result", lambda a, b: a @ b, (70, 50), (50, 1)),
    ("outer product", lambda a, b: a @ b, (70, 1), (1, 60)),
    ("vector @ matrix", lambda a, b: jnp.dot(a, b), (50,), (50, 40)),
    ("matrix @ vector", lambda a, b: jnp.dot(a, b), (40, 50), (50,)),
    ("contract two dims", lambda a, b: jnp.tensordot(a, b, axes=([1, 2], [0, 1])), (6, 5, 4), (5, 4, 7)),
    ("large", lambda a, b: a @ b, (200, 300), (300, 100)),
]


@pytest.fixture(autouse=True)
def _x64():
    xjit.config.update("jax_enable_x64", True)
    yield
    xjit.config.update("jax_enable_x64", False)


@pytest.mark.parametrize("dt", [np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("name,f,sa,sb", CASES, ids=[c[0] for c in CASES])
def test_blas_gemm_matches_reference(dt, name, f, sa, sb):
    a, b = _rand(sa, dt), _rand(sb, dt)
    got, want = _on("cpu", f, a, b), _on("reference", f, a, b)
    assert got.dtype == want.dtype == np.dtype(dt) and got.shape == want.shape
    tol = 2e-5 if dt == np.complex64 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 10)


def test_blas_gemm_matches_numpy_float64():
    a, b = _rand((130, 70), np.float64), _rand((70, 90), np.float64)
    np.testing.assert_allclose(_on("cpu", lambda x, y: x @ y, a, b), a @ b, rtol=1e-12,
                               atol=1e-12)


def test_blas_gemm_propagates_nan_and_inf():
    a, b = _rand((8, 6), np.float64), _rand((6, 5), np.float64)
    a[2, 3] = np.nan
    a[5, 0] = np.inf
    b[:, 4] = 0.0  # inf * 0 is NaN too
    got = _on("cpu", lambda x, y: x @ y, a, b)
    want = _on("reference", lambda x, y: x @ y, a, b)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    assert np.isnan(got[2]).all() and np.isnan(got[5, 4])


def test_blas_gemm_empty_contraction_is_zero():
    a, b = np.zeros((4, 0)), np.zeros((0, 3))
    np.testing.assert_array_equal(_on("cpu", lambda x, y: x @ y, a, b), np.zeros((4, 3)))


F32_BLAS_CASES = [
    # PreferBlasForF32's shapes (sgemm where oneDNN's gemm:jit is slower) and
    # neighbours that stay on oneDNN; results must agree either way.
    ("rhs row of 512", lambda a, b: a @ b, (64, 256), (256, 512)),
    ("lhs column-major 512", lambda a, b: a.T @ b, (128, 512), (128, 256)),
    ("batched rhs row of 1024", lambda a, b: jnp.einsum("bij,bjk->bik", a, b), (2, 80, 256),
     (2, 256, 1024)),
    ("tiny M stays on oneDNN", lambda a, b: a @ b, (3, 256), (256, 512)),
    ("rhs transposed stays on oneDNN", lambda a, b: a @ b.T, (64, 256), (512, 256)),
]


@pytest.mark.parametrize("name,f,sa,sb", F32_BLAS_CASES, ids=[c[0] for c in F32_BLAS_CASES])
def test_float32_products_agree_with_float64_numpy(name, f, sa, sb):
    a = RNG.standard_normal(sa).astype(np.float32)
    b = RNG.standard_normal(sb).astype(np.float32)
    got = _on("cpu", f, a, b)
    want = np.asarray(f(jnp.asarray(a.astype(np.float64)), jnp.asarray(b.astype(np.float64))))
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
