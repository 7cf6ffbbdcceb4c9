"""custom_jvp, custom_vjp and checkpoint (remat), as JAX's.

Inside a trace, each is a ``call`` of the function's traced computation,
marked by its name, that carries the user's rules as further traced
computations (``csrc/xjit/transforms/custom_rules.h`` has the convention):
the C++ transforms use the rules instead of differentiating the function,
and backends just run the function. Outside any trace the function runs as
it is, as in JAX.

Values the function or its rules close over become captures: extra operands
of the call that get no tangent (differentiating with respect to one is an
error, as JAX's custom_vjp). Each of the function and its rules is traced
into its own computation with its own captures; small wrapper computations
give them the call's common operand list.

Example:
    >>> @custom_jvp
    ... def f(x):
    ...     return x ** 2
    >>> f.defjvp(lambda p, t: (f(p[0]), 10.0 * t[0]))  # doctest: +ELLIPSIS
    <function ...>
"""
from __future__ import annotations

import functools
import inspect
import operator
from typing import Callable

import numpy as np

from xjit import _xjit
from xjit._src import core, dispatch, tracing
from xjit._src import api_transforms as api
from xjit._src.traceback_util import api_boundary


class SymbolicZero:
    """A zero tangent or cotangent (JAX's ``custom_derivatives.SymbolicZero``).

    Rules may return one (or None) where a tangent/cotangent is zero.
    """

    def __init__(self, aval):
        self.aval = aval
        self.shape = aval.shape
        self.dtype = aval.dtype

    def __repr__(self):
        return f"SymbolicZero({self.aval.str_short()})"


class CustomVJPPrimal:
    """A primal input of a custom_vjp fwd rule defined with ``symbolic_zeros=True``.

    ``perturbed`` says whether the value may carry a tangent; xjit traces the
    rule once for every use, so it is always True.
    """

    def __init__(self, value, perturbed: bool = True):
        self.value = value
        self.perturbed = perturbed

    def __repr__(self):
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


def _resolve_kwargs(fun, args, kwargs):
    """Positional arguments for ``fun(*args, **kwargs)`` (JAX's resolve_kwargs)."""
    if not kwargs:
        return tuple(args)
    ba = inspect.signature(fun).bind(*args, **kwargs)
    ba.apply_defaults()
    if ba.kwargs:
        raise TypeError("keyword arguments could not be resolved to positions")
    return ba.args


def _split_args(args, nondiff_argnums):
    nondiff = tuple(args[i] for i in nondiff_argnums)
    diff = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
    return nondiff, diff


def _merge_args(nondiff_argnums, nondiff, diff):
    out, it_n, it_d = [], iter(nondiff), iter(diff)
    for i in range(len(nondiff) + len(diff)):
        out.append(next(it_n) if i in nondiff_argnums else next(it_d))
    return out


def _is_zero(x) -> bool:
    return x is None or isinstance(x, SymbolicZero) or (
        isinstance(x, np.ndarray) and x.dtype == api.float0)


def _zeros(aval):
    from xjit._src.lax import shapes
    return shapes.full(aval.shape, 0, aval.dtype)


def _tangent_leaf(t, aval, what: str):
    """Tangent/cotangent ``t`` as a value of ``aval``'s shape and dtype."""
    if _is_zero(t):
        return _zeros(aval)
    if isinstance(t, (bool, int, float, complex)):
        return dispatch.to_numpy_operand(t, aval.dtype)
    ta = tracing.leaf_aval(t)
    if ta.shape != aval.shape:
        raise ValueError(f"{what}: expected a value of shape {aval.shape}, got shape "
                         f"{ta.shape}")
    if ta.dtype != aval.dtype:
        if ta.weak_type or np.dtype(ta.dtype).kind == np.dtype(aval.dtype).kind:
            return api._convert(t, aval.dtype)
        raise TypeError(f"{what}: expected a value of dtype {aval.dtype.name}, got "
                        f"{ta.dtype.name}")
    return t


