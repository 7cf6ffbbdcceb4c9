"""``xjit.scipy.special``: SciPy's special functions on xjit arrays (JAX's
``jax.scipy.special``).

Example:
    >>> from xjit.scipy import special
    >>> special.logsumexp(np.zeros(2, np.float32))
    Array(0.6931472, dtype=float32)
"""
from xjit._src.scipy.special import (  # noqa: F401
    digamma, entr, erf, erfc, erfinv, expit, factorial, gammaln, kl_div, log_softmax, logit,
    logsumexp, ndtr, rel_entr, softmax, xlog1py, xlogy)
# issue 11 (h-fft)
from xjit._src.scipy.special import log_ndtr, ndtri  # noqa: F401,E402
from xjit._src.scipy.gamma_family import (  # noqa: F401,E402
    beta, betaln, comb, gamma, gammasgn, i0, i0e, i1, i1e, loggamma, poch)
from xjit._src.scipy.incomplete_gamma import (  # noqa: F401,E402
    bernoulli, boxcox, boxcox1p, gammainc, gammaincc, multigammaln)
