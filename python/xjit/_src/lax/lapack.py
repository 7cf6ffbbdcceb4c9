"""Calls of the LAPACK custom_call targets, under the names and conventions of
JAX's CPU lowering (``lapack_sgetrf_ffi`` ...; csrc/xjit/backends/lapack/).

Each function takes a batch of matrices (leading dimensions batch) of
float32, float64, complex64 or complex128 and returns the target's results as
a list. Character options travel as JAX writes them in ``mhlo.backend_config``:
``{uplo = 76 : ui8}`` is ``'L'``. As in JAX's lowering, every matrix operand
and result is declared column-major (the targets work on LAPACK's layout; the
custom_call runner converts), vectors and scalars row-major; gesdd and
getrf_t instead factor the transpose, which needs no conversion at all.
"""
from __future__ import annotations

import numpy as np

from xjit._src.core import ShapeDtypeStruct
from xjit._src.lax import operands as ops
from xjit._src.lax import shapes as lax_shapes

_LETTER = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
           np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}
_REAL = {np.dtype(np.float32): np.dtype(np.float32), np.dtype(np.float64): np.dtype(np.float64),
         np.dtype(np.complex64): np.dtype(np.float32),
         np.dtype(np.complex128): np.dtype(np.float64)}
_COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64),
            np.dtype(np.float64): np.dtype(np.complex128),
            np.dtype(np.complex64): np.dtype(np.complex64),
            np.dtype(np.complex128): np.dtype(np.complex128)}


def _custom_call(*args, **kwargs):
    from xjit._src.lax.custom_call import custom_call  # lands with the custom_call op
    return custom_call(*args, **kwargs)


def letter(name: str, dtype) -> str:
    """The LAPACK type letter of ``dtype``; TypeError for other dtypes."""
    dt = np.dtype(dtype)
    if dt not in _LETTER:
        raise TypeError(f"{name}: unsupported dtype {dt.name} (LAPACK has float32, float64, "
                        f"complex64 and complex128)")
    return _LETTER[dt]


def real_dtype(dtype) -> np.dtype:
    return _REAL[np.dtype(dtype)]


def complex_dtype(dtype) -> np.dtype:
    return _COMPLEX[np.dtype(dtype)]


def _aval(shape, dtype):
    return ShapeDtypeStruct(tuple(int(d) for d in shape), np.dtype(dtype))


def _char(c: str) -> int:
    return ord(c)


def _layout(rank: int, matrix: bool) -> tuple:
    """Minor-to-major: matrices column-major over batch-major, others row-major."""
    if matrix and rank >= 2:
        return (rank - 2, rank - 1) + tuple(range(rank - 3, -1, -1))
    return tuple(range(rank - 1, -1, -1))


def _call(target: str, operands, results, config: dict | None = None, *,
          row_major: bool = False) -> list:
    """Values of the first operand's batch rank + 2 are matrices, declared
    column-major; with ``row_major`` every value is declared row-major, and the
    target, which reads column-major, works on the transposes (gesdd, getrf_t)."""
    operands = [ops.as_operand(x) for x in operands]
    batch_rank = len(ops.shape_of(operands[0])) - 2
    is_matrix = lambda rank: not row_major and rank == batch_rank + 2  # noqa: E731
    op_layouts = [_layout(len(ops.shape_of(x)), is_matrix(len(ops.shape_of(x))))
                  for x in operands]
    res_layouts = [_layout(len(s), is_matrix(len(s))) for s, _ in results]
    out = _custom_call(target, operands, [_aval(s, d) for s, d in results],
                       backend_config={k: np.uint8(v) for k, v in (config or {}).items()},
                       api_version=4, operand_layouts=op_layouts, result_layouts=res_layouts)
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _geometry(x):
    shape = ops.shape_of(x)
    return shape[:-2], shape[-2], shape[-1], ops.dtype_of(x)


def getrf(x) -> list:
    """(lu, ipiv (1-based, int32), info (int32))."""
    batch, m, n, dt = _geometry(x)
    t = f"lapack_{letter('lu', dt)}getrf_ffi"
    return _call(t, [x], [(batch + (m, n), dt), (batch + (min(m, n),), np.int32),
                          (batch, np.int32)])


def getrf_t(x) -> list:
    """LU of the transposes of square matrices, with no layout conversion:
    (m, ipiv, info) with P x^T = L U, where m, read row-major, holds U^T on
    and below the diagonal and L^T (unit diagonal implied) above it: x's
    row-major bytes are x^T's column-major bytes, and LAPACK's column-major
    result read row-major is its transpose. So x = U^T L^T P."""
    batch, n, _, dt = _geometry(x)
    t = f"lapack_{letter('lu', dt)}getrf_ffi"
    return _call(t, [x], [(batch + (n, n), dt), (batch + (n,), np.int32), (batch, np.int32)],
                 row_major=True)


