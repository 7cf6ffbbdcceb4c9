"""xjit.numpy.linalg, xjit.scipy.linalg and xjit.lax.linalg on the LAPACK
custom calls: against numpy/scipy (and JAX) for float32/float64/complex64/
complex128, batched, empty, singular and ill-conditioned inputs; JVP/VJP
(check_grads, jax.grad) and vmap; bad inputs."""
import numpy as np
import pytest
import scipy.linalg

import xjit
import xjit.numpy as jnp
from xjit.lax import linalg as xlinalg
from xjit.scipy import linalg as xsl
from xjit.test_util import check_grads
from jax_checks import both_x64, jax, need_jax
from linalg_checks import DTYPES, TOL, random_matrices

rand = random_matrices(12)


def well(shape, dtype):
    return (rand(shape, dtype) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def herm(shape, dtype):
    m = rand(shape, dtype)
    return ((m + np.conj(np.swapaxes(m, -1, -2))) / 2).astype(dtype)


def close(got, want, dtype, scale=1.0):
    tol = TOL[np.dtype(dtype)] * scale
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


def H(x):
    return np.conj(np.swapaxes(x, -1, -2))


SHAPES = [(4, 4), (2, 3, 3), (1, 1), (0, 3, 3)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_solve_inv_det_slogdet(dtype, shape, default_platform, x64):
    a = well(shape, dtype)
    b = rand(shape[:-1] + (2,), dtype)
    close(jnp.linalg.solve(a, b), np.linalg.solve(a, b), dtype, 10)
    close(jnp.linalg.inv(a), np.linalg.inv(a), dtype, 10)
    close(jnp.linalg.det(a), np.linalg.det(a), dtype, 10 * shape[-1])
    s, l = jnp.linalg.slogdet(a)
    ws, wl = np.linalg.slogdet(a)
    close(s, ws, dtype, 10)
    close(l, wl, dtype, 10)
    if len(shape) == 2:
        close(jnp.linalg.solve(a, b[:, 0]), np.linalg.solve(a, b[:, 0]), dtype, 10)


def test_solve_broadcasts_batches():
    a = well((3, 1, 4, 4), np.float32)
    b = rand((2, 4, 5), np.float32)
    close(jnp.linalg.solve(a, b), np.linalg.solve(a, b), np.float32, 10)


def test_singular_matrices(x64):
    a = np.array([[1., 2.], [2., 4.]])
    assert float(jnp.linalg.det(a)) == 0.0
    s, l = jnp.linalg.slogdet(a)
    assert float(s) == 0.0 and float(l) == -np.inf
    x = np.asarray(jnp.linalg.solve(a, np.ones(2)))
    assert not np.all(np.isfinite(x))  # as JAX: LU of a singular matrix divides by zero
    assert int(jnp.linalg.matrix_rank(a)) == 1
    assert np.isinf(float(jnp.linalg.cond(a, 1)))


def test_ill_conditioned_hilbert(x64):
    n = 8
    h = 1.0 / (np.arange(n)[:, None] + np.arange(n)[None, :] + 1)
    np.testing.assert_allclose(np.asarray(jnp.linalg.cond(h)), np.linalg.cond(h), rtol=1e-4)
    np.testing.assert_allclose(np.asarray(jnp.linalg.inv(h)), np.linalg.inv(h), rtol=1e-3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (0, 2)])
def test_qr_modes(dtype, shape, default_platform, x64):
    a = rand(shape, dtype)
    for mode in ("reduced", "complete"):
        q, r = jnp.linalg.qr(a, mode=mode)
        wq, wr = np.linalg.qr(a, mode=mode)
        assert q.shape == wq.shape and r.shape == wr.shape
        close(np.asarray(q) @ np.asarray(r), a, dtype, 10)
        close(np.abs(np.asarray(r)), np.abs(wr), dtype, 10)
    close(np.abs(np.asarray(jnp.linalg.qr(a, mode="r"))), np.abs(np.linalg.qr(a, mode="r")),
          dtype, 10)
    if len(shape) == 2:
        h, tau = jnp.linalg.qr(a, mode="raw")
        wh, wtau = np.linalg.qr(a, mode="raw")
        close(h, wh, dtype, 10)
        close(tau, wtau, dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 5), (3, 4, 4), (0, 0)])