def _float0_or(aval, value):
    return value if api._is_float(aval.dtype) else np.zeros(aval.shape, api.float0)


# ------------------------------------------------------- wrapper computations

def _call_values(cb, comp, operands):
    out = cb.op("call", list(operands), {}, [comp])
    if not out.is_tuple:
        return [out]
    return [cb.op("get_tuple_element", [out], {"index": i})
            for i in range(len(out.tuple_shapes))]


def _union_captures(*lists):
    """One capture per distinct outer value, in first-seen order."""
    out, seen = [], {}
    for caps in lists:
        for c in caps:
            if c._value not in seen:
                seen[c._value] = len(out)
                out.append(c)
    return out, seen


_DECLINED_RULE_TARGET = "xjit.custom_jvp_rule_declined"


def _declined_rule(message: str, out_avals) -> list:
    """A custom_jvp rule's results (primals, then float tangents) from one
    custom_call that never runs: the jvp transform raises NotImplementedError
    with ``message`` where it would inline the rule."""
    from xjit._src.lax.custom_call import custom_call
    avals = list(out_avals) + [a for a in out_avals if api._is_float(a.dtype)]
    return custom_call(_DECLINED_RULE_TARGET, [], avals, backend_config=message)


def _wrapper(trace, name, avals, body):
    """Computation ``name`` of ``trace``'s module with parameters of ``avals``;
    ``body(cb, params)`` gives its results."""
    cb = trace.mb.computation(trace.unique_name(name))
    params = [cb.parameter(a.dtype.name, a.shape) for a in avals]
    return cb.finish(body(cb, params))


def _marker_name(kind: str, count, fun) -> str:
    return f"xjit_{kind}_{count}_{api._fun_name(fun)}"


# ----------------------------------------------------------------- custom_jvp

# A rule that calls its own function (``return f(x), ...``) would be traced
# without end: the function called while its rule is traced this deep runs
# as plain code, so derivatives past this order differentiate it directly.
_MAX_RULE_DEPTH = 2

