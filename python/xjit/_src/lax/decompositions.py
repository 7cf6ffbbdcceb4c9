"""``xjit.lax.linalg``'s graph ops: ``cholesky`` and ``triangular_solve``
(the StableHLO ops of those names), with JAX's signatures and checks.

Both work on the two innermost dimensions and batch over the others.

Example:
    >>> from xjit.lax import linalg
    >>> lax.linalg.cholesky(np.array([[4., 2.], [2., 5.]], np.float32))
    Array([[2., 0.],
           [1., 2.]], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit._src import dispatch
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import operands as ops
from xjit._src.lax import shapes as lax_shapes
from xjit._src.traceback_util import api_boundary


def _swap_last(x):
    nd = len(ops.shape_of(x))
    perm = list(range(nd))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return lax_shapes.transpose(x, perm)


def _is_complex(x) -> bool:
    return ops.kind(ops.dtype_of(x)) == "c"


def _adjoint(x):
    t = _swap_last(x)
    return lax_ew.conj(t) if _is_complex(x) else t


def _check_inexact(name: str, x) -> np.dtype:
    dt = ops.dtype_of(x)
    if ops.kind(dt) not in "fc":
        raise TypeError(f"{name} requires a floating-point or complex operand, got "
                        f"{np.dtype(dt).name}")
    return dt


def _check_matrices(name: str, what: str, shape: tuple) -> None:
    if len(shape) < 2:
        raise ValueError(f"{name}: {what} must have at least 2 dimensions (a batch of "
                         f"matrices), got shape {shape}")


def symmetrize(x):
    """``(x + x^H) / 2`` over the two innermost dimensions (JAX's ``symmetrize``)."""
    return lax_ew.div(lax_ew.add(x, _adjoint(x)), lax_ew.convert_element_type(2, ops.dtype_of(x)))


def tri_mask(shape: tuple, lower: bool, k: int = 0):
    """Boolean mask of the lower (``col - row <= k``) or upper (``>= k``) triangle."""
    m, n = shape[-2], shape[-1]
    row = lax_shapes.broadcasted_iota(np.int32, (m, n), 0)
    col = lax_shapes.broadcasted_iota(np.int32, (m, n), 1)
    diff = lax_ew.sub(col, row)
    mask = lax_ew.le(diff, np.int32(k)) if lower else lax_ew.ge(diff, np.int32(k))
    return lax_shapes.broadcast_in_dim(mask, tuple(shape), (len(shape) - 2, len(shape) - 1))


def triangle(x, lower: bool, k: int = 0):
    """``jnp.tril(x, k)`` (lower) or ``jnp.triu(x, k)``, on lax ops."""
    shape = ops.shape_of(x)
    return lax_ew.select(tri_mask(shape, lower, k), x,
                         lax_shapes.full_like(x, 0))


@api_boundary
def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor ``L`` of each Hermitian positive-definite
    matrix in ``x`` (``x = L L^H``), batched over leading dimensions
    (``jax.lax.linalg.cholesky``). With ``symmetrize_input`` the factor is of
    ``(x + x^H) / 2``; otherwise only the lower triangle of ``x`` is read.
    A matrix that is not positive definite gives NaNs in its factor's lower
    triangle, as JAX returns it.

    Example:
        >>> lax.linalg.cholesky(np.array([[1., 2.], [2., 1.]], np.float32))
        Array([[nan,  0.],
               [nan, nan]], dtype=float32)
    """
    ops.check_arraylike("cholesky", x)
    _check_inexact("cholesky", x)
    shape = ops.shape_of(x)
    if len(shape) < 2:
        raise TypeError(f"cholesky: x must have at least 2 dimensions (a batch of matrices), "
                        f"got shape {shape}")
    if shape[-1] != shape[-2]:
        raise TypeError(f"cholesky: the two innermost dimensions must be equal (square "
                         f"matrices), got shape {shape}")
    x = ops.as_operand(x)
    if symmetrize_input:
        x = symmetrize(x)
    return dispatch.bind("cholesky", [x], {"lower": True})


_TRANSPOSE_TEXT = {(False, False): "NO_TRANSPOSE", (True, False): "TRANSPOSE",
                   (True, True): "ADJOINT"}


@api_boundary
def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
    """Solves ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` for ``x``,
    with ``a`` triangular (only the ``lower`` or upper triangle is read; its
    diagonal taken as ones with ``unit_diagonal``) and ``op`` the transpose
    and/or conjugate asked for (``jax.lax.linalg.triangular_solve``). ``b`` may
    have one dimension fewer than ``a`` (one right-hand side per matrix).

    Example:
        >>> a = np.array([[2., 0.], [1., 1.]], np.float32)
        >>> lax.linalg.triangular_solve(a, np.array([[2.], [3.]], np.float32),
        ...                         left_side=True, lower=True)
        Array([[1.],
               [2.]], dtype=float32)
    """
    name = "triangular_solve"
    ops.check_arraylike(name, a, b)
    dt = ops.dtype_of(a)
    _check_inexact(name, a)
    if ops.dtype_of(b) != dt:
        raise TypeError(f"{name}: a and b must have the same dtype, got "
                        f"{np.dtype(dt).name} and {ops.dtype_of(b).name}")
    a_shape, b_shape = ops.shape_of(a), ops.shape_of(b)
    _check_matrices(name, "a", a_shape)
    if a_shape[-1] != a_shape[-2]:
        raise ValueError(f"{name}: a must be a batch of square matrices, got shape {a_shape}")
    singleton = len(b_shape) == len(a_shape) - 1
    a, b = ops.as_operand(a), ops.as_operand(b)
    if singleton:
        b = lax_shapes.expand_dims(b, (len(b_shape) if left_side else len(b_shape) - 1,))
        b_shape = ops.shape_of(b)
    if len(b_shape) != len(a_shape):
        raise ValueError(f"{name}: b must have the rank of a (or one less), got shapes "
                         f"{a_shape} and {ops.shape_of(b) if not singleton else b_shape}")
    if a_shape[:-2] != b_shape[:-2]:
        raise ValueError(f"{name}: a and b must have equal batch dimensions, got shapes "
                         f"{a_shape} and {b_shape}")
    k = b_shape[-2] if left_side else b_shape[-1]
    if k != a_shape[-1]:
        raise ValueError(f"{name}: incompatible shapes {a_shape} and {b_shape} with "
                         f"left_side={bool(left_side)}")
    conjugate_a = bool(conjugate_a) and ops.kind(dt) == "c"
    transpose_a = bool(transpose_a)
    if conjugate_a and not transpose_a:
        a = lax_ew.conj(a)
        conjugate_a = False
    attrs = {"left_side": bool(left_side), "lower": bool(lower),
             "unit_diagonal": bool(unit_diagonal),
             "transpose_a": _TRANSPOSE_TEXT[(transpose_a, conjugate_a)]}
    out = dispatch.bind("triangular_solve", [a, b], attrs)
    if singleton:
        out = lax_shapes.squeeze(out, (len(b_shape) - 1 if left_side else len(b_shape) - 2,))
    return out


# ---------------------------------------------------------------- helpers on lax

def _matmul(a, b):
    """Batched ``a @ b`` over the two innermost dimensions."""
    from xjit._src.lax.linalg import dot_general
    nd = len(ops.shape_of(a))
    batch = tuple(range(nd - 2))
    return dot_general(a, b, (((nd - 1,), (nd - 2,)), (batch, batch)))


def _eye(dtype, n: int, batch_ndim: int = 0):
    r = lax_shapes.broadcasted_iota(np.int32, (n, n), 0)
    c = lax_shapes.broadcasted_iota(np.int32, (n, n), 1)
    e = lax_ew.convert_element_type(lax_ew.eq(r, c), dtype)
    return lax_shapes.reshape(e, (1,) * batch_ndim + (n, n)) if batch_ndim else e


def _bcast_to(x, shape):
    xs = ops.shape_of(x)
    return lax_shapes.broadcast_in_dim(x, tuple(shape),
                                       tuple(range(len(shape) - len(xs), len(shape))))


def _nan_where_failed(x, ok):
    """``x`` where ``ok`` (one flag per batch element) holds, NaN elsewhere."""
    shape = ops.shape_of(x)
    okb = lax_shapes.broadcast_in_dim(ok, shape, tuple(range(len(ops.shape_of(ok)))))
    return lax_ew.select(okb, x, lax_shapes.full_like(x, np.nan))


def _info_ok(info, op: str = "eq"):
    zero = np.int32(0)
    return lax_ew.eq(info, zero) if op == "eq" else lax_ew.ge(info, zero)


def _real_part(x):
    return lax_ew.real(x) if _is_complex(x) else x


def _as_dtype(x, dtype):
    return x if ops.dtype_of(x) == np.dtype(dtype) else lax_ew.convert_element_type(x, dtype)


def _lapack_operand(name: str, x):
    from xjit._src.lax import lapack
    ops.check_arraylike(name, x)
    dt = ops.dtype_of(x)
    lapack.letter(name, dt)
    shape = ops.shape_of(x)
    if len(shape) < 2:
        raise ValueError(f"{name}: the argument must have at least 2 dimensions (a batch of "
                         f"matrices), got shape {shape}")
    return ops.as_operand(x), shape, dt


def _custom_jvp(fun, **kwargs):
    from xjit._src.custom_derivatives import custom_jvp
    return custom_jvp(fun, **kwargs)


# ---------------------------------------------------------------- LU

def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The permutation the row swaps ``pivots`` (0-based: row ``i`` swapped with
    ``pivots[..., i]``, in order) make of ``range(permutation_size)``
    (``jax.lax.linalg.lu_pivots_to_permutation``).

    Example:
        >>> lax.linalg.lu_pivots_to_permutation(np.array([2, 2, 2], np.int32), 3)
        Array([2, 0, 1], dtype=int32)
    """
    from xjit._src.lax.loops import fori_loop
    ops.check_arraylike("lu_pivots_to_permutation", pivots)
    if ops.kind(ops.dtype_of(pivots)) not in "iu":
        raise TypeError(f"lu_pivots_to_permutation: pivots must be integers, got "
                        f"{ops.dtype_of(pivots).name}")
    shape = ops.shape_of(pivots)
    if len(shape) < 1:
        raise ValueError("lu_pivots_to_permutation: pivots must have at least one dimension")
    k = shape[-1]
    n = int(permutation_size)
    if n < k:
        raise ValueError(f"lu_pivots_to_permutation: permutation_size ({n}) must be at least "
                         f"the number of pivots ({k})")
    pivots = lax_ew.convert_element_type(ops.as_operand(pivots), np.int32)
    batch = shape[:-1]
    full = batch + (n,)
    perm = lax_shapes.broadcasted_iota(np.int32, full, len(full) - 1)
    if k == 0:
        return perm
    iota = lax_shapes.broadcasted_iota(np.int32, full, len(full) - 1)
    from xjit._src.lax.slicing import dynamic_slice_in_dim
    from xjit._src.lax.reductions import reduce_sum

    def body(i, perm):
        # Swap perm[..., i] and perm[..., pivots[..., i]] with one-hot masks.
        j = lax_shapes.squeeze(dynamic_slice_in_dim(pivots, i, 1, len(batch)), (len(batch),))
        mi = lax_ew.eq(iota, _bcast_to(lax_ew.convert_element_type(i, np.int32), full))
        mj = lax_ew.eq(iota, lax_shapes.broadcast_in_dim(j, full, tuple(range(len(batch)))))
        zero = lax_shapes.full_like(perm, 0)
        pi = reduce_sum(lax_ew.select(mi, perm, zero), (len(full) - 1,))
        pj = reduce_sum(lax_ew.select(mj, perm, zero), (len(full) - 1,))
        bi = lax_shapes.broadcast_in_dim(pi, full, tuple(range(len(batch))))
        bj = lax_shapes.broadcast_in_dim(pj, full, tuple(range(len(batch))))
        return lax_ew.select(mi, bj, lax_ew.select(mj, bi, perm))
    return fori_loop(0, k, body, perm)


def _lu_impl(x):
    from xjit._src.lax import lapack
    shape = ops.shape_of(x)
    m, n = shape[-2], shape[-1]
    lu_, ipiv, info = lapack.getrf(x)
    pivots = lax_ew.sub(ipiv, np.int32(1))
    lu_ = _nan_where_failed(lu_, _info_ok(info, "ge"))
    perm = lu_pivots_to_permutation(pivots, m)
    return lu_, pivots, perm


def _permute_rows(x, perm):
    """``x[..., perm, :]`` per batch element (a batched gather through one-hot)."""
    from xjit._src.lax.slicing import GatherDimensionNumbers, gather
    shape = ops.shape_of(x)
    nb = len(shape) - 2
    idx = lax_shapes.expand_dims(perm, (nb + 1,))
    dnums = GatherDimensionNumbers(offset_dims=(nb + 1,), collapsed_slice_dims=(nb,),
                                   start_index_map=(nb,),
                                   operand_batching_dims=tuple(range(nb)),
                                   start_indices_batching_dims=tuple(range(nb)))
    return gather(x, idx, dnums, slice_sizes=(1,) * nb + (1, shape[-1]),
                  mode="promise_in_bounds")


def _lu_jvp(primals, tangents):
    (a,), (a_dot,) = primals, tangents
    lu_, pivots, perm = _lu(a)
    shape = ops.shape_of(a)
    m, n = shape[-2], shape[-1]
    k = min(m, n)
    dt = ops.dtype_of(a)
    nd = len(shape)
    nb = nd - 2
    x = _permute_rows(a_dot, perm)
    zero = np.array(0, dt)
    lk = lax_shapes.slice_in_dim(lu_, 0, k, axis=nd - 1)
    l_pad = [(0, 0, 0)] * (nd - 1) + [(0, m - k, 0)]
    l = lax_shapes.pad(triangle(lk, True, -1), zero, l_pad)
    l = lax_ew.add(l, _bcast_to(_eye(dt, m), ops.shape_of(l)))
    uk = lax_shapes.slice_in_dim(lu_, 0, k, axis=nd - 2)
    u_pad = [(0, 0, 0)] * (nd - 2) + [(0, n - k, 0), (0, 0, 0)]
    u = lax_shapes.pad(triangle(uk, False, 0), zero, u_pad)
    if n > k:
        u_eye = lax_shapes.pad(_eye(dt, n - k), zero, [(k, 0, 0), (k, 0, 0)])
        u = lax_ew.add(u, _bcast_to(u_eye, ops.shape_of(u)))
    la = triangular_solve(l, x, left_side=True, lower=True, unit_diagonal=True)
    lau = triangular_solve(u, la, left_side=False, lower=False)
    l_dot = _matmul(l, triangle(lau, True, -1))
    u_dot = _matmul(triangle(lau, False, 0), u)
    from xjit._src.api_transforms import float0
    return (lu_, pivots, perm), (lax_ew.add(l_dot, u_dot),
                                 np.zeros(ops.shape_of(pivots), float0),
                                 np.zeros(ops.shape_of(perm), float0))


_lu = None


def _lu_fn():
    global _lu
    if _lu is None:
        _lu = _custom_jvp(_lu_impl)
        _lu.defjvp(_lu_jvp)
    return _lu


@api_boundary
def lu(x):
    """LU decomposition with partial pivoting: ``(lu, pivots, permutation)``
    with ``x[..., permutation, :] = L @ U``, ``L`` unit lower (below ``lu``'s
    diagonal) and ``U`` upper (on and above it); ``pivots`` are LAPACK's row
    swaps, 0-based (``jax.lax.linalg.lu``). A singular matrix still factors
    (U has a zero on its diagonal).

    Example:
        >>> lu, piv, perm = lax.linalg.lu(np.array([[1., 2.], [3., 4.]], np.float32))
        >>> perm
        Array([1, 0], dtype=int32)
    """
    x, _, _ = _lapack_operand("lu", x)
    return tuple(_lu_fn()(x))


# ---------------------------------------------------------------- QR

@api_boundary
def householder_product(a, taus):
    """The product of the Householder reflectors stored below ``a``'s diagonal
    with scales ``taus``: the first ``n`` columns, ``m >= n >= k``
    (``jax.lax.linalg.householder_product``)."""
    a, shape, dt = _lapack_operand("householder_product", a)
    ts = ops.shape_of(taus)
    if ops.dtype_of(taus) != dt:
        raise TypeError(f"householder_product: taus must have a's dtype {dt.name}, got "
                        f"{ops.dtype_of(taus).name}")
    m, n = shape[-2], shape[-1]
    if not ts or ts[:-1] != shape[:-2] or not (m >= n >= ts[-1]):
        raise ValueError(f"householder_product: needs a[..., m, n] and taus[..., k] with "
                         f"m >= n >= k and equal batch dimensions, got {shape} and {ts}")
    from xjit._src.lax import lapack
    return lapack.orgqr(a, ops.as_operand(taus))


def _qr_impl(x, full_matrices: bool):
    from xjit._src.lax import lapack
    shape = ops.shape_of(x)
    nd = len(shape)
    m, n = shape[-2], shape[-1]
    dt = ops.dtype_of(x)
    r, taus = lapack.geqrf(x)
    if m < n:
        q = lapack.orgqr(lax_shapes.slice_in_dim(r, 0, m, axis=nd - 1), taus)
    elif full_matrices:
        q = lax_shapes.pad(r, np.array(0, dt), [(0, 0, 0)] * (nd - 1) + [(0, m - n, 0)])
        q = lapack.orgqr(q, taus)
    else:
        q = lapack.orgqr(r, taus)
        r = lax_shapes.slice_in_dim(r, 0, n, axis=nd - 2)
    return q, triangle(r, False, 0)


def _qr_jvp(full_matrices, primals, tangents):
    (x,), (dx,) = primals, tangents
    shape = ops.shape_of(x)
    m, n = shape[-2], shape[-1]
    q, r = _qr_fns[False](x)
    dx_rinv = triangular_solve(r, dx)
    qt_dx_rinv = _matmul(_adjoint(q), dx_rinv)
    low = triangle(qt_dx_rinv, True, -1)
    do = lax_ew.sub(low, _adjoint(low))
    if _is_complex(x):
        eye = _bcast_to(_eye(ops.dtype_of(x), n), ops.shape_of(do))
        im = lax_ew.sub(qt_dx_rinv, _as_dtype(lax_ew.real(qt_dx_rinv), ops.dtype_of(x)))
        do = lax_ew.add(do, lax_ew.mul(eye, im))
    dq = lax_ew.add(_matmul(q, lax_ew.sub(do, qt_dx_rinv)), dx_rinv)
    dr = _matmul(lax_ew.sub(qt_dx_rinv, do), r)
    return (q, r), (dq, dr)


_qr_fns: dict = {}


def _qr_fn(full_matrices: bool):
    if full_matrices not in _qr_fns:
        f = _custom_jvp(lambda x, fm=full_matrices: _qr_impl(x, fm))
        f.defjvp(lambda p, t, fm=full_matrices: _qr_jvp(fm, p, t))
        _qr_fns[full_matrices] = f
    return _qr_fns[full_matrices]


@api_boundary
def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    """QR decomposition ``x = q @ r`` (``jax.lax.linalg.qr``): ``q`` is
    ``m x m`` (``full_matrices``) or ``m x min(m, n)``, ``r`` upper triangular.

    Example:
        >>> q, r = lax.linalg.qr(np.eye(2, dtype=np.float32))
        >>> r.shape
        (2, 2)
    """
    if pivoting:
        raise NotImplementedError("qr: pivoting=True is not supported by xjit")
    x, shape, _ = _lapack_operand("qr", x)
    m, n = shape[-2], shape[-1]
    _qr_fn(False)
    if m < n or (full_matrices and m != n):
        # No JVP rule for these shapes (as JAX): differentiating fails at the
        # LAPACK custom_call, naming it.
        return tuple(_qr_impl(x, bool(full_matrices)))
    return tuple(_qr_fn(False)(x))  # a square full QR is the reduced one


# ---------------------------------------------------------------- eigh

def _eigh_impl(x, lower: bool):
    from xjit._src.lax import lapack
    v, w, info = lapack.heevd(x, lower=lower)
    ok = _info_ok(info)
    return _nan_where_failed(v, ok), _nan_where_failed(w, ok)


def _eigh_jvp(lower, primals, tangents):
    (a,), (a_dot,) = primals, tangents
    v, w_real = _eigh_fns[lower](a)
    dt = ops.dtype_of(a)
    n = ops.shape_of(a)[-1]
    w = _as_dtype(w_real, dt)
    eye = _bcast_to(_eye(dt, n), ops.shape_of(a))
    wr = lax_shapes.expand_dims(w, (len(ops.shape_of(w)) - 1,))
    wc = lax_shapes.expand_dims(w, (len(ops.shape_of(w)),))
    fmat = lax_ew.sub(lax_ew.integer_pow(lax_ew.add(eye, lax_ew.sub(
        _bcast_to(wr, ops.shape_of(a)), _bcast_to(wc, ops.shape_of(a)))), -1), eye)
    vav = _matmul(_matmul(_adjoint(v), a_dot), v)
    dv = _matmul(v, lax_ew.mul(fmat, vav))
    dw = _real_part(_diagonal(vav))
    return (v, w_real), (dv, dw)


def _diagonal(x):
    from xjit._src.lax.reductions import reduce_sum
    shape = ops.shape_of(x)
    n = shape[-1]
    eye = _bcast_to(lax_ew.eq(lax_shapes.broadcasted_iota(np.int32, (n, n), 0),
                              lax_shapes.broadcasted_iota(np.int32, (n, n), 1)), shape)
    return reduce_sum(lax_ew.select(eye, x, lax_shapes.full_like(x, 0)), (len(shape) - 1,))


_eigh_fns: dict = {}


def _eigh_fn(lower: bool):
    if lower not in _eigh_fns:
        f = _custom_jvp(lambda x, lo=lower: _eigh_impl(x, lo))
        f.defjvp(lambda p, t, lo=lower: _eigh_jvp(lo, p, t))
        _eigh_fns[lower] = f
    return _eigh_fns[lower]


@api_boundary
def eigh(x, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
         subset_by_index=None):
    """Eigendecomposition of Hermitian matrices: ``(v, w)`` with
    ``x @ v = v * w``, eigenvalues ``w`` real and ascending, eigenvectors the
    columns of ``v`` (``jax.lax.linalg.eigh``). NaNs where LAPACK fails.

    Example:
        >>> v, w = lax.linalg.eigh(np.diag(np.array([2., 1.], np.float32)))
        >>> w
        Array([1., 2.], dtype=float32)
    """
    if subset_by_index is not None:
        raise NotImplementedError("eigh: subset_by_index is not supported by xjit")
    x, shape, _ = _lapack_operand("eigh", x)
    if shape[-1] != shape[-2]:
        raise ValueError(f"eigh: the argument must be a batch of square matrices, got shape "
                         f"{shape}")
    if symmetrize_input:
        x = symmetrize(x)
    return tuple(_eigh_fn(bool(lower))(x))


# ---------------------------------------------------------------- SVD

def _svd_impl(x, full_matrices: bool, compute_uv: bool):
    from xjit._src.lax import lapack
    s, u, vt, info = lapack.gesdd(x, full_matrices=full_matrices, compute_uv=compute_uv)
    ok = _info_ok(info)
    s = _nan_where_failed(s, ok)
    if not compute_uv:
        return (s,)
    return s, _nan_where_failed(u, ok), _nan_where_failed(vt, ok)


def _svd_jvp(full_matrices, compute_uv, primals, tangents):
    (a,), (da,) = primals, tangents
    s, u, vt = _svd_fn(False, True)(a)
    dt = ops.dtype_of(a)
    rdt = ops.dtype_of(s)
    ut, v = _adjoint(u), _adjoint(vt)
    ds_mat = _matmul(_matmul(ut, da), v)
    ds = _real_part(_diagonal(ds_mat))
    if not compute_uv:
        return (s,), (ds,)
    k = ops.shape_of(s)[-1]
    ks = ops.shape_of(s)[:-1] + (k, k)
    s_row = _bcast_to(lax_shapes.expand_dims(s, (len(ks) - 2,)), ks)  # s[..., None, :]
    s_col = _swap_last(s_row)
    s_diffs = lax_ew.mul(lax_ew.add(s_row, s_col), lax_ew.sub(s_row, s_col))
    eye_r = _bcast_to(_eye(rdt, k), ks)
    f = lax_ew.sub(lax_ew.div(np.array(1, rdt), lax_ew.add(s_diffs, eye_r)), eye_r)
    s_row_c = _as_dtype(s_row, dt)
    dss = lax_ew.mul(s_row_c, ds_mat)
    sds = lax_ew.mul(_swap_last(s_row_c), ds_mat)
    s_zeros = _as_dtype(lax_ew.eq(s, np.array(0, rdt)), rdt)
    s_inv = lax_ew.sub(lax_ew.div(np.array(1, rdt), lax_ew.add(s, s_zeros)), s_zeros)
    s_inv_mat = lax_ew.mul(eye_r, _bcast_to(lax_shapes.expand_dims(s_inv, (len(ks) - 2,)), ks))
    dudv_diag = lax_ew.mul(lax_ew.mul(lax_ew.sub(ds_mat, _adjoint(ds_mat)), np.array(0.5, dt)),
                           _as_dtype(s_inv_mat, dt))
    fc = _as_dtype(f, dt)
    du = _matmul(u, lax_ew.add(lax_ew.mul(fc, lax_ew.add(dss, _adjoint(dss))), dudv_diag))
    dv = _matmul(v, lax_ew.mul(fc, lax_ew.add(sds, _adjoint(sds))))
    m, n = ops.shape_of(a)[-2:]
    if m > n:
        dav = _matmul(da, v)
        corr = lax_ew.sub(dav, _matmul(u, _matmul(ut, dav)))
        du = lax_ew.add(du, lax_ew.div(corr, _bcast_to(lax_shapes.expand_dims(
            _as_dtype(s, dt), (len(ks) - 2,)), ops.shape_of(corr))))
    if n > m:
        dahu = _matmul(_adjoint(da), u)
        corr = lax_ew.sub(dahu, _matmul(v, _matmul(vt, dahu)))
        dv = lax_ew.add(dv, lax_ew.div(corr, _bcast_to(lax_shapes.expand_dims(
            _as_dtype(s, dt), (len(ks) - 2,)), ops.shape_of(corr))))
    return (s, u, vt), (ds, du, _adjoint(dv))


_jvp_fns: dict = {}


def _with_jvp(impl, jvp, *options):
    """``impl(x, *options)`` as a custom_jvp function whose rule is
    ``jvp(*options, primals, tangents)``; one per (impl, options), so equal
    calls trace the same function."""
    key = (impl, options)
    if key not in _jvp_fns:
        f = _custom_jvp(lambda x: impl(x, *options))
        f.defjvp(lambda p, t: jvp(*options, p, t))
        _jvp_fns[key] = f
    return _jvp_fns[key]


def _svd_fn(full_matrices: bool, compute_uv: bool):
    return _with_jvp(_svd_impl, _svd_jvp, full_matrices, compute_uv)


@api_boundary
def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
    """Singular value decomposition ``x = u @ diag(s) @ vh`` (``jax.lax.linalg.svd``):
    ``(u, s, vh)``, or ``s`` alone without ``compute_uv``; ``s`` descending.

    Example:
        >>> lax.linalg.svd(np.diag(np.array([1., 3.], np.float32)), compute_uv=False)
        Array([3., 1.], dtype=float32)
    """
    if subset_by_index is not None:
        raise NotImplementedError("svd: subset_by_index is not supported by xjit")
    x, shape, _ = _lapack_operand("svd", x)
    full = bool(full_matrices) and bool(compute_uv) and shape[-1] != shape[-2]
    if full:
        # No JVP rule for full non-square factors (as JAX): differentiating
        # fails at the LAPACK custom_call, naming it.
        out = _svd_impl(x, True, True)
    else:  # a square full SVD is the reduced one
        out = _svd_fn(False, bool(compute_uv))(x)
    if not compute_uv:
        return out[0]
    s, u, vt = out
    return u, s, vt


# ---------------------------------------------------------------- eig, schur

@api_boundary
def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        use_magma=None):
    """Eigendecomposition of general square matrices (``jax.lax.linalg.eig``):
    ``[w, vl, vr]`` (vectors as asked), complex; NaNs where LAPACK fails.
    Differentiable for the eigenvalues alone (``dw = diag(v^-1 da v)``); with
    eigenvectors asked for, differentiating raises NotImplementedError, as in
    JAX."""
    x, shape, _ = _lapack_operand("eig", x)
    if shape[-1] != shape[-2]:
        raise ValueError(f"eig: the argument must be a batch of square matrices, got {shape}")
    return list(_eig_fn(bool(compute_left_eigenvectors), bool(compute_right_eigenvectors))(x))


def _eig_impl(x, left: bool, right: bool):
    from xjit._src.lax import lapack
    w, vl, vr, info = lapack.geev(x, left=left, right=right)
    ok = _info_ok(info)
    out = [_nan_where_failed(w, ok)]
    if left:
        out.append(_nan_where_failed(vl, ok))
    if right:
        out.append(_nan_where_failed(vr, ok))
    return tuple(out)


def _eig_jvp(left: bool, right: bool, primals, tangents):
    if left or right:
        raise NotImplementedError(
            "The derivatives of eigenvectors are not implemented, only eigenvalues. See "
            "https://github.com/jax-ml/jax/issues/2748 for discussion.")
    (a,), (da,) = primals, tangents
    w, v = _eig_impl(a, False, True)
    # v^-1 (da v) through v's LU: P v = L U.
    lu_, _, perm = _lu_impl(v)
    dav = _matmul(_as_dtype(da, ops.dtype_of(v)), v)
    y = triangular_solve(lu_, _permute_rows(dav, perm), left_side=True, lower=True,
                         unit_diagonal=True)
    y = triangular_solve(lu_, y, left_side=True, lower=False)
    return (w,), (_diagonal(y),)


def _eig_fn(left: bool, right: bool):
    return _with_jvp(_eig_impl, _eig_jvp, left, right)


@api_boundary
def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable=None):
    """Schur decomposition ``x = vs @ t @ vs^H`` (``jax.lax.linalg.schur``):
    ``(t, vs)``; real input gives the real (quasi-triangular) form."""
    from xjit._src.lax import lapack
    if sort_eig_vals or select_callable is not None:
        raise NotImplementedError("schur: sorting the eigenvalues is not supported by xjit")
    x, shape, _ = _lapack_operand("schur", x)
    if shape[-1] != shape[-2]:
        raise ValueError(f"schur: the argument must be a batch of square matrices, got {shape}")
    t, vs, _, _, info = lapack.gees(x, vectors=compute_schur_vectors)
    ok = _info_ok(info)
    return _nan_where_failed(t, ok), _nan_where_failed(vs, ok)