def test_eigh_eigvalsh(dtype, shape, default_platform, x64):
    a = herm(shape, dtype)
    w, v = jnp.linalg.eigh(a)
    ww = np.linalg.eigvalsh(a)
    close(w, ww, dtype, 10)
    v = np.asarray(v)
    close(a @ v, v * np.asarray(w)[..., None, :], dtype, 10)
    close(jnp.linalg.eigvalsh(a), ww, dtype, 10)
    for uplo in ("L", "U"):
        close(jnp.linalg.eigh(a, UPLO=uplo, symmetrize_input=False).eigenvalues,
              np.linalg.eigvalsh(a, UPLO=uplo), dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 5, 5), (0, 3)])
def test_svd(dtype, shape, default_platform, x64):
    a = rand(shape, dtype)
    for full in (True, False):
        u, s, vh = jnp.linalg.svd(a, full_matrices=full)
        wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
        assert u.shape == wu.shape and vh.shape == wvh.shape
        close(s, ws, dtype, 10)
        k = min(shape[-2:])
        close(np.asarray(u)[..., :k] * np.asarray(s)[..., None, :] @ np.asarray(vh)[..., :k, :],
              a, dtype, 10)
    close(jnp.linalg.svd(a, compute_uv=False), np.linalg.svd(a, compute_uv=False), dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_svd_hermitian(dtype, x64):
    a = herm((4, 4), dtype)
    u, s, vh = jnp.linalg.svd(a, hermitian=True)
    close(s, np.linalg.svd(a, compute_uv=False), dtype, 10)
    close(np.asarray(u) * np.asarray(s)[None, :] @ np.asarray(vh), a, dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eig(dtype, default_platform, x64):
    a = rand((3, 4, 4), dtype)
    w, v = jnp.linalg.eig(a)
    w, v = np.asarray(w), np.asarray(v)
    close(a @ v, v * w[..., None, :], dtype, 10)
    close(np.sort_complex(np.asarray(jnp.linalg.eigvals(a))), np.sort_complex(
        np.linalg.eigvals(a)), dtype, 10)


def test_eig_nonfinite_is_nan():
    a = np.array([[1., np.nan], [0., 1.]], np.float32)
    w, v = jnp.linalg.eig(a)
    assert np.all(np.isnan(np.asarray(w)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_lstsq_pinv_rank_cond_norm(dtype, default_platform, x64):
    a = rand((6, 4), dtype)
    b = rand((6, 2), dtype)
    x, resid, rank, s = jnp.linalg.lstsq(a, b)
    wx, wresid, wrank, ws = np.linalg.lstsq(a, b, rcond=None)
    close(x, wx, dtype, 10)
    close(resid, wresid, dtype, 100)
    assert int(rank) == wrank
    close(s, ws, dtype, 10)
    close(jnp.linalg.pinv(a), np.linalg.pinv(a), dtype, 10)
    close(jnp.linalg.pinv(np.stack([a, a])), np.linalg.pinv(np.stack([a, a])), dtype, 10)
    assert int(jnp.linalg.matrix_rank(a)) == np.linalg.matrix_rank(a)
    sq = well((4, 4), dtype)
    for p in (None, 1, -1, 2, -2, np.inf, -np.inf, "fro"):
        close(jnp.linalg.cond(sq, p), np.linalg.cond(sq, p), dtype, 100)
    for ordm in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        close(jnp.linalg.norm(a, ordm), np.linalg.norm(a, ordm), dtype, 10)
    v = rand((7,), dtype)
    for ordv in (None, 1, 2, 3, 0, np.inf, -np.inf, 0.5):
        close(jnp.linalg.norm(v, ordv), np.linalg.norm(v, ordv), dtype, 10)
    t = rand((2, 3, 4), dtype)
    close(jnp.linalg.norm(t, axis=(0, 2), keepdims=True),
          np.linalg.norm(t, axis=(0, 2), keepdims=True), dtype, 10)
    close(jnp.linalg.norm(t, 2, axis=(2, 0)), np.linalg.norm(t, 2, axis=(2, 0)), dtype, 10)


def test_matrix_power_tensorsolve_multi_dot(x64):
    a = well((3, 3), np.float64) / 3
    for n in (0, 1, 2, 3, 5, 8, -1, -3):
        close(jnp.linalg.matrix_power(a, n), np.linalg.matrix_power(a, n), np.float64, 100)
    at = well((6, 6), np.float64).reshape(2, 3, 6)
    bt = rand((2, 3), np.float64)
    close(jnp.linalg.tensorsolve(at, bt), np.linalg.tensorsolve(at, bt), np.float64, 10)
    arrs = [rand((3,), np.float64), rand((3, 5), np.float64), rand((5, 2), np.float64),
            rand((2,), np.float64)]
    close(jnp.linalg.multi_dot(arrs), np.linalg.multi_dot(arrs), np.float64, 10)
    arrs2 = [rand((10, 3), np.float64), rand((3, 20), np.float64), rand((20, 2), np.float64)]
    close(jnp.linalg.multi_dot(arrs2), np.linalg.multi_dot(arrs2), np.float64, 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 4)])
def test_scipy_lu_family(dtype, shape, default_platform, x64):
    a = rand(shape, dtype)
    p, l, u = xsl.lu(a)
    close(np.asarray(p) @ np.asarray(l) @ np.asarray(u), a, dtype, 10)
    if len(shape) == 2:
        wp, wl, wu = scipy.linalg.lu(a)
        close(p, wp, dtype)
        close(l, wl, dtype, 10)
        close(u, wu, dtype, 10)
        pl, u2 = xsl.lu(a, permute_l=True)
        close(np.asarray(pl) @ np.asarray(u2), a, dtype, 10)
    if shape[-1] == shape[-2]:
        a = well(shape, dtype)
        lu_, piv = xsl.lu_factor(a)
        if len(shape) == 2:
            wlu, wpiv = scipy.linalg.lu_factor(a)
            close(lu_, wlu, dtype, 10)
            np.testing.assert_array_equal(np.asarray(piv), wpiv)
        b = rand(shape[:-1] + (2,), dtype)
        for trans in (0, 1, 2):
            op = {0: lambda m: m, 1: lambda m: np.swapaxes(m, -1, -2), 2: H}[trans]
            close(xsl.lu_solve((lu_, piv), b, trans=trans), np.linalg.solve(op(a), b), dtype, 10)
        close(xsl.solve(a, b), np.linalg.solve(a, b), dtype, 10)
        spd = (a @ H(a) + np.eye(shape[-1])).astype(dtype)
        close(xsl.solve(spd, b, assume_a="pos"), np.linalg.solve(spd, b), dtype, 100)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scipy_eigh_qr_svd(dtype, x64):
    a = herm((4, 4), dtype)
    w, v = xsl.eigh(a)
    close(w, scipy.linalg.eigh(a, eigvals_only=True), dtype, 10)
    close(xsl.eigh(a, eigvals_only=True), scipy.linalg.eigh(a, eigvals_only=True), dtype, 10)
    m = rand((5, 3), dtype)
    for mode in ("full", "economic"):
        q, r = xsl.qr(m, mode=mode)
        wq, wr = scipy.linalg.qr(m, mode=mode)
        assert q.shape == wq.shape and r.shape == wr.shape
        close(np.asarray(q) @ np.asarray(r), m, dtype, 10)
    (r,) = xsl.qr(m, mode="r")
    assert r.shape == (5, 3)
    close(xsl.svd(m, compute_uv=False), scipy.linalg.svd(m, compute_uv=False), dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale", [0.01, 1.0, 5.0, 40.0])
def test_expm(dtype, scale, default_platform, x64):
    a = (rand((4, 4), dtype) * scale / 4).astype(dtype)
    close(xsl.expm(a), scipy.linalg.expm(a), dtype, 100 if scale < 10 else 1e4)
    batch = (rand((2, 3, 3), dtype) * scale / 4).astype(dtype)
    close(xsl.expm(batch), np.stack([scipy.linalg.expm(m) for m in batch]), dtype,
          100 if scale < 10 else 1e4)


def test_expm_upper_triangular(x64):
    a = np.triu(rand((4, 4), np.float64))
    close(xsl.expm(a, upper_triangular=True), scipy.linalg.expm(a), np.float64, 100)


# ---------------------------------------------------------------- lax.linalg

@pytest.mark.parametrize("dtype", DTYPES)
def test_lax_lu_matches_jax(dtype, x64):
    need_jax()
    a = rand((2, 4, 4), dtype)
    lu_, piv, perm = xlinalg.lu(a)
    with both_x64(True):
        wlu, wpiv, wperm = jax.lax.linalg.lu(a)
    close(lu_, wlu, dtype, 10)
    np.testing.assert_array_equal(np.asarray(piv), np.asarray(wpiv))
    np.testing.assert_array_equal(np.asarray(perm), np.asarray(wperm))
    p = np.array([2, 2, 3, 3], np.int32)
    np.testing.assert_array_equal(np.asarray(xlinalg.lu_pivots_to_permutation(p, 5)),
                                  np.asarray(jax.lax.linalg.lu_pivots_to_permutation(p, 5)))


def test_lax_householder_product_schur(x64):
    a = rand((5, 3), np.float64)
    h, tau = scipy.linalg.qr(a, mode="raw")[0]
    q = xlinalg.householder_product(h, tau)
    close(q, scipy.linalg.qr(a, mode="economic")[0], np.float64, 10)
    m = rand((4, 4), np.float64)
    t, z = xlinalg.schur(m)
    close(np.asarray(z) @ np.asarray(t) @ np.asarray(z).T, m, np.float64, 10)
    wt, _ = scipy.linalg.schur(m)
    close(np.sort(np.abs(np.diag(np.asarray(t)))), np.sort(np.abs(np.diag(wt))), np.float64, 10)


# ---------------------------------------------------------------- transforms

def test_check_grads_of_factorizations(x64):
    a = well((3, 3), np.float64)
    b = rand((3, 2), np.float64)
    kw = dict(modes=("fwd", "rev"), atol=1e-5, rtol=1e-5)
    check_grads(jnp.linalg.solve, (a, b), order=1, **kw)
    check_grads(jnp.linalg.inv, (a,), order=1, **kw)
    check_grads(jnp.linalg.det, (a,), order=1, **kw)
    check_grads(lambda x: jnp.linalg.slogdet(x)[1], (a,), order=1, **kw)
    check_grads(lambda x: xlinalg.lu(x)[0], (a,), order=1, **kw)
    check_grads(lambda x: jnp.linalg.qr(x), (rand((4, 3), np.float64),), order=1, **kw)
    h = herm((3, 3), np.float64)
    check_grads(lambda x: jnp.linalg.eigh(x).eigenvalues, (h,), order=1, **kw)
    check_grads(lambda x: jnp.linalg.svd(x, compute_uv=False), (rand((4, 3), np.float64),),
                order=1, **kw)
    check_grads(lambda x: jnp.linalg.svd(x, full_matrices=False)[0] @
                jnp.linalg.svd(x, full_matrices=False)[2], (rand((3, 3), np.float64),),
                order=1, **kw)
    check_grads(lambda x: xsl.expm(x), (rand((3, 3), np.float64) / 3,), order=1, **kw)


def test_grads_match_jax(x64):
    need_jax()
    a = well((4, 4), np.float64)
    fns = [
        (lambda m, L: L.det(m), None),
        (lambda m, L: L.slogdet(m)[1], None),
        (lambda m, L: (L.inv(m) ** 2).sum(), None),
        (lambda m, L: (L.solve(m, m[:, :2]) ** 2).sum(), None),
        (lambda m, L: (L.eigh(m + m.T).eigenvalues ** 3).sum(), None),
        (lambda m, L: L.svd(m, compute_uv=False).sum(), None),
        (lambda m, L: (L.qr(m)[1] ** 2).sum(), None),
    ]
    for f, _ in fns:
        got = xjit.grad(lambda m: f(m, jnp.linalg))(a)
        with both_x64(True):
            want = jax.grad(lambda m: f(m, jax.numpy.linalg))(a)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-7, atol=1e-9)


def test_det_gradient_is_finite_and_matches_jax_at_singular_matrices(x64):
    # d det / da = adj(a)^T: finite at singular matrices. Sizes 2 and 3 take
    # the polynomial (exact whatever the pivots), larger ones the adjugate
    # through the LU, exact when the zero pivot comes last and zero otherwise.
    need_jax()
    rng = np.random.default_rng(7)
    rank4 = rng.standard_normal((5, 4)) @ rng.standard_normal((4, 5))
    mats = [np.array([[1., 2.], [2., 4.]]), np.array([[0., 1.], [0., 0.]]),
            np.array([[1., 2., 3.], [2., 4., 6.], [1., 0., 1.]]), np.zeros((3, 3)),
            rank4, np.zeros((5, 5)), np.stack([rank4, well((5, 5), np.float64)]),
            rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))]
    for m in mats:
        f = (lambda x, L: (L.abs(L.linalg.det(x)) ** 2).sum()) if np.iscomplexobj(m) else \
            (lambda x, L: L.linalg.det(x).sum())
        got = np.asarray(xjit.grad(lambda x: f(x, jnp))(m))
        with both_x64(True):
            want = np.asarray(jax.grad(lambda x: f(x, jax.numpy))(m))
        assert np.all(np.isfinite(got))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_eigvals_derivative_matches_jax_and_eigenvectors_raise(x64):
    need_jax()
    rng = np.random.default_rng(3)
    for m in (rng.standard_normal((4, 4)), rng.standard_normal((2, 3, 3)),
              rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))):
        t = rng.standard_normal(m.shape).astype(m.dtype)
        got = xjit.jvp(jnp.linalg.eigvals, (m,), (t,))[1]
        with both_x64(True):
            want = jax.jvp(jax.numpy.linalg.eigvals, (m,), (t,))[1]
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-7, atol=1e-9)
    f = lambda x, L: (L.linalg.eigvals(x).real ** 2 + L.linalg.eigvals(x).imag).sum()  # noqa: E731
    m = rng.standard_normal((4, 4))
    got = xjit.grad(lambda x: f(x, jnp))(m)
    with both_x64(True):
        want = jax.grad(lambda x: f(x, jax.numpy))(m)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-7, atol=1e-9)
    with pytest.raises(NotImplementedError, match="derivatives of eigenvectors"):
        xjit.grad(lambda x: jnp.linalg.eig(x)[1].real.sum())(m)
    with pytest.raises(NotImplementedError, match="derivatives of eigenvectors"):
        xjit.jit(xjit.grad(lambda x: jnp.linalg.eig(x)[1].real.sum()))(m)


