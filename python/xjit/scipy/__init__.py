"""``xjit.scipy``: SciPy's API on xjit arrays (JAX's ``jax.scipy``): ``special`` and ``linalg``.

Example:
    >>> from xjit.scipy import special
    >>> special.expit(0.0)
    Array(0.5, dtype=float32, weak_type=True)
"""
from xjit.scipy import special  # noqa: F401
# issue 11 (h-fft)
from xjit.scipy import stats  # noqa: F401,E402
from xjit.scipy import linalg  # noqa: F401  (h-linalg)
