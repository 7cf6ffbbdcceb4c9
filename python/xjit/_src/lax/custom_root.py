"""``lax.custom_root``: a root found by any solver, differentiated
implicitly, as JAX's. If ``f(x*, θ) = 0`` then ``dx* = -(∂f/∂x)⁻¹ (∂f/∂θ) dθ``,
where θ are the values ``f`` closes over: the tangent system is solved by the
user's ``tangent_solve`` on ``f`` linearized at the root, so the solver itself
(a ``while_loop`` often) is never differentiated.

Example:
    >>> import xjit, xjit.numpy as jnp
    >>> def sqrt(a):
    ...     f = lambda x: x * x - a
    ...     newton = lambda f, x0: lax.fori_loop(0, 20, lambda i, x: x - f(x) / (2 * x), x0)
    ...     return lax.custom_root(f, 1.0, newton, lambda g, y: y / g(1.0))
    >>> round(float(xjit.grad(sqrt)(4.0)), 4)
    0.25
"""
from __future__ import annotations

from typing import Callable

from xjit import _xjit
from xjit._src import api_transforms as api
from xjit._src.closure_conversion import convert_closure, jvp_in_consts, zero_tangents
from xjit._src.custom_derivatives import custom_jvp
from xjit._src.tree_util import tree_map
from xjit._src.traceback_util import api_boundary


def _check_tree(what: str, got, want) -> None:
    if got != want:
        raise TypeError(f"{what}() output pytree structure must match initial_guess, "
                        f"got {got} and {want}.")


def _check_solution_tree(s_tree, guess_tree, has_aux: bool) -> None:
    """solve() returns a pytree like initial_guess, or with ``has_aux`` a
    pair whose first item is one."""
    if not has_aux:
        _check_tree("solve", s_tree, guess_tree)
        return
    out = s_tree.unflatten([0] * s_tree.num_leaves)
    if not (isinstance(out, tuple) and len(out) == 2):
        raise TypeError("custom_root with has_aux=True requires solve() to return a pair "
                        f"(solution, auxiliary data), got {s_tree}")
    _check_tree("solve", s_tree.children()[0], guess_tree)


def _negate(x):
    return -x


@api_boundary
def custom_root(f: Callable, initial_guess, solve: Callable, tangent_solve: Callable,
                has_aux: bool = False):
    """``solve(f, initial_guess)``, differentiated as the root of ``f``.

    ``f`` maps a pytree like ``initial_guess`` to one of the same structure;
    ``solve(f, x0)`` returns the root (and auxiliary data when ``has_aux``);
    ``tangent_solve(g, y)`` solves the linear ``g(x) = y`` (for a scalar:
    ``lambda g, y: y / g(1.0)``). ``initial_guess`` and the auxiliary data get
    no derivative."""
    _, guess_tree = _xjit.tree_flatten(initial_guess)
    f_conv, f_consts, f_tree = convert_closure(f, initial_guess)
    _check_tree("f", f_tree, guess_tree)

    def linearize_and_solve(x, b):
        _, f_jvp = api.linearize(f, x)
        return tangent_solve(f_jvp, b)

    solve_conv, s_consts, s_tree = convert_closure(lambda x: solve(f, x), initial_guess)
    _check_solution_tree(s_tree, guess_tree, has_aux)
    ls_conv, ls_consts, _ = convert_closure(linearize_and_solve, initial_guess, initial_guess)

    @custom_jvp
    def root(f_c, s_c, ls_c, guess):
        return solve_conv(guess, *s_c)

    @root.defjvp
    def root_jvp(primals, tangents):
        f_c, s_c, ls_c, guess = primals
        out = root(f_c, s_c, ls_c, guess)
        solution, aux = out if has_aux else (out, None)
        # ∂f/∂θ dθ at the root; without it the root does not move.
        rhs = jvp_in_consts(f_conv, (solution,), f_c, tangents[0])
        if rhs is None:
            dsol = zero_tangents(solution)
        else:
            dsol = tree_map(_negate, ls_conv(solution, rhs, *ls_c))
        return out, ((dsol, zero_tangents(aux)) if has_aux else dsol)

    return root(tuple(f_consts), tuple(s_consts), tuple(ls_consts), initial_guess)