def test_eig_with_vectors_under_jit_and_vmap():
    # The eigenvector rule declines only when differentiated (a jit of eig
    # used to fail at trace time with the JVP's message).
    rng = np.random.default_rng(4)
    m = rng.standard_normal((2, 5, 5)).astype(np.float32)
    for f in (xjit.jit(jnp.linalg.eig), xjit.vmap(jnp.linalg.eig),
              xjit.jit(xjit.vmap(jnp.linalg.eig))):
        w, v = f(m)
        w, v = np.asarray(w), np.asarray(v)
        assert w.dtype == np.complex64 and v.shape == (2, 5, 5)
        # m v = v diag(w), column by column
        np.testing.assert_allclose(m @ v, v * w[:, None, :], rtol=1e-4, atol=1e-4)


def test_vmap_of_factorizations():
    a = well((4, 3, 3), np.float32)
    b = rand((4, 3), np.float32)
    close(xjit.vmap(jnp.linalg.solve)(a, b), np.linalg.solve(a, b[..., None])[..., 0],
          np.float32, 10)
    close(xjit.vmap(jnp.linalg.det)(a), np.linalg.det(a), np.float32, 10)
    close(xjit.vmap(lambda m: jnp.linalg.svd(m, compute_uv=False))(a),
          np.linalg.svd(a, compute_uv=False), np.float32, 10)
    close(xjit.vmap(lambda m: jnp.linalg.eigh(m + m.T).eigenvalues)(a),
          np.linalg.eigvalsh(a + np.swapaxes(a, -1, -2)), np.float32, 10)
    moved = np.swapaxes(a, 0, 1)  # the batch in dimension 1
    close(xjit.vmap(jnp.linalg.inv, in_axes=1, out_axes=1)(moved),
          np.swapaxes(np.linalg.inv(a), 0, 1), np.float32, 10)
    g = xjit.vmap(xjit.grad(lambda m: jnp.linalg.det(m)))(a)
    for i in range(4):
        close(g[i], xjit.grad(jnp.linalg.det)(a[i]), np.float32, 10)


