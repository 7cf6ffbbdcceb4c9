"""xjit.scipy.stats' distributions beyond norm against SciPy (eagerly and
under jit), inside and outside their supports."""
import numpy as np
import pytest
import scipy.stats as st

import xjit
from xjit.scipy import stats

X = np.array([-3.0, -0.5, 0.0, 0.25, 1.0, 2.5, 7.0], np.float32)
Q = np.array([0.0, 0.01, 0.3, 0.5, 0.9, 1.0], np.float32)


def close(got, want, rtol=2e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", ["expon", "uniform", "laplace", "logistic", "cauchy",
                                  "gumbel_r", "gumbel_l"])
@pytest.mark.parametrize("fn", ["logpdf", "pdf", "logcdf", "cdf", "logsf", "sf"])
def test_location_scale_families(name, fn):
    ours, theirs = getattr(getattr(stats, name), fn), getattr(getattr(st, name), fn)
    with np.errstate(all="ignore"):
        want = theirs(X.astype(np.float64), loc=0.5, scale=2.0)
    close(ours(X, 0.5, 2.0), want, rtol=1e-4, atol=1e-5)
    close(xjit.jit(lambda x: ours(x, 0.5, 2.0))(X), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["expon", "uniform", "laplace", "logistic", "cauchy",
                                  "gumbel_r", "gumbel_l"])
def test_location_scale_ppf(name):
    with np.errstate(all="ignore"):
        want = getattr(st, name).ppf(Q.astype(np.float64), loc=0.5, scale=2.0)
    close(getattr(stats, name).ppf(Q, 0.5, 2.0), want, rtol=1e-4, atol=1e-4)


def test_continuous_densities():
    x = np.array([-1.0, 0.0, 0.3, 1.0, 2.5, 9.0], np.float32)
    with np.errstate(all="ignore"):
        close(stats.t.logpdf(x, 3.0, 0.5, 2.0), st.t.logpdf(x, 3.0, 0.5, 2.0), rtol=1e-5)
        for a in (0.5, 1.0, 2.5):
            close(stats.gamma.logpdf(x, a, 0.0, 1.5), st.gamma.logpdf(x, a, 0.0, 1.5), rtol=1e-5)
        close(stats.chi2.pdf(x, 3.0), st.chi2.pdf(x, 3.0), rtol=1e-5)
        close(stats.beta.logpdf(x / 3, 2.0, 3.0), st.beta.logpdf(x / 3, 2.0, 3.0), rtol=1e-5)
        close(stats.pareto.logpdf(x, 2.0), st.pareto.logpdf(x, 2.0), rtol=1e-5)


def test_discrete_mass_functions():
    k = np.array([-1.0, 0.0, 1.0, 2.0, 3.5, 5.0, 10.0], np.float32)
    with np.errstate(all="ignore"):
        close(stats.poisson.logpmf(k, 2.5), st.poisson.logpmf(k, 2.5), rtol=1e-5)
        close(stats.bernoulli.pmf(k, 0.3), st.bernoulli.pmf(k, 0.3))
        close(stats.geom.logpmf(k, 0.3), st.geom.logpmf(k, 0.3), rtol=1e-5)
        close(stats.binom.logpmf(k, 10.0, 0.3), st.binom.logpmf(k, 10, 0.3), rtol=1e-5)
        close(stats.binom.pmf(k, 5.0, 1.0), st.binom.pmf(k, 5, 1.0))


def test_multivariate_normal():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    cov = (a @ a.T + np.eye(3)).astype(np.float32)
    mean = np.array([0.5, -1.0, 2.0], np.float32)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    close(stats.multivariate_normal.logpdf(x, mean, cov),
          st.multivariate_normal.logpdf(x, mean, cov), rtol=1e-5, atol=1e-5)
    close(xjit.jit(stats.multivariate_normal.pdf)(x, mean, cov),
          st.multivariate_normal.pdf(x, mean, cov), rtol=1e-4, atol=1e-7)
    close(stats.multivariate_normal.logpdf(x, mean, 2.0),
          st.multivariate_normal.logpdf(x, mean, 2.0 * np.eye(3)), rtol=1e-5, atol=1e-5)


def test_cdfs_from_the_incomplete_gamma():
    x = np.array([-1.0, 0.0, 0.3, 1.0, 2.5, 9.0], np.float32)
    close(stats.gamma.cdf(x, 2.5, 0.0, 1.5), st.gamma.cdf(x, 2.5, 0.0, 1.5), rtol=1e-4)
    close(stats.gamma.sf(x, 2.5), st.gamma.sf(x, 2.5), rtol=1e-4)
    close(stats.chi2.cdf(x, 3.0), st.chi2.cdf(x, 3.0), rtol=1e-4)
    k = np.array([-1.0, 0.0, 1.0, 2.5, 5.0], np.float32)
    close(stats.poisson.cdf(k, 2.5), st.poisson.cdf(k, 2.5), rtol=1e-4)
