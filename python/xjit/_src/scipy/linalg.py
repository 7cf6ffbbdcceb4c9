"""``xjit.scipy.linalg``: SciPy's linear algebra with JAX's signatures
(``jax.scipy.linalg``), on ``xjit.lax.linalg`` and ``xjit.numpy.linalg``.

Example:
    >>> from xjit.scipy import linalg
    >>> linalg.block_diag(np.ones((1, 1)), 2 * np.ones((1, 2)))
    Array([[1., 0., 0.],
           [0., 2., 2.]], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit._src.lax import decompositions as lax_linalg
from xjit._src.numpy import linalg as np_linalg
from xjit._src.numpy import util
from xjit._src.traceback_util import api_boundary


def _jnp():
    from xjit._src.numpy.namespace import jnp
    return jnp


def _inexact(name, *args):
    return np_linalg._inexact(name, *args)


@api_boundary
def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """Cholesky factor: upper ``U`` with ``a = U^H U`` (default) or lower ``L``
    (``scipy.linalg.cholesky``); only that triangle of ``a`` is read."""
    (a,) = _inexact("cholesky", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"cholesky: expected a batch of square matrices, got {a.shape}")
    x = a if lower else np_linalg._H(a)
    l = lax_linalg.cholesky(x, symmetrize_input=False)
    return l if lower else np_linalg._H(l)


@api_boundary
def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """``(c, lower)`` for ``cho_solve`` (``scipy.linalg.cho_factor``)."""
    return cholesky(a, lower=lower), lower


@api_boundary
def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """Solves ``a x = b`` from ``cho_factor(a)`` (``scipy.linalg.cho_solve``)."""
    c, lower = c_and_lower
    c, b = _inexact("cho_solve", c, b)
    _check_solve_shapes("cho_solve", c, b)
    vector = b.ndim == c.ndim - 1
    if vector:
        b = b[..., None]
    b = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=not lower,
                                    conjugate_a=not lower)
    b = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=lower,
                                    conjugate_a=lower)
    return b[..., 0] if vector else b


def _check_solve_shapes(name, a, b):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or b.ndim < 1:
        raise ValueError(f"{name}: the first argument must be a batch of square matrices, "
                         f"got {a.shape}")
    if b.ndim == a.ndim - 1:
        ok = b.shape == a.shape[:-1]
    else:
        ok = b.ndim == a.ndim and b.shape[:-2] == a.shape[:-2] and b.shape[-2] == a.shape[-1]
    if not ok:
        raise ValueError(f"{name}: incompatible shapes {a.shape} and {b.shape}: b must be "
                         f"a.shape[:-1] (vectors) or a.shape[:-2] + (n, k)")


@api_boundary
def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
    """Solves ``op(a) x = b`` with ``a`` triangular; ``trans`` 0/'N', 1/'T' or
    2/'C' (``scipy.linalg.solve_triangular``)."""
    if trans in (0, "N"):
        transpose_a, conjugate_a = False, False
    elif trans in (1, "T"):
        transpose_a, conjugate_a = True, False
    elif trans in (2, "C"):
        transpose_a, conjugate_a = True, True
    else:
        raise ValueError(f"Invalid 'trans' value {trans}")
    a, b = _inexact("solve_triangular", a, b)
    vector = a.ndim == b.ndim + 1
    if vector:
        b = b[..., None]
    out = lax_linalg.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=transpose_a,
                                      conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    return out[..., 0] if vector else out


@api_boundary
def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """``(p, l, u)`` with ``a = p @ l @ u`` (``permute_l``: ``(p @ l, u)``;
    ``scipy.linalg.lu``)."""
    jnp = _jnp()
    (a,) = _inexact("lu", a)
    lu_, _, perm = lax_linalg.lu(a)
    dt = a.dtype
    m, n = a.shape[-2:]
    p = (perm[..., None] == jnp.arange(m, dtype=perm.dtype)).astype(dt)
    p = jnp.swapaxes(p, -1, -2)
    k = min(m, n)
    l = jnp.tril(lu_, -1)[..., :, :k] + jnp.eye(m, k, dtype=dt)
    u = jnp.triu(lu_)[..., :k, :]
    if permute_l:
        return jnp.matmul(p, l), u
    return p, l, u


@api_boundary
def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    """``(lu, piv)``: LAPACK's packed LU and 0-based row swaps (``scipy.linalg.lu_factor``)."""
    (a,) = _inexact("lu_factor", a)
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