class custom_jvp:
    """A function with a custom JVP rule (``defjvp``/``defjvps``), as JAX's.

    Example:
        >>> f = custom_jvp(lambda x: x ** 2)
        >>> _ = f.defjvp(lambda p, t: (f(p[0]), 10.0 * t[0]))
        >>> float(api.grad(f)(3.0))
        10.0
    """

    def __init__(self, fun: Callable, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp = None
        self.symbolic_zeros = False
        self._depth = 0   # rules being traced (a rule usually calls the function)

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        """``jvp(*nondiff_args, primals, tangents) -> (primal_out, tangent_out)``."""
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps):
        """One rule per argument: ``jvp_i(t_i, primal_out, *primals)`` (None: no dependence)."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals, tangents):
            primal_out = self(*primals)
            outs = [f(t, primal_out, *primals) for f, t in zip(jvps, tangents)
                    if f is not None and not _is_zero(t)]
            leaves, tree = _xjit.tree_flatten(primal_out)
            if not outs:
                return primal_out, tree.unflatten([None] * len(leaves))
            per = [_xjit.tree_flatten(o)[0] for o in outs]
            return primal_out, tree.unflatten(
                [functools.reduce(operator.add, ts) for ts in zip(*per)])
        self.defjvp(jvp)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    @api_boundary
    def __call__(self, *args, **kwargs):
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function "
                                 f"{api._fun_name(self.fun)} using defjvp.")
        args = _resolve_kwargs(self.fun, args, kwargs)
        trace = core.current_trace()
        if trace is None or self._depth >= _MAX_RULE_DEPTH:
            return self.fun(*args)
        self._depth += 1
        try:
            return self._bind(trace, args)
        finally:
            self._depth -= 1

    def _bind(self, trace, args):
        nondiff, diff = _split_args(args, self.nondiff_argnums)
        leaves, in_tree = _xjit.tree_flatten(diff)
        avals = [tracing.leaf_aval(x) for x in leaves]
        operands = [api._operand(x, a) for x, a in zip(leaves, avals)]
        flat_tree = _xjit.tree_flatten((tuple(range(len(leaves))), {}))[1]
        n = len(leaves)

        def primal(*flat):
            return self.fun(*_merge_args(self.nondiff_argnums, nondiff, in_tree.unflatten(flat)))
        f_tr = api._trace(primal, avals, flat_tree, api._fun_name(self.fun), operands)
        out_avals = f_tr.out_avals
        float_in = [i for i, a in enumerate(avals) if api._is_float(a.dtype)]
        t_avals = [avals[i] for i in float_in]

        def rule(*flat):
            prim = list(flat[:n])
            it = iter(flat[n:])
            tans = [next(it) if api._is_float(a.dtype) else np.zeros(a.shape, api.float0)
                    for a in avals]
            try:
                out = self.jvp(*nondiff, in_tree.unflatten(prim), in_tree.unflatten(tans))
            except NotImplementedError as e:
                # A rule that declines (eig's, for eigenvectors) fails the
                # differentiation, not the call: a marker the jvp transform
                # raises with the message (custom_rules.cc).
                return _declined_rule(str(e), out_avals)
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError("Custom JVP rule must produce a pair (list or tuple of length "
                                f"two) representing primal and tangent outputs, got {out}.")
            p_out, t_out = out
            p_leaves, p_tree = _xjit.tree_flatten(p_out)
            if p_tree != f_tr.out_treedef:
                raise TypeError("Custom JVP rule must produce primal and tangent outputs with "
                                "equal container (pytree) structures to the primal function, "
                                f"but got {p_tree} and expected {f_tr.out_treedef}.")
            t_leaves, t_tree = _xjit.tree_flatten(t_out, _is_zero)
            if len(t_leaves) != len(p_leaves):
                raise TypeError("Custom JVP rule must produce primal and tangent outputs with "
                                "equal container (pytree) structures, but got "
                                f"{p_tree} and {t_tree} respectively.")
            res = []
            for p, a in zip(p_leaves, out_avals):
                pa = tracing.leaf_aval(p)
                if pa.shape != a.shape or pa.dtype != a.dtype:
                    raise TypeError("Custom JVP rule must produce primal outputs with the same "
                                    f"shapes and dtypes as the function: expected "
                                    f"{a.str_short()}, got {pa.str_short()}.")
                res.append(p)
            for t, a in zip(t_leaves, out_avals):
                if api._is_float(a.dtype):
                    res.append(_tangent_leaf(t, a, "Custom JVP rule tangent output"))
            return res
        r_tr = api._trace(rule, avals + t_avals, _xjit.tree_flatten(
            (tuple(range(n + len(t_avals))), {}))[1], "custom_jvp_rule",
            operands + [None] * len(t_avals))
        caps, index = _union_captures(f_tr.captures, r_tr.captures)
        cap_avals = [c.aval for c in caps]

        def f_body(cb, p):
            return _call_values(cb, f_tr.computation,
                                p[:n] + [p[n + index[c._value]] for c in f_tr.captures])

        def r_body(cb, p):
            k = n + len(caps)
            return _call_values(cb, r_tr.computation,
                                p[:n] + p[k:] + [p[n + index[c._value]] for c in r_tr.captures])
        f_w = _wrapper(trace, _marker_name("custom_jvp", n, self.fun), avals + cap_avals, f_body)
        r_w = _wrapper(trace, "custom_jvp_rule_w", avals + cap_avals + t_avals, r_body)
        out = dispatch.bind("call", operands + caps, {}, weak_type=f_tr.out_weak,
                            regions=[lambda mb: f_w, lambda mb: r_w])
        out = out if isinstance(out, list) else [out]
        return f_tr.out_treedef.unflatten(out)


# ----------------------------------------------------------------- custom_vjp

class custom_vjp:
    """A function with a custom VJP rule (``defvjp(fwd, bwd)``), as JAX's.

    ``fwd(*args) -> (out, residuals)``; ``bwd(*nondiff_args, residuals, ct)``
    returns one cotangent per differentiable argument (None for zero).

    Example:
        >>> f = custom_vjp(lambda x: x ** 2)
        >>> f.defvjp(lambda x: (x ** 2, x), lambda x, g: (10.0 * g,))
        >>> float(api.grad(f)(3.0))
        10.0
    """

    def __init__(self, fun: Callable, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = None
        self.bwd = None
        self.symbolic_zeros = False
        self._depth = 0

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False,
               optimize_remat: bool = False):
        self.fwd = fwd
        self.bwd = bwd
        self.symbolic_zeros = symbolic_zeros

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    @api_boundary
    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function "
                                 f"{api._fun_name(self.fun)} using defvjp.")
        args = _resolve_kwargs(self.fun, args, kwargs)
        trace = core.current_trace()
        if trace is None or self._depth > 0:   # fwd/bwd calling the function: run it
            return self.fun(*args)
        self._depth += 1
        try:
            return self._bind(trace, args)
        finally:
            self._depth -= 1

    def _bind(self, trace, args):
        nondiff, diff = _split_args(args, self.nondiff_argnums)
        leaves, in_tree = _xjit.tree_flatten(diff)
        avals = [tracing.leaf_aval(x) for x in leaves]
        operands = [api._operand(x, a) for x, a in zip(leaves, avals)]
        n = len(leaves)

        def flat_tree(k):
            return _xjit.tree_flatten((tuple(range(k)), {}))[1]

        def primal(*flat):
            return self.fun(*_merge_args(self.nondiff_argnums, nondiff, in_tree.unflatten(flat)))
        f_tr = api._trace(primal, avals, flat_tree(n), api._fun_name(self.fun), operands)
        out_avals = f_tr.out_avals
        np_ = len(out_avals)
        res_tree = []

        def fwd(*flat):
            vals = list(flat)
            if self.symbolic_zeros:
                vals = [CustomVJPPrimal(v) for v in vals]
            out = self.fwd(*_merge_args(self.nondiff_argnums, nondiff, in_tree.unflatten(vals)))
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError("Custom VJP fwd rule must produce a pair (list or tuple of "
                                "length two) representing primal outputs and residuals (values "
                                f"stored from the forward pass for use on the backward pass), "
                                f"got {out}.")
            o, r = out
            o_leaves, o_tree = _xjit.tree_flatten(o)
            if o_tree != f_tr.out_treedef:
                raise TypeError("Custom VJP fwd rule must produce an output with the same "
                                "container (pytree) structure as the primal function, got "
                                f"{o_tree} and expected {f_tr.out_treedef}.")
            for p, a in zip(o_leaves, out_avals):
                pa = tracing.leaf_aval(p)
                if pa.shape != a.shape or pa.dtype != a.dtype:
                    raise TypeError("Custom VJP fwd rule must produce primal outputs with the "
                                    f"same shapes and dtypes as the function: expected "
                                    f"{a.str_short()}, got {pa.str_short()}.")
            r_leaves, r_tree = _xjit.tree_flatten(r)
            res_tree.append(r_tree)
            return list(o_leaves) + list(r_leaves)
        fwd_tr = api._trace(fwd, avals, flat_tree(n), "custom_vjp_fwd", operands)
        res_avals = fwd_tr.out_avals[np_:]
        float_out = [a for a in out_avals if api._is_float(a.dtype)]
        diff_trees = [_xjit.tree_flatten(d)[1] for d in diff]

        def bwd(*flat):
            res = res_tree[0].unflatten(list(flat[:len(res_avals)]))
            it = iter(flat[len(res_avals):])
            cts = [next(it) if api._is_float(a.dtype) else np.zeros(a.shape, api.float0)
                   for a in out_avals]
            # Cotangents are always instantiated (never SymbolicZero), also
            # with symbolic_zeros=True: a valid rule accepts both.
            got = self.bwd(*nondiff, res, f_tr.out_treedef.unflatten(cts))
            if not isinstance(got, (tuple, list)) or len(got) != len(diff):
                raise TypeError("Custom VJP bwd rule must produce an output with the same "
                                "container (pytree) structure as the args tuple of the primal "
                                "function, and in particular must produce a tuple of length "
                                "equal to the number of arguments to the primal function, but "
                                f"got bwd output structure {_xjit.tree_flatten(got)[1]} for "
                                f"primal input structure {in_tree}.")
            out, k = [], 0
            for g, tree in zip(got, diff_trees):
                m = tree.num_leaves
                if _is_zero(g):
                    g_leaves = [None] * m
                else:
                    g_leaves, g_tree = _xjit.tree_flatten(g, _is_zero)
                    if len(g_leaves) != m:
                        raise TypeError("Custom VJP bwd rule must produce an output with the "
                                        "same container (pytree) structure as the args tuple "
                                        f"of the primal function, got {g_tree} for {tree}.")
                for leaf, a in zip(g_leaves, avals[k:k + m]):
                    if api._is_float(a.dtype):
                        out.append(_tangent_leaf(leaf, a, "Custom VJP bwd rule cotangent"))
                k += m
            return out
        bwd_tr = api._trace(bwd, list(res_avals) + float_out, flat_tree(len(res_avals)
                                                                       + len(float_out)),
                            "custom_vjp_bwd")
        caps, index = _union_captures(f_tr.captures, fwd_tr.captures, bwd_tr.captures)
        cap_avals = [c.aval for c in caps]
        nr = len(res_avals)

        def f_body(cb, p):
            return _call_values(cb, f_tr.computation,
                                p[:n] + [p[n + index[c._value]] for c in f_tr.captures])

        def fwd_body(cb, p):
            # bwd's captures travel to it as extra residuals.
            return (_call_values(cb, fwd_tr.computation,
                                 p[:n] + [p[n + index[c._value]] for c in fwd_tr.captures])
                    + [p[n + index[c._value]] for c in bwd_tr.captures])

        def bwd_body(cb, p):
            nb = len(bwd_tr.captures)
            return _call_values(cb, bwd_tr.computation, p[:nr] + p[nr + nb:] + p[nr:nr + nb])
        f_w = _wrapper(trace, _marker_name("custom_vjp", n, self.fun), avals + cap_avals, f_body)
        fwd_w = _wrapper(trace, "custom_vjp_fwd_w", avals + cap_avals, fwd_body)
        bwd_w = _wrapper(trace, "custom_vjp_bwd_w",
                         list(res_avals) + [c.aval for c in bwd_tr.captures] + float_out,
                         bwd_body)
        out = dispatch.bind("call", operands + caps, {}, weak_type=f_tr.out_weak,
                            regions=[lambda mb: f_w, lambda mb: fwd_w, lambda mb: bwd_w])
        out = out if isinstance(out, list) else [out]
        return f_tr.out_treedef.unflatten(out)


# ----------------------------------------------------------------- checkpoint

def _nothing_saveable(*_, **__) -> bool:
    return False


def _everything_saveable(*_, **__) -> bool:
    return True


def _dots_saveable(prim, *_, **__) -> bool:
    return getattr(prim, "name", prim) == "dot_general"


def _dots_with_no_batch_dims_saveable(prim, *_, **params) -> bool:
    return _dots_saveable(prim) and not params.get("dimension_numbers", ((), ((), ())))[1][0]


class checkpoint_policies:
    """JAX's ``checkpoint_policies``: which values a checkpoint may save."""
    nothing_saveable = staticmethod(_nothing_saveable)
    everything_saveable = staticmethod(_everything_saveable)
    dots_saveable = staticmethod(_dots_saveable)
    checkpoint_dots = staticmethod(_dots_saveable)
    dots_with_no_batch_dims_saveable = staticmethod(_dots_with_no_batch_dims_saveable)
    checkpoint_dots_with_no_batch_dims = staticmethod(_dots_with_no_batch_dims_saveable)