def geqrf(x) -> list:
    """(a with R above and reflectors below the diagonal, tau)."""
    batch, m, n, dt = _geometry(x)
    t = f"lapack_{letter('qr', dt)}geqrf_ffi"
    return _call(t, [x], [(batch + (m, n), dt), (batch + (min(m, n),), dt)])


def orgqr(a, tau):
    """The first n columns of the product of the reflectors (m >= n >= k)."""
    batch, m, n, dt = _geometry(a)
    ch = letter("householder_product", dt)
    name = "orgqr" if ch in "sd" else "ungqr"
    return _call(f"lapack_{ch}{name}_ffi", [a, tau], [(batch + (m, n), dt)])[0]


def heevd(x, *, lower: bool = True, vectors: bool = True) -> list:
    """(v, w (real, ascending), info)."""
    batch, n, _, dt = _geometry(x)
    ch = letter("eigh", dt)
    name = "syevd" if ch in "sd" else "heevd"
    return _call(f"lapack_{ch}{name}_ffi", [x],
                 [(batch + (n, n), dt), (batch + (n,), real_dtype(dt)), (batch, np.int32)],
                 {"mode": _char("V" if vectors else "N"), "uplo": _char("L" if lower else "U")})


def gesdd(x, *, full_matrices: bool, compute_uv: bool) -> list:
    """(s, u, vt, info).

    With no layout conversion: x's row-major bytes are the column-major bytes
    of x^T (n x m), and gesdd(x^T) = u' s v'^H gives x = conj(v') s u'^T, so
    u = conj(v') and vt = u'^T, which are the row-major reading of v'^H and u'
    as LAPACK writes them. The call declares every layout row-major (what it
    computes is the same under XLA, which honours declared layouts) and the
    results are reshapes: no transposition in or out."""
    batch, m, n, dt = _geometry(x)
    k = min(m, n)
    mode = "N" if not compute_uv else ("A" if full_matrices else "S")
    # u' is n x u'_cols, v'^H is vt'_rows x m (LAPACK's shapes for x^T).
    ut_cols = n if mode == "A" else k
    vht_rows = m if mode == "A" else k
    xt_bytes = lax_shapes.reshape(ops.as_operand(x), batch + (n, m))
    out = _call(f"lapack_{letter('svd', dt)}gesdd_ffi", [xt_bytes],
                [(batch + (n, m), dt), (batch + (k,), real_dtype(dt)),
                 (batch + (n, ut_cols), dt), (batch + (vht_rows, m), dt), (batch, np.int32)],
                {"mode": _char(mode)}, row_major=True)
    _, s, ut, vht, info = out
    u = lax_shapes.reshape(vht, batch + (m, vht_rows))
    vt = lax_shapes.reshape(ut, batch + (ut_cols, n))
    return [s, u, vt, info]


def geev(x, *, left: bool, right: bool) -> list:
    """(w (complex), vl, vr, info): real types' (wr, wi) are combined here."""
    batch, n, _, dt = _geometry(x)
    ch = letter("eig", dt)
    cdt = complex_dtype(dt)
    cfg = {"compute_left": _char("V" if left else "N"),
           "compute_right": _char("V" if right else "N")}
    vecs = [(batch + (n, n), cdt), (batch + (n, n), cdt), (batch, np.int32)]
    if ch in "sd":
        wr, wi, vl, vr, info = _call(f"lapack_{ch}geev_ffi", [x],
                                     [(batch + (n,), dt), (batch + (n,), dt)] + vecs, cfg)
        from xjit._src.lax import elementwise as lax_ew
        w = lax_ew.complex(wr, wi)
        return [w, vl, vr, info]
    return _call(f"lapack_{ch}geev_ffi", [x], [(batch + (n,), dt)] + vecs, cfg)


def gees(x, *, vectors: bool = True) -> list:
    """(t, vs, w (complex: real types' wr + i wi), sdim, info)."""
    batch, n, _, dt = _geometry(x)
    ch = letter("schur", dt)
    cfg = {"mode": _char("V" if vectors else "N"), "sort": _char("N")}
    mats = [(batch + (n, n), dt), (batch + (n, n), dt)]
    ints = [(batch, np.int32), (batch, np.int32)]
    if ch in "sd":
        t, vs, wr, wi, sdim, info = _call(f"lapack_{ch}gees_ffi", [x],
                                          mats + [(batch + (n,), dt)] * 2 + ints, cfg)
        from xjit._src.lax import elementwise as lax_ew
        return [t, vs, lax_ew.complex(wr, wi), sdim, info]
    return _call(f"lapack_{ch}gees_ffi", [x], mats + [(batch + (n,), dt)] + ints, cfg)
