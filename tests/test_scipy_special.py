"""xjit.scipy.special and the lax special functions (erfc, erf_inv, lgamma, digamma)
against SciPy (accuracy) and JAX (dtypes, weak types, errors)."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax
from xjit.scipy import special
from jax_checks import BF16, both_x64, check_like_jax, jax, need_jax
from numpy_checks import x64

scipy_special = pytest.importorskip("scipy.special")
rng = np.random.default_rng(11)


def _max_rel_error(got, want, floor):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    finite = np.isfinite(want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    err = np.abs(got[finite] - want[finite]) / np.maximum(np.abs(want[finite]), floor)
    return err.max() if err.size else 0.0


ERFC_X = np.concatenate([np.linspace(-6, 26, 4001), [0.0, 1.0, -1.0, 0.5, np.inf, -np.inf,
                                                     np.nan]])
ERFINV_Y = np.concatenate([np.linspace(-1, 1, 4001), 1 - np.logspace(-15, -1, 60),
                           -1 + np.logspace(-15, -1, 60), [1.5, -2.0, np.nan]])
GAMMA_X = np.concatenate([np.linspace(-20.5, 60, 4001), np.logspace(-8, 30, 100),
                          [0.0, -1.0, -2.0, -7.0, 1.0, 2.0, np.inf, np.nan]])

# (function, scipy reference, inputs, float32 tol, float64 tol, floor of |want| for relative)
ACCURACY = [
    # float32: XLA's (Cephes') erfcf, the form JAX's CPU results come from: ~4e-6.
    (special.erfc, scipy_special.erfc, ERFC_X, 6e-6, 1e-14, 1e-30),
    (special.erfinv, scipy_special.erfinv, ERFINV_Y, 1e-5, 1e-14, 1e-30),
    (special.gammaln, scipy_special.gammaln, GAMMA_X, 1e-5, 1e-13, 1.0),
    (special.digamma, scipy_special.digamma, GAMMA_X[np.abs(GAMMA_X) < 1e7], 4e-6, 1e-12, 1.0),
    (special.erf, scipy_special.erf, ERFC_X, 2e-6, 1e-15, 1e-30),
    (special.ndtr, scipy_special.ndtr, ERFC_X * 1.4, 1e-5, 1e-14, 1e-30),
    (special.expit, scipy_special.expit, ERFC_X * 4, 2e-6, 1e-15, 1e-30),
    (special.logit, scipy_special.logit, np.linspace(0, 1, 1001), 2e-6, 1e-14, 1.0),
]


@pytest.mark.parametrize("fn,ref,x,tol32,tol64,floor", ACCURACY,
                         ids=[a[0].__name__ for a in ACCURACY])
def test_accuracy_against_scipy(fn, ref, x, tol32, tol64, floor):
    if fn is special.digamma:
        x = x[~((x <= 0) & (x == np.floor(x)))]  # scipy: -inf at 0, nan at negatives; jax: nan
    x32 = x.astype(np.float32)
    want32 = ref(x32.astype(np.float64))
    # Results below float32's normal range are compared absolutely (flushing differs).
    tiny = np.abs(want32) < np.finfo(np.float32).tiny * 2 ** 10
    got = np.asarray(fn(x32)).astype(np.float64)
    got[tiny], want32[tiny] = 0.0, 0.0
    assert _max_rel_error(got, want32, floor) < tol32
    with x64(True):
        got64 = np.asarray(fn(x.astype(np.float64)))
        assert got64.dtype == np.float64
        want64 = ref(x)
        small = np.abs(want64) < 1e-300
        got64 = got64.copy()
        got64[small], want64[small] = 0.0, 0.0
        assert _max_rel_error(got64, want64, floor) < tol64


def test_digamma_poles_are_nan():
    x = np.array([0.0, -1.0, -2.0, -10.0], np.float32)
    assert np.isnan(np.asarray(special.digamma(x))).all()
    assert np.isinf(np.asarray(special.gammaln(x))).all()


NAMES = ["erf", "erfc", "erfinv", "expit", "logit", "gammaln", "digamma", "entr", "ndtr"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", [np.array([0.25, 0.5, 2.0], np.float32),
                                   np.array([0.25, 0.5], np.float16),
                                   np.array([0.25, 0.5], BF16), 0.5, 2, np.array([1, 2], np.int32),
                                   np.array([1 + 1j], np.complex64)],
                         ids=["f32", "f16", "bf16", "py_float", "py_int", "i32", "c64"])
def test_unary_dtypes_match_jax(name, value):
    need_jax()
    import jax.scipy.special as jsp
    check_like_jax(getattr(special, name), getattr(jsp, name), (value,), rtol=2e-3, atol=1e-5)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "rel_entr", "kl_div"])
def test_binary_match_jax(name):
    need_jax()
    import jax.scipy.special as jsp
    x = np.array([0.0, 0.0, 1.0, 2.0, -1.0, np.nan, 0.0, 3.0], np.float32)
    y = np.array([0.0, -1.0, 0.5, 3.0, 2.0, 1.0, np.nan, -1.0], np.float32)
    check_like_jax(getattr(special, name), getattr(jsp, name), (x, y))
    check_like_jax(getattr(special, name), getattr(jsp, name), (0.0, 2))


def test_xlogy_against_scipy():
    x = np.array([0.0, 0.0, 1.0, 2.0, 0.5], np.float32)
    y = np.array([0.0, 2.0, 0.5, 3.0, 0.0], np.float32)
    for fn, ref in ((special.xlogy, scipy_special.xlogy),
                    (special.xlog1py, scipy_special.xlog1py),
                    (special.rel_entr, scipy_special.rel_entr),
                    (special.kl_div, scipy_special.kl_div)):
        np.testing.assert_allclose(np.asarray(fn(x, y)), ref(x, y), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(special.entr(x)), scipy_special.entr(x), rtol=1e-6)


@pytest.mark.parametrize("kwargs", [{}, {"axis": 1}, {"axis": (0, 1), "keepdims": True},
                                    {"axis": 0, "return_sign": True}])
def test_logsumexp_with_b_and_where(kwargs):
    need_jax()
    import jax.scipy.special as jsp
    a = (rng.normal(size=(3, 5)) * 30).astype(np.float32)
    b = rng.normal(size=(3, 5)).astype(np.float32)
    b[0, 0] = 0.0
    where = rng.random((3, 5)) < 0.7
    check_like_jax(lambda x: special.logsumexp(x, **kwargs),
                   lambda x: jsp.logsumexp(x, **kwargs), (a,))
    check_like_jax(lambda x, s: special.logsumexp(x, b=s, **kwargs),
                   lambda x, s: jsp.logsumexp(x, b=s, **kwargs), (a, b))
    check_like_jax(lambda x, w: special.logsumexp(x, where=w, **kwargs),
                   lambda x, w: jsp.logsumexp(x, where=w, **kwargs), (a, where))
    ref = scipy_special.logsumexp(a.astype(np.float64), b=b, **kwargs)
    got = special.logsumexp(a, b=b, **kwargs)
    for g, r in zip(got if isinstance(got, tuple) else (got,),
                    ref if isinstance(ref, tuple) else (ref,)):
        np.testing.assert_allclose(np.asarray(g), r, rtol=1e-5, atol=1e-5)


def test_logsumexp_edge_cases():
    need_jax()
    import jax.scipy.special as jsp
    for a in (np.array([-np.inf, -np.inf], np.float32), np.array([np.inf, 1.0], np.float32),
              np.array([np.nan, 1.0], np.float32), np.zeros((0,), np.float32), 3.0,
              np.array([1 + 2j, 3 - 1j], np.complex64), np.array([1, 2], np.int32)):
        check_like_jax(special.logsumexp, jsp.logsumexp, (a,))


@pytest.mark.parametrize("axis", [None, 0, -1])
def test_softmax_aliases(axis):
    need_jax()
    import jax.scipy.special as jsp
    x = rng.normal(size=(3, 4)).astype(np.float32)
    check_like_jax(lambda v: special.softmax(v, axis=axis), lambda v: jsp.softmax(v, axis=axis),
                   (x,))
    check_like_jax(lambda v: special.log_softmax(v, axis=axis),
                   lambda v: jsp.log_softmax(v, axis=axis), (x,))


def test_factorial():
    need_jax()
    import jax.scipy.special as jsp
    n = np.array([0.0, 1.0, 4.0, 10.0, -1.0, 2.5], np.float32)
    check_like_jax(special.factorial, jsp.factorial, (n,), rtol=1e-5)
    with pytest.raises(NotImplementedError):
        special.factorial(3, exact=True)


def test_lax_special_functions_reject_integers_and_keep_types():
    for fn in (lax.erfc, lax.erf_inv, lax.lgamma, lax.digamma):
        with pytest.raises(TypeError):
            fn(np.array([1, 2], np.int32))
        with pytest.raises(TypeError):
            fn("a")
        out = fn(0.5)
        assert out.dtype == np.float32 and out.weak_type
        assert fn(np.float16(0.5)).dtype == np.float16
        assert xjit.jit(fn)(jnp.ones(3, jnp.bfloat16)).dtype == jnp.bfloat16


def test_lax_special_functions_match_jax_float64():
    need_jax()
    x = np.concatenate([np.linspace(-9.5, 9.5, 77), [0.0, 1.0, 2.0, np.inf]])
    y = np.linspace(-1, 1, 41)
    with both_x64(True):
        for name, arg in (("erfc", x), ("lgamma", x), ("digamma", x), ("erf_inv", y)):
            check_like_jax(getattr(lax, name), getattr(jax.lax, name), (arg,), rtol=1e-9,
                           atol=1e-12)


def test_import_paths():
    import xjit.scipy.special as mod
    assert xjit.scipy.special is mod
    assert mod.logsumexp is xjit.nn.logsumexp
