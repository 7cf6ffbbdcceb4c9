"""``linear_call``: a linear function with a custom transpose, as JAX's
``jax.custom_derivatives.linear_call``. In the graph it is a ``call`` marked
``xjit_linear_call_<r>_*`` (transforms/custom_rules.h): the backends run its
function; reverse mode transposes it with the user's transpose instead of
differentiating the function (which may be an iterative solver).

Example:
    >>> import xjit, xjit.numpy as jnp
    >>> f = lambda s, x: linear_call(lambda s, x: s * x, lambda s, ct: 10.0 * ct, s, x)
    >>> float(xjit.grad(lambda x: f(2.0, x))(1.0))   # the custom transpose, not 2.0
    10.0
"""
from __future__ import annotations

from typing import Callable

from xjit import _xjit
from xjit._src import api_transforms as api
from xjit._src import core, dispatch, tracing
from xjit._src.custom_derivatives import _call_values, _union_captures, _wrapper
from xjit._src.traceback_util import api_boundary


def _flat_tree(k: int):
    return _xjit.tree_flatten((tuple(range(k)), {}))[1]


@api_boundary
def linear_call(fun: Callable, fun_transpose: Callable, residual_args, linear_args):
    """``fun(residual_args, linear_args)``, where ``fun`` is linear in
    ``linear_args``; reverse mode uses ``fun_transpose(residual_args, ct)``,
    which returns a pytree like ``linear_args``. The residuals get no
    derivative. Outside any trace this just calls ``fun``."""
    trace = core.current_trace()
    if trace is None:
        return fun(residual_args, linear_args)
    res_leaves, res_tree = _xjit.tree_flatten(residual_args)
    lin_leaves, lin_tree = _xjit.tree_flatten(linear_args)
    r_avals = [tracing.leaf_aval(x) for x in res_leaves]
    l_avals = [tracing.leaf_aval(x) for x in lin_leaves]
    for a in l_avals:
        if not api._is_float(a.dtype):
            raise TypeError(f"linear_call: linear arguments must be floating point, got "
                            f"{a.str_short()}")
    nr, nl = len(r_avals), len(l_avals)

    def forward(*flat):
        return fun(res_tree.unflatten(list(flat[:nr])), lin_tree.unflatten(list(flat[nr:])))
    f_tr = api._trace(forward, r_avals + l_avals, _flat_tree(nr + nl), api._fun_name(fun))
    no = len(f_tr.out_avals)

    def transpose(*flat):
        cts = fun_transpose(res_tree.unflatten(list(flat[:nr])),
                            f_tr.out_treedef.unflatten(list(flat[nr:])))
        leaves, tree = _xjit.tree_flatten(cts)
        if tree != lin_tree:
            raise TypeError(f"linear_call: the transpose returned a pytree of structure {tree}, "
                            f"expected that of linear_args, {lin_tree}")
        for x, a in zip(leaves, l_avals):
            xa = tracing.leaf_aval(x)
            if xa.shape != a.shape or xa.dtype != a.dtype:
                raise TypeError(f"linear_call: the transpose returned {xa.str_short()} for a "
                                f"linear argument of type {a.str_short()}")
        return leaves
    t_tr = api._trace(transpose, r_avals + f_tr.out_avals, _flat_tree(nr + no),
                      api._fun_name(fun_transpose))
    caps, index = _union_captures(f_tr.captures, t_tr.captures)
    nc = len(caps)
    cap_avals = [c.aval for c in caps]

    def body(traced):
        def build(cb, p):
            return _call_values(cb, traced.computation, p[:nr] + p[nr + nc:]
                                + [p[nr + index[c._value]] for c in traced.captures])
        return build
    # Captures travel as residuals: both computations read them.
    marker = f"xjit_linear_call_{nr + nc}"
    f_w = _wrapper(trace, f"{marker}_{api._fun_name(fun)}", r_avals + cap_avals + l_avals,
                   body(f_tr))
    t_w = _wrapper(trace, f"{marker}_{api._fun_name(fun_transpose)}",
                   r_avals + cap_avals + f_tr.out_avals, body(t_tr))
    operands = [api._operand(x, a) for x, a in zip(res_leaves, r_avals)] + caps + \
        [api._operand(x, a) for x, a in zip(lin_leaves, l_avals)]
    out = dispatch.bind("call", operands, {}, weak_type=f_tr.out_weak,
                        regions=[lambda mb: f_w, lambda mb: t_w])
    out = out if isinstance(out, list) else [out]
    return f_tr.out_treedef.unflatten(out)
