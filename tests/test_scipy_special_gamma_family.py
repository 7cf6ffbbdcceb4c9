"""xjit.scipy.special's gamma family and order-0/1 modified Bessel functions
against SciPy, eagerly and under jit, with their bad inputs."""
import numpy as np
import pytest
import scipy.special as ss

import xjit
from xjit.scipy import special as xs

X = np.array([-3.5, -2.5, -0.5, 0.1, 0.5, 1.0, 2.5, 5.0, 10.3, 30.0], np.float32)


def check(name, *args, rtol=1e-5, want=None):
    want = getattr(ss, name)(*[np.asarray(a, np.float64) for a in args]) if want is None else want
    for got in (getattr(xs, name)(*args), xjit.jit(getattr(xs, name))(*args)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=1e-30)


@pytest.mark.parametrize("name", ["gamma", "gammasgn", "i0", "i0e", "i1", "i1e"])
def test_unary(name):
    # gamma(30) = exp(lgamma(30) ~ 71): float32 lgamma's ulp grows 71x through exp.
    check(name, X, rtol=2e-5 if name == "gamma" else 1e-5)


def test_loggamma_real():
    want = np.where(ss.gammasgn(X) < 0, np.nan, np.real(ss.loggamma(X.astype(np.complex128))))
    got = np.asarray(xs.loggamma(X))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["beta", "betaln", "poch"])
def test_binary(name):
    a = np.array([0.5, 2.0, 3.0, 10.0, -0.5], np.float32)
    b = np.array([1.5, 0.7, 3.0, 2.0, 2.0], np.float32)
    check(name, a, b, rtol=1e-5)


def test_comb():
    n = np.array([5.0, 10.0, 3.0, 20.0, 4.5], np.float32)
    k = np.array([2.0, 3.0, 5.0, 10.0, 2.0], np.float32)
    check("comb", n, k, rtol=2e-5)  # float32: exp(lgamma) is good to ~1e-5
    np.testing.assert_allclose(float(xs.comb(5.0, 2.0, repetition=True)),
                               ss.comb(5, 2, repetition=True))
    with pytest.raises(NotImplementedError, match="exact"):
        xs.comb(5, 2, exact=True)


def test_complex_inputs_are_rejected():
    for name in ("gamma", "i0", "i1e"):
        with pytest.raises(ValueError, match="complex"):
            getattr(xs, name)(np.array([1 + 1j]))


def test_incomplete_gamma_and_relatives():
    a = np.array([0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 0.1, 3.0], np.float32)
    x = np.array([0.1, 1.0, 3.0, 4.0, 12.0, 25.0, 2.0, 0.0], np.float32)
    for name in ("gammainc", "gammaincc"):
        for got in (getattr(xs, name)(a, x), xjit.jit(getattr(xs, name))(a, x)):
            np.testing.assert_allclose(np.asarray(got), getattr(ss, name)(a, x), rtol=2e-5,
                                       atol=2e-6)
    assert np.isnan(float(xs.gammainc(np.float32(-1), 1.0)))
    assert float(xs.gammaincc(2.0, np.inf)) == 0.0
    np.testing.assert_allclose(float(xs.multigammaln(np.float32(3.5), 3)),
                               ss.multigammaln(3.5, 3), rtol=1e-6)
    v = np.float32([0.5, 1.0, 2.0, 3.0])
    for lam in (0.0, 0.5, -1.5):
        np.testing.assert_allclose(np.asarray(xs.boxcox(v, lam)), ss.boxcox(v, lam), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(np.asarray(xs.boxcox1p(v, lam)), ss.boxcox1p(v, lam),
                                   rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(xs.bernoulli(10)), ss.bernoulli(10), rtol=1e-6)
    with pytest.raises(ValueError, match="non-negative"):
        xs.bernoulli(-1)