@api_boundary
def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True):
    """Solves ``a x = b`` (trans 0), ``a^T x = b`` (1) or ``a^H x = b`` (2)
    from ``lu_factor(a)`` (``scipy.linalg.lu_solve``)."""
    lu_, pivots = lu_and_piv
    lu_, b = _inexact("lu_solve", lu_, b)
    if trans not in (0, 1, 2):
        raise ValueError(f"lu_solve: trans must be 0, 1 or 2, got {trans}")
    m = lu_.shape[-2]
    perm = lax_linalg.lu_pivots_to_permutation(pivots, m)
    _check_solve_shapes("lu_solve", lu_, b)
    vector = b.ndim == lu_.ndim - 1
    if vector:
        b = b[..., None]
    x = np_linalg._lu_solve(lu_, perm, b, trans)
    return x[..., 0] if vector else x


@api_boundary
def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
    """Solves ``a x = b`` (``scipy.linalg.solve``): ``assume_a='pos'`` through
    Cholesky, otherwise LU."""
    if assume_a not in {"gen", "sym", "her", "pos"}:
        raise ValueError(f"Expected assume_a to be one of {{'gen', 'sym', 'her', 'pos'}}, "
                         f"got {assume_a}.")
    a, b = _inexact("solve", a, b)
    if assume_a != "pos":
        return np_linalg.solve(a, b)
    _check_solve_shapes("solve", a, b)
    return cho_solve(cho_factor(a, lower=lower), b)


@api_boundary
def det(a, overwrite_a: bool = False, check_finite: bool = True):
    return np_linalg.det(a)


@api_boundary
def inv(a, overwrite_a: bool = False, check_finite: bool = True):
    return np_linalg.inv(a)


@api_boundary
def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,
         check_finite: bool = True, *, subset_by_index=None):
    """Eigenvalues (and eigenvectors) of Hermitian matrices (``scipy.linalg.eigh``);
    the generalized problem (``b``) is not supported, as in JAX."""
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    (a,) = _inexact("eigh", a)
    v, w = lax_linalg.eigh(a, lower=lower, symmetrize_input=False,
                           subset_by_index=subset_by_index)
    return w if eigvals_only else (w, v)


@api_boundary
def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    """QR decomposition (``scipy.linalg.qr``): mode ``full``, ``economic`` or
    ``r`` (returns ``(r,)``)."""
    if mode in ("full", "r"):
        full_matrices = True
    elif mode == "economic":
        full_matrices = False
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    (a,) = _inexact("qr", a)
    q, r = lax_linalg.qr(a, pivoting=pivoting, full_matrices=full_matrices)
    if mode == "r":
        return (r,)
    return q, r


@api_boundary
def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
    """``(u, s, vh)`` or ``s`` (``scipy.linalg.svd``)."""
    (a,) = _inexact("svd", a)
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


@api_boundary
def schur(a, output: str = "real"):
    """``(t, z)`` with ``a = z @ t @ z^H`` (``scipy.linalg.schur``): the real
    (quasi-triangular) form of a real matrix, or with ``output="complex"``
    the complex (triangular) one."""
    if output not in ("real", "complex"):
        raise ValueError(f"schur: output must be 'real' or 'complex', got {output!r}")
    (a,) = _inexact("schur", a)
    if output == "complex":
        a = a.astype(np.result_type(a.dtype, np.complex64))
    return lax_linalg.schur(a)


