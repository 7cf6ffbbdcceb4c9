"""``xjit.numpy.linalg``: numpy's linear algebra on xjit arrays (``jax.numpy.linalg``).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.linalg.det(jnp.array([[2., 0.], [0., 4.]]))
    Array(8., dtype=float32)
"""
from xjit._src.numpy.linalg import (  # noqa: F401
    EighResult, EigResult, QRResult, SlogdetResult, SVDResult, cholesky, cond, det, diagonal,
    eig, eigh, eigvals, eigvalsh, inv, lstsq, matrix_norm, matrix_power, matrix_rank,
    matrix_transpose, multi_dot, norm, outer, pinv, qr, slogdet, solve, svd, svdvals, tensorinv,
    tensorsolve, trace, vector_norm)
# The array API's names in linalg (the same functions as in xjit.numpy).
from xjit._src.numpy.array_edits import cross  # noqa: F401,E402
from xjit._src.numpy.array_more import vecdot  # noqa: F401,E402
from xjit._src.numpy.linalg_ops import matmul, tensordot  # noqa: F401,E402
