"""``closure_convert``: a function with the traced values it closes over made
explicit arguments, as JAX's ``jax.closure_convert``. Rules that must
differentiate with respect to what a user function closes over
(``lax.custom_root``) build on it: ``custom_jvp`` only differentiates
explicit arguments.

Example:
    >>> import xjit
    >>> f, consts = closure_convert(lambda x: x * 2.0, 1.0)
    >>> f(3.0, *consts)
    Array(6., dtype=float32, weak_type=True)
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from xjit import _xjit
from xjit._src import api_transforms as api
from xjit._src import tracing
from xjit._src.traceback_util import api_boundary


@api_boundary
def closure_convert(fun: Callable, *example_args):
    """``(converted, consts)`` with ``converted(*args, *consts) == fun(*args)``
    for arguments of the types of ``example_args``; ``consts`` are the traced
    values (of enclosing jit or transformation traces) that ``fun`` reads.
    Concrete values ``fun`` closes over stay constants of the converted graph.
    ``fun`` is traced once, abstractly: Python control flow on its arguments
    raises as under jit."""
    converted, consts, _ = convert_closure(fun, *example_args)
    return converted, consts


def convert_closure(fun: Callable, *example_args):
    """closure_convert's ``(converted, consts)`` and the treedef of ``fun``'s output."""
    leaves, treedef = _xjit.tree_flatten((tuple(example_args), {}))
    avals = [tracing.leaf_aval(x) for x in leaves]
    traced = api._trace(lambda *a: fun(*a), avals, treedef, api._fun_name(fun))
    consts = list(traced.captures)

    def converted(*args_and_consts):
        if len(args_and_consts) != len(example_args) + len(consts):
            raise TypeError(f"closure_convert: the converted function takes "
                            f"{len(example_args)} arguments and {len(consts)} constants, "
                            f"got {len(args_and_consts)} values")
        args, cs = args_and_consts[:len(example_args)], args_and_consts[len(example_args):]
        arg_leaves, tree = _xjit.tree_flatten((tuple(args), {}))
        if tree != treedef:
            raise TypeError(f"closure_convert: arguments of structure {tree} given to a "
                            f"function converted for {treedef}")
        ops = []
        for x, a in zip(arg_leaves, avals):
            xa = tracing.leaf_aval(x)
            if xa.shape != a.shape or xa.dtype != a.dtype:
                raise TypeError(f"closure_convert: argument of type {xa.str_short()} where the "
                                f"function was converted for {a.str_short()}")
            ops.append(api._operand(x, a))
        out = api._apply(traced.computation, ops + list(cs), traced.out_weak)
        return traced.out_treedef.unflatten(out)

    return converted, consts, traced.out_treedef


def jvp_in_consts(converted: Callable, args: tuple, consts, const_tangents):
    """The tangent of ``converted(*args, *consts)`` when only the constants
    move (by ``const_tangents``), or None when no tangent reaches the output
    (no constants, or none of them a float)."""
    if not consts:
        return None
    _, out = api.jvp(lambda *c: converted(*args, *c), tuple(consts), tuple(const_tangents))
    leaves = _xjit.tree_flatten(out)[0]
    if all(tracing.leaf_aval(v).dtype == api.float0 for v in leaves):
        return None
    return out


def zero_tangents(tree):
    """Zero tangents for the leaves of ``tree`` (float0 for integer leaves)."""
    leaves, treedef = _xjit.tree_flatten(tree)
    out = []
    for x in leaves:
        a = tracing.leaf_aval(x)
        out.append(np.zeros(a.shape, a.dtype if api._is_float(a.dtype) else api.float0))
    return treedef.unflatten(out)
