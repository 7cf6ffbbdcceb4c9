"""``xjit.scipy.linalg``: SciPy's linear algebra on xjit arrays (``jax.scipy.linalg``).

Example:
    >>> from xjit.scipy import linalg
    >>> linalg.solve_triangular(np.array([[2., 0.], [1., 1.]]), np.array([2., 3.]), lower=True)
    Array([1., 2.], dtype=float32)
"""
from xjit._src.scipy.linalg import (  # noqa: F401
    block_diag, cho_factor, cho_solve, cholesky, det, eigh, expm, inv, lu, lu_factor, lu_solve,
    qr, schur, solve, solve_triangular, svd)
from xjit._src.scipy.special_matrices import (  # noqa: F401,E402
    circulant, companion, dft, hankel, hilbert, polar, toeplitz)
