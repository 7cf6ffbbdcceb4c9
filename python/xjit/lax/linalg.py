"""``xjit.lax.linalg``: JAX's ``jax.lax.linalg`` (factorizations and solves).

``cholesky`` and ``triangular_solve`` are graph ops (StableHLO's); ``lu``,
``qr``, ``householder_product``, ``eigh``, ``svd``, ``eig`` and ``schur``
call LAPACK through ``custom_call`` targets named as JAX's CPU lowering names
them.

Example:
    >>> from xjit.lax import linalg
    >>> linalg.cholesky(np.array([[4., 2.], [2., 5.]], np.float32))
    Array([[2., 0.],
           [1., 2.]], dtype=float32)
"""
from xjit._src.lax.decompositions import (  # noqa: F401
    cholesky, eig, eigh, householder_product, lu, lu_pivots_to_permutation, qr, schur, svd,
    symmetrize, triangular_solve)