_POLICY_TOKENS = {
    None: "nothing", _nothing_saveable: "nothing", _everything_saveable: "everything",
    _dots_saveable: "dots", _dots_with_no_batch_dims_saveable: "dotsnobatch",
}


def checkpoint(fun: Callable | None = None, *, prevent_cse: bool = True, policy=None,
               static_argnums=()):
    """``fun``, whose VJP recomputes its values in the backward pass instead
    of saving them, except those ``policy`` saves (JAX's ``jax.checkpoint``).

    ``prevent_cse`` is accepted for JAX compatibility; the recomputation is
    separate in the transformed computations (see docs/semantics.md).

    Example:
        >>> float(api.grad(checkpoint(lambda x: x * x))(3.0))
        6.0
    """
    if fun is None:
        return functools.partial(checkpoint, prevent_cse=prevent_cse, policy=policy,
                                 static_argnums=static_argnums)
    try:
        token = _POLICY_TOKENS[policy]
    except (KeyError, TypeError):
        raise NotImplementedError(
            f"checkpoint: policy {policy!r} is not supported; use one of "
            "xjit.checkpoint_policies (nothing_saveable, everything_saveable, dots_saveable, "
            "dots_with_no_batch_dims_saveable)") from None
    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    @api_boundary
    def remat_f(*args, **kwargs):
        if core.current_trace() is None:
            return fun(*args, **kwargs)
        statics = {i % len(args) for i in nums}
        dyn = tuple(a for i, a in enumerate(args) if i not in statics)
        leaves, treedef = _xjit.tree_flatten((dyn, dict(kwargs)))
        avals = [tracing.leaf_aval(x) for x in leaves]
        operands = [api._operand(x, a) for x, a in zip(leaves, avals)]

        def body(*flat):
            d, kw = treedef.unflatten(list(flat))
            it = iter(d)
            full = [args[i] if i in statics else next(it) for i in range(len(args))]
            return fun(*full, **kw)
        tr = api._trace(body, avals, _xjit.tree_flatten((tuple(range(len(avals))), {}))[1],
                        f"xjit_checkpoint_{token}_{api._fun_name(fun)}", operands)
        out = api._apply(tr.computation, operands + tr.captures, tr.out_weak)
        return tr.out_treedef.unflatten(out)

    return remat_f