@api_boundary
def block_diag(*arrs):
    """The arrays (at most 2-d) on the diagonal of one matrix (``scipy.linalg.block_diag``)."""
    jnp = _jnp()
    if len(arrs) == 0:
        arrs = (jnp.zeros((1, 0)),)
    util.check_arraylike("block_diag", *arrs)
    dt = jnp.result_type(*arrs)
    arrs = [jnp.asarray(a).astype(dt) for a in arrs]
    bad = [i for i, a in enumerate(arrs) if a.ndim > 2]
    if bad:
        raise ValueError(f"Arguments to jax.scipy.linalg.block_diag must have at most 2 "
                         f"dimensions, got {arrs[bad[0]]} at argument {bad[0]}.")
    arrs = [jnp.atleast_2d(a) for a in arrs]
    rows = sum(a.shape[0] for a in arrs)
    cols = sum(a.shape[1] for a in arrs)
    parts, c0 = [], 0
    for a in arrs:
        parts.append(jnp.pad(a, ((0, 0), (c0, cols - c0 - a.shape[1]))))
        c0 += a.shape[1]
    out = jnp.concatenate(parts, axis=0)
    assert out.shape == (rows, cols)
    return out


# ---------------------------------------------------------------- expm

_PADE = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
        3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
}


def _pade(order):
    def approx(a):
        jnp = _jnp()
        b = _PADE[order]
        ident = jnp.eye(a.shape[-1], dtype=a.dtype)
        a2 = a @ a
        if order == 13:
            a4 = a2 @ a2
            a6 = a4 @ a2
            u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 +
                     b[3] * a2 + b[1] * ident)
            v = (a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 +
                 b[2] * a2 + b[0] * ident)
            return u, v
        powers = [ident, a2]
        while len(powers) < (order + 1) // 2:
            powers.append(powers[-1] @ a2)
        u_inner = sum(b[2 * i + 1] * p for i, p in enumerate(powers))
        v = sum(b[2 * i] * p for i, p in enumerate(powers))
        return a @ u_inner, v
    return approx


def _expm_2d(a, upper_triangular: bool, max_squarings: int):
    from xjit._src.lax.control_flow import switch
    from xjit._src.lax.loops import fori_loop
    jnp = _jnp()
    l1 = np_linalg.norm(a, 1)
    if a.dtype in (np.float64, np.complex128):
        maxnorm = 5.371920351148152
        conds = [1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001,
                 2.097847961257068e+000]
        orders = [3, 5, 7, 9, 13]
    else:
        maxnorm = 3.925724783138660
        conds = [4.258730016922831e-001, 1.880152677804762e+000]
        orders = [3, 5, 7]
    n_sq = jnp.maximum(0, jnp.floor(jnp.log2(l1 / maxnorm)))
    a = a / (2 ** n_sq).astype(a.dtype)
    idx = jnp.sum(jnp.asarray(conds, dtype=l1.dtype) <= l1).astype(jnp.int32)
    u, v = switch(idx, [_pade(o) for o in orders], a)
    p, q = u + v, v - u

    r = solve_triangular(q, p) if upper_triangular else np_linalg.solve(q, p)
    n = n_sq.astype(jnp.int32)
    r = fori_loop(0, max_squarings, lambda i, r: jnp.where(i < n, r @ r, r), r)
    # Beyond max_squarings the result is NaN, as JAX's (a select, not a cond:
    # reverse mode goes through it).
    return jnp.where(n_sq > max_squarings, jnp.full_like(r, jnp.nan), r)


@api_boundary
def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
    """Matrix exponential by scaling and squaring with a Pade approximant
    (``jax.scipy.linalg.expm``: orders 3-13 for double, 3-7 for single
    precision); batched over leading dimensions; NaN beyond ``max_squarings``."""
    jnp = _jnp()
    (A,) = _inexact("expm", A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={A.shape}.")
    if A.shape[-1] == 0:
        return A
    if A.ndim > 2:
        from xjit._src.api_transforms import vmap
        flat = A.reshape((-1,) + A.shape[-2:])
        out = vmap(lambda m: _expm_2d(m, upper_triangular, max_squarings))(flat)
        return out.reshape(A.shape)
    return _expm_2d(A, upper_triangular, max_squarings)


__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "det", "eigh", "expm", "inv",
           "lu", "lu_factor", "lu_solve", "qr", "schur", "solve", "solve_triangular", "svd"]