def test_jit_and_lowered_text():
    text = xjit.jit(jnp.linalg.solve).lower(well((3, 3), np.float32),
                                            rand((3,), np.float32)).as_text()
    assert "custom_call" in text and "lapack_sgetrf_ffi" in text


def test_bad_inputs():
    with pytest.raises(ValueError, match="square"):
        jnp.linalg.inv(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="at least 2"):
        jnp.linalg.det(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="incompatible shapes"):
        jnp.linalg.solve(np.eye(3, dtype=np.float32), np.ones(4, np.float32))
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode"):
        jnp.linalg.qr(np.eye(3, dtype=np.float32), mode="bad")
    with pytest.raises(ValueError, match="UPLO"):
        jnp.linalg.eigh(np.eye(3, dtype=np.float32), UPLO="X")
    with pytest.raises(TypeError, match="unsupported dtype bfloat16"):
        xlinalg.lu(np.eye(3, dtype=jnp.bfloat16))
    with pytest.raises(ValueError, match="Invalid order"):
        jnp.linalg.norm(np.ones((2, 2), np.float32), "bad")
    with pytest.raises(TypeError, match="exponent must be an integer"):
        jnp.linalg.matrix_power(np.eye(2, dtype=np.float32), 1.5)
    with pytest.raises(ValueError, match="Leading dimensions"):
        jnp.linalg.lstsq(np.ones((3, 2), np.float32), np.ones(4, np.float32))
    with pytest.raises(ValueError, match="at least two arrays"):
        jnp.linalg.multi_dot([np.eye(2)])
    with pytest.raises(ValueError, match="square matrix"):
        xsl.expm(np.ones((2, 3), np.float32))
    with pytest.raises(NotImplementedError):
        xsl.eigh(np.eye(2), np.eye(2))
    with pytest.raises(ValueError, match="permutation_size"):
        xlinalg.lu_pivots_to_permutation(np.zeros(4, np.int32), 3)