remat = checkpoint


def custom_gradient(fun: Callable) -> Callable:
    """``fun`` returns ``(value, vjp_fn)``: ``vjp_fn(g)`` gives the cotangents
    of the inputs (a tuple, one per argument), as ``jax.custom_gradient``.
    Built on ``custom_vjp``: the closure of ``vjp_fn`` over the forward
    values is converted into residuals (``closure_convert``).

    Example:
        >>> @custom_gradient
        ... def f(x):
        ...     return x ** 2, lambda g: (g * x,)
    """
    from xjit._src.closure_conversion import closure_convert
    # The converted vjp_fn of the forward pass being traced: custom_vjp traces
    # fwd and then bwd in one bind, so bwd reads what fwd just stored.
    converted = {}

    @custom_vjp
    def wrapped(*args):
        return fun(*args)[0]

    def fwd(*args):
        ans, rule = fun(*args)
        leaves, tree = _xjit.tree_flatten(ans)
        example = tree.unflatten([core.ShapeDtypeStruct(tracing.leaf_aval(x).shape,
                                                        tracing.leaf_aval(x).dtype)
                                  for x in leaves])
        rule_fn, consts = closure_convert(rule, example)
        converted["rule"] = rule_fn
        return ans, tuple(consts)

    def bwd(consts, g):
        cts = converted["rule"](g, *consts)
        return tuple(cts) if isinstance(cts, (tuple, list)) else (cts,)

    wrapped.defvjp(fwd, bwd)
    return functools.wraps(fun)(wrapped)
