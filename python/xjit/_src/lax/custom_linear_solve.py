"""``lax.custom_linear_solve``: ``x = solve(matvec, b)`` for a linear
``matvec``, differentiated implicitly, as JAX's. The solver (often an
iterative ``while_loop``) is never differentiated: ``dx = A⁻¹ (db - dA x)``
solves again, and reverse mode transposes that solve with ``transpose_solve``
(or ``solve`` itself when ``symmetric``) through a ``linear_call``.

Example:
    >>> import xjit, xjit.numpy as jnp
    >>> a = jnp.array([[2., 0.], [0., 4.]])
    >>> diag_solve = lambda mv, b: b / jnp.diagonal(a)
    >>> x = lax.custom_linear_solve(lambda v: a @ v, jnp.array([2., 2.]), diag_solve,
    ...                             symmetric=True)
    >>> x
    Array([1. , 0.5], dtype=float32)
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from xjit import _xjit
from xjit._src import api_transforms as api
from xjit._src import tracing
from xjit._src.closure_conversion import convert_closure, jvp_in_consts, zero_tangents
from xjit._src.custom_derivatives import custom_jvp
from xjit._src.lax.custom_root import _check_solution_tree, _check_tree
from xjit._src.linear_call import linear_call
from xjit._src.traceback_util import api_boundary
from xjit._src.tree_util import tree_map


def _transpose_of(matvec: Callable, b):
    """``vecmat``: the transpose of the linear ``matvec`` at ``b``'s type."""
    zeros = _xjit.tree_flatten(b)[1].unflatten(
        [np.zeros(tracing.leaf_aval(x).shape, tracing.leaf_aval(x).dtype)
         for x in _xjit.tree_flatten(b)[0]])

    def vecmat(y):
        _, pullback = api.vjp(matvec, zeros)
        return pullback(y)[0]
    return vecmat


@api_boundary
def custom_linear_solve(matvec: Callable, b, solve: Callable, transpose_solve=None,
                        symmetric: bool = False, has_aux: bool = False):
    """The solution ``x`` of ``matvec(x) = b`` computed by ``solve(matvec, b)``
    (which returns ``(x, aux)`` when ``has_aux``), with derivatives with
    respect to ``b`` and to the values ``matvec`` closes over from implicit
    differentiation. ``transpose_solve(vecmat, b)`` solves the transposed
    system for reverse mode; ``symmetric=True`` uses ``solve`` for it. Without
    either, reverse mode differentiates through ``solve`` itself (JAX raises
    instead), which works only when ``solve`` is transposable."""
    _, b_tree = _xjit.tree_flatten(b)
    mv_conv, mv_consts, mv_tree = convert_closure(matvec, b)
    _check_tree("matvec", mv_tree, b_tree)
    solve_conv, s_consts, s_tree = convert_closure(lambda x: solve(matvec, x), b)
    _check_solution_tree(s_tree, b_tree, has_aux)
    if transpose_solve is None and symmetric:
        transpose_solve, vecmat = solve, matvec
    else:
        vecmat = _transpose_of(matvec, b)
    ts_conv, ts_consts = None, []
    if transpose_solve is not None:
        ts_conv, ts_consts, ts_tree = convert_closure(lambda y: transpose_solve(vecmat, y), b)
        _check_solution_tree(ts_tree, b_tree, has_aux)

    def solution(out):
        return out[0] if has_aux else out

    def linear_solve(s_c, ts_c, rhs):
        """``A⁻¹ rhs`` as a linear function of ``rhs`` (transposed by transpose_solve)."""
        if ts_conv is None:
            return solution(solve_conv(rhs, *s_c))
        return linear_call(lambda res, r: solution(solve_conv(r, *res[0])),
                           lambda res, ct: solution(ts_conv(ct, *res[1])),
                           (tuple(s_c), tuple(ts_c)), rhs)

    @custom_jvp
    def lsolve(mv_c, s_c, ts_c, rhs):
        return solve_conv(rhs, *s_c)

    @lsolve.defjvp
    def lsolve_jvp(primals, tangents):
        mv_c, s_c, ts_c, rhs = primals
        dmv_c, _, _, drhs = tangents
        out = lsolve(*primals)
        x = solution(out)
        # dx = A⁻¹ (db - dA x): dA x is matvec at x differentiated in its constants.
        r = drhs
        dax = jvp_in_consts(mv_conv, (x,), mv_c, dmv_c)
        if dax is not None:
            r = tree_map(lambda u, v: u - v, drhs, dax)
        dx = linear_solve(s_c, ts_c, r)
        return out, ((dx, zero_tangents(out[1])) if has_aux else dx)

    return lsolve(tuple(mv_consts), tuple(s_consts), tuple(ts_consts), b)