def test_lapack_targets_reject_bad_buffers():
    from xjit._src.core import ShapeDtypeStruct
    from xjit._src.lax.custom_call import custom_call
    x = np.eye(3, dtype=np.float32)
    S = ShapeDtypeStruct
    cases = [
        # wrong operand dtype for the target's letter
        ("lapack_dpotrf_ffi", [x], [S((3, 3), np.float64), S((), np.int32)], {"uplo": 76},
         "operand 0 must be of type f64"),
        # missing backend_config attribute
        ("lapack_spotrf_ffi", [x], [S((3, 3), np.float32), S((), np.int32)], {},
         "needs the backend_config attribute 'uplo'"),
        # a bad character code
        ("lapack_spotrf_ffi", [x], [S((3, 3), np.float32), S((), np.int32)], {"uplo": 88},
         "must be one of 'LU'"),
        # wrong result count and shapes
        ("lapack_sgetrf_ffi", [x], [S((3, 3), np.float32)], {},
         "expects 1 operands and 3 results"),
        ("lapack_sgetrf_ffi", [x], [S((3, 3), np.float32), S((2,), np.int32), S((), np.int32)],
         {}, "result 1 must be i32\\[3\\]"),
        ("lapack_sgesdd_ffi", [x], [S((3, 3), np.float32)] * 4 + [S((), np.int32)],
         {"mode": 65}, "result 1 must be f32\\[3\\]"),
    ]
    for target, ops, avals, cfg, msg in cases:
        cfg = {k: np.uint8(v) for k, v in cfg.items()}
        with pytest.raises(Exception, match=msg):
            out = custom_call(target, ops, avals, backend_config=cfg,
                              operand_layouts=[(0, 1)], result_layouts=[
                                  (0, 1) if len(a.shape) == 2 else tuple(range(len(a.shape)))[::-1]
                                  for a in avals])
            np.asarray(out[0])


