"""xjit.scipy.stats.norm and the special functions it needs (ndtri,
log_ndtr) against SciPy (values) and JAX (dtypes, weak types, grads)."""
import numpy as np
import pytest

import xjit
from xjit.scipy import special
from xjit.scipy.stats import norm
from jax_checks import both_x64, jax, need_jax

scipy_stats = pytest.importorskip("scipy.stats")
scipy_special = pytest.importorskip("scipy.special")

X = np.concatenate([np.linspace(-12, 12, 481), [0.0, -40.0, 40.0, np.inf, -np.inf, np.nan]])
Q = np.concatenate([np.linspace(0, 1, 401), [1e-30, 1e-10, 1 - 1e-7, 1e-300]])
FUNCS = ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"]


def _check(got, want, rtol, atol=0.0):
    got = np.asarray(got, np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dtype,rtol", [(np.float32, 2e-4), (np.float64, 1e-10)])
def test_matches_scipy(name, dtype, rtol):
    with _x64(dtype == np.float64):
        x = X.astype(dtype)
        loc, scale = dtype(0.5), dtype(2.0)
        got = getattr(norm, name)(x, loc, scale)
        assert got.dtype == dtype
        want = getattr(scipy_stats.norm, name)(x.astype(np.float64), 0.5, 2.0)
        # Near 0, log(cdf) is log(1 - tiny): absolute accuracy is what float gives.
        _check(got, want, rtol, atol=8 * np.finfo(dtype).eps)


@pytest.mark.parametrize("name", ["ppf", "isf"])
@pytest.mark.parametrize("dtype,rtol", [(np.float32, 1e-4), (np.float64, 1e-8)])
def test_quantiles_match_scipy(name, dtype, rtol):
    with _x64(dtype == np.float64):
        q = Q.astype(dtype)
        if name == "isf":  # JAX's isf is ppf(1 - q): q below eps/2 rounds to 1 - q == 1
            q = q[(q == 0) | (q >= np.finfo(dtype).eps)]
        got = getattr(norm, name)(q, -1.0, 3.0)
        assert got.dtype == dtype
        want = getattr(scipy_stats.norm, name)(q.astype(np.float64), -1.0, 3.0)
        _check(got, want, rtol, atol=1e-5 if dtype == np.float32 else 1e-12)


def test_ndtri_and_log_ndtr_match_scipy():
    q = Q.astype(np.float32)
    got = special.ndtri(q)
    want = scipy_special.ndtri(q.astype(np.float64))
    _check(got, want, 1e-4, 1e-5)
    x = X.astype(np.float32)
    _check(special.log_ndtr(x), scipy_special.log_ndtr(x.astype(np.float64)), 2e-5,
           atol=8 * np.finfo(np.float32).eps)
    with pytest.raises(TypeError):
        special.ndtri(np.array([1, 2], np.int32))
    with pytest.raises(TypeError):
        special.log_ndtr(np.float32(1.0), series_order=2.5)
    with pytest.raises(ValueError):
        special.log_ndtr(np.float32(1.0), series_order=31)


def test_dtypes_weak_types_and_broadcasting_like_jax():
    need_jax()
    with both_x64(False):
        for name in FUNCS + ["ppf", "isf"]:
            for args in [(0.3,), (np.float32(0.3), 1, 2), (np.arange(3), np.zeros((2, 1))),
                         (np.linspace(0.1, 0.9, 3).astype(np.float32), np.zeros((2, 1)))]:
                try:
                    want = getattr(jax.scipy.stats.norm, name)(*args)
                except TypeError:  # ppf/isf of integers, as JAX
                    with pytest.raises(TypeError):
                        getattr(norm, name)(*args)
                    continue
                got = getattr(norm, name)(*args)
                assert got.dtype == want.dtype, (name, args)
                assert got.shape == want.shape, (name, args)
                assert bool(got.weak_type) == bool(want.weak_type), (name, args)
                np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5,
                                           atol=1e-7)


def test_grads_match_jax():
    need_jax()
    x = np.linspace(-30, 8, 39).astype(np.float32)
    for name in ["logpdf", "cdf", "logcdf", "logsf", "sf"]:
        g = xjit.vmap(xjit.grad(lambda v: getattr(norm, name)(v, 0.5, 1.5)))(x)
        w = jax.vmap(jax.grad(lambda v: getattr(jax.scipy.stats.norm, name)(v, 0.5, 1.5)))(x)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-30)
    q = np.linspace(0.01, 0.99, 9).astype(np.float32)
    g = xjit.vmap(xjit.grad(lambda v: norm.ppf(v)))(q)
    w = jax.vmap(jax.grad(lambda v: jax.scipy.stats.norm.ppf(v)))(q)
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-3)


def test_under_jit():
    f = xjit.jit(lambda x: norm.logcdf(x) + norm.ppf(norm.cdf(x)))
    x = np.linspace(-3, 3, 7).astype(np.float32)
    np.testing.assert_allclose(np.asarray(f(x)),
                               scipy_stats.norm.logcdf(x) + x, rtol=1e-4, atol=1e-4)


def test_bad_inputs():
    with pytest.raises(TypeError):
        norm.cdf([0.0, 1.0])
    with pytest.raises(TypeError):
        norm.pdf("x")


from numpy_checks import x64 as _x64  # noqa: E402