def test_vmap_of_other_custom_calls_is_an_error():
    from xjit._src.core import ShapeDtypeStruct
    from xjit._src.lax.custom_call import custom_call
    f = lambda x: custom_call("xjit_no_such_target", [x],  # noqa: E731
                              [ShapeDtypeStruct((3,), np.float32)])[0]
    with pytest.raises(NotImplementedError, match="has no batching rule"):
        xjit.vmap(f)(np.ones((2, 3), np.float32))


def test_scipy_schur_real_and_complex_forms():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 6, 6)).astype(np.float32)
    for output, dtype in (("real", np.float32), ("complex", np.complex64)):
        for f in (lambda x: xsl.schur(x, output=output),
                  xjit.jit(lambda x: xsl.schur(x, output=output))):
            t, z = (np.asarray(v) for v in f(a))
            assert t.dtype == dtype and z.dtype == dtype
            np.testing.assert_allclose(z @ t @ np.conj(np.swapaxes(z, -1, -2)), a, atol=2e-5)
            # quasi-triangular (2x2 blocks for complex pairs) or triangular
            np.testing.assert_allclose(np.tril(t, -2 if output == "real" else -1), 0, atol=1e-6)
            want_t, _ = scipy.linalg.schur(a[0], output=output)
            np.testing.assert_allclose(np.sort(np.abs(np.diag(t[0]))),
                                       np.sort(np.abs(np.diag(want_t))), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="output must be 'real' or 'complex'"):
        xsl.schur(a[0], output="other")


def test_scipy_special_matrices_and_polar():
    c = np.array([1.0, 2.0, 3.0], np.float32)
    r = np.array([9.0, 5.0, 6.0, 7.0], np.float32)
    for name, args in (("toeplitz", (c,)), ("toeplitz", (c, r)), ("hankel", (c,)),
                       ("hankel", (c, r)), ("circulant", (c,)),
                       ("companion", (np.array([2.0, -3.0, 1.0, 4.0]),)), ("hilbert", (4,))):
        np.testing.assert_allclose(np.asarray(getattr(xsl, name)(*args)),
                                   getattr(scipy.linalg, name)(*args), rtol=1e-6)
    for scale in (None, "n", "sqrtn"):
        np.testing.assert_allclose(np.asarray(xsl.dft(5, scale)), scipy.linalg.dft(5, scale),
                                   atol=1e-6)
    a = np.random.default_rng(6).standard_normal((4, 4)).astype(np.float32)
    for side in ("right", "left"):
        u, p = (np.asarray(v) for v in xsl.polar(a, side))
        wu, wp = scipy.linalg.polar(a, side)
        np.testing.assert_allclose(u, wu, atol=1e-5)
        np.testing.assert_allclose(p, wp, atol=1e-5)
    with pytest.raises(ValueError, match="at least 2"):
        xsl.companion(np.ones(1))
    with pytest.raises(ValueError, match="scale"):
        xsl.dft(3, "x")
