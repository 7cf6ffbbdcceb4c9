"""grad, jvp, vjp, linearize, jacfwd, jacrev, hessian, vmap, make_graph.

Each transformation traces the function once into a computation (as jit
does), asks the C++ transform (csrc/xjit/transforms/, bound as
``ModuleBuilder.jvp/vjp/vmap``) for the transformed computation, and applies
it with a ``call``: inside an outer trace (jit of grad, grad of grad, vmap of
grad) the call lands in the outer computation, which is later transformed or
compiled as a whole; outside any trace the call runs eagerly (compiled once
for that call). Values the function closes over become extra parameters
(captures) that get no tangent and no batch dimension of their own: an outer
transformation sees them through the call's operands.

Example:
    >>> import xjit, xjit.numpy as jnp
    >>> xjit.grad(lambda x: jnp.sin(x) * x)(1.0)
    Array(1.3817732, dtype=float32, weak_type=True)
"""
from __future__ import annotations

import functools
import itertools
from typing import Any, Callable, Sequence

import numpy as np

from xjit import _xjit
from xjit._src import axis_env, core, dispatch, dtypes, tracing
from xjit._src.traceback_util import api_boundary

#: JAX's float0: the tangent type of integer and boolean values.
float0 = np.dtype([("float0", np.void, 0)])

_counter = itertools.count()


def _is_float(dtype) -> bool:
    return dtypes.kind(dtype) in "fc"


def _fun_name(fun) -> str:
    return tracing._sanitize(getattr(fun, "__name__", None) or type(fun).__name__)


class _Traced:
    """A function traced into a computation of ``mb``, ready to be transformed."""

    def __init__(self, mb, computation, captures, in_avals, out_treedef, out_avals, out_weak):
        self.mb = mb
        self.computation = computation
        self.captures = captures            # tracers of the enclosing trace
        self.in_avals = in_avals
        self.out_treedef = out_treedef
        self.out_avals = out_avals
        self.out_weak = out_weak

    def unique(self, base: str) -> str:
        return f"{base}_{next(_counter)}"


def _concrete_of(x):
    """What a parameter standing for argument leaf ``x`` knows of its value."""
    if isinstance(x, core.Tracer):
        return x._concrete
    return x


def _trace(fun: Callable, in_avals: Sequence[core.ShapedArray], in_treedef, name: str,
           args: Sequence | None = None) -> _Traced:
    """Trace ``fun`` on tracers of ``in_avals`` into a new computation, nested in
    the current trace when there is one (its values used by ``fun`` become captures).

    Outside jit (no trace, or nested in concrete traces only) the trace is
    concrete: the parameters carry the values of ``args`` (one per aval, None
    for an abstract one), so ``if x > 0:`` inside ``fun`` works as in JAX and
    the graph traced is the one for those values."""
    parent = core.current_trace()
    concrete = parent is None or parent.concrete
    if parent is None:
        mb = _xjit.ModuleBuilder(f"transform_{name}")
        cb = mb.computation(name)
        trace = core.Trace(mb, cb, name, concrete=True)
    else:
        mb = parent.mb
        cb = mb.computation(parent.unique_name(name))
        trace = core.Trace(mb, cb, name, parent=parent, concrete=concrete)
    values = None
    if concrete and args is not None:
        values = [None if x is None else _concrete_of(x) for x in args]
    out_treedef, pairs = tracing._trace_function(trace, fun, in_treedef, list(in_avals), None,
                                                 values)
    values = [v for v, _ in pairs]
    computation = cb.finish(values)
    out_avals = [core.ShapedArray(v.shape, core.DTYPE_BY_NAME[v.dtype], w) for v, w in pairs]
    return _Traced(mb, computation, list(trace.captures), list(in_avals), out_treedef, out_avals,
                   [w for _, w in pairs])


def _apply(computation, operands: Sequence, weak: Sequence[bool]) -> list:
    """``call`` of ``computation`` on ``operands`` in the current trace (or eagerly)."""
    if not weak:
        return []
    ops = [x if isinstance(x, (core.Tracer, _xjit.Array)) else dispatch.to_numpy_operand(x)
           for x in operands]
    out = dispatch.bind("call", ops, {}, weak_type=list(weak),
                        regions=[lambda mb: mb.clone_computation(computation)])
    return out if isinstance(out, list) else [out]


def _operand(x, aval: core.ShapedArray):
    """Leaf ``x`` as an operand of dtype ``aval.dtype`` (Python scalars, numpy values)."""
    if isinstance(x, (core.Tracer, _xjit.Array)):
        return x
    return dispatch.to_numpy_operand(x, aval.dtype)


def _zeros_float0(shape) -> np.ndarray:
    return np.zeros(shape, dtype=float0)


# ----------------------------------------------------------------------- jvp

def _split_aux(fun, has_aux):
    """``fun`` returning ``(out, aux)`` when has_aux; checks the pair."""
    if not has_aux:
        return fun

    def wrapped(*args, **kwargs):
        r = fun(*args, **kwargs)
        if not (isinstance(r, tuple) and len(r) == 2):
            raise ValueError("has_aux=True requires the function to return a pair (output, "
                             f"auxiliary data), got {type(r).__name__}")
        return r
    return wrapped


def _jvp_flat(fun, p_leaves, p_tree, avals, t_leaves, has_aux):
    traced = _trace(_split_aux(lambda *a: fun(*a), has_aux), avals,
                    _xjit.tree_flatten((tuple(p_tree.unflatten(p_leaves)), {}))[1],
                    _fun_name(fun), [_operand(x, a) for x, a in zip(p_leaves, avals)])
    wants = [_is_float(a.dtype) for a in avals] + [False] * len(traced.captures)
    comp, out_has_t = traced.mb.jvp(traced.computation, wants, traced.unique("jvp"))
    operands = [_operand(x, a) for x, a in zip(p_leaves, avals)] + traced.captures
    operands += [_operand(t, a) for t, a, w in zip(t_leaves, avals, wants) if w]
    n = len(traced.out_avals)
    weak = traced.out_weak + [w for w, h in zip(traced.out_weak, out_has_t) if h]
    res = _apply(comp, operands, weak)
    outs, it = res[:n], iter(res[n:])
    tans = [next(it) if h else _zeros_float0(a.shape)
            for h, a in zip(out_has_t, traced.out_avals)]
    out_tree = traced.out_treedef.unflatten(outs)
    tan_tree = traced.out_treedef.unflatten(tans)
    if has_aux:
        return (out_tree[0], tan_tree[0]), out_tree[1]
    return (out_tree, tan_tree), None


def _jvp_core(fun, primals, tangents, has_aux):
    p_leaves, p_tree = _xjit.tree_flatten(tuple(primals))
    t_leaves, _ = _xjit.tree_flatten(tuple(tangents))
    avals = [tracing.leaf_aval(x) for x in p_leaves]
    (out, tan), aux = _jvp_flat(fun, p_leaves, p_tree, avals, t_leaves, has_aux)
    return out, tan, aux


@api_boundary
def jvp(fun: Callable, primals, tangents, has_aux: bool = False):
    """Forward-mode derivative: ``(fun(*primals), J(primals) @ tangents)``.

    Example:
        >>> jvp(lambda x: x * x, (3.0,), (1.0,))
        (Array(9., dtype=float32, weak_type=True), Array(6., dtype=float32, weak_type=True))
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; found "
                        f"{type(primals).__name__} and {type(tangents).__name__}.")
    p_leaves, p_tree = _xjit.tree_flatten(tuple(primals))
    t_leaves, t_tree = _xjit.tree_flatten(tuple(tangents))
    if p_tree != t_tree:
        raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                        f"structure; primals have tree structure {p_tree} whereas tangents have "
                        f"tree structure {t_tree}.")
    for p, t in zip(p_leaves, t_leaves):
        a = tracing.leaf_aval(p)
        if not _is_float(a.dtype):
            continue
        ta = tracing.leaf_aval(t)
        if ta.dtype != a.dtype:
            raise TypeError("primal and tangent arguments to jax.jvp do not match; dtypes must "
                            "be equal, or in case of int/bool primal dtype the tangent dtype "
                            f"must be float0. Got primal dtype {a.dtype.name} and so expected "
                            f"tangent dtype {a.dtype.name}, but got tangent dtype "
                            f"{ta.dtype.name} instead.")
        if ta.shape != a.shape:
            raise ValueError("jvp called with different primal and tangent shapes;Got primal "
                             f"shape {a.shape} and tangent shape as {ta.shape}")
    out, tan, aux = _jvp_core(fun, primals, tangents, has_aux)
    return (out, tan, aux) if has_aux else (out, tan)


@api_boundary
def linearize(fun: Callable, *primals, has_aux: bool = False):
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the JVP at ``primals``.

    Example:
        >>> y, f_jvp = linearize(lambda x: x ** 2, 3.0)
        >>> f_jvp(1.0)
        Array(6., dtype=float32, weak_type=True)
    """
    out, _, aux = _jvp_core(fun, primals, primals, has_aux)

    def f_jvp(*tangents):
        return _jvp_core(fun, primals, tangents, has_aux)[1]

    return (out, f_jvp, aux) if has_aux else (out, f_jvp)


# ----------------------------------------------------------------------- vjp

def _vjp_core(fun, primals, has_aux):
    """(out, pullback over the flat primal leaves, aux)."""
    p_leaves, p_tree = _xjit.tree_flatten(tuple(primals))
    avals = [tracing.leaf_aval(x) for x in p_leaves]
    traced = _trace(_split_aux(lambda *a: fun(*a), has_aux), avals,
                    _xjit.tree_flatten((tuple(primals), {}))[1], _fun_name(fun),
                    [_operand(x, a) for x, a in zip(p_leaves, avals)])
    wants = [_is_float(a.dtype) for a in avals] + [False] * len(traced.captures)
    fwd, bwd, n_res, out_has_ct = traced.mb.vjp(traced.computation, wants, traced.unique("vjp"))
    operands = [_operand(x, a) for x, a in zip(p_leaves, avals)] + traced.captures
    n = len(traced.out_avals)
    res = _apply(fwd, operands, traced.out_weak + [False] * n_res)
    outs, residuals = res[:n], res[n:]
    out_tree = traced.out_treedef.unflatten(outs)
    aux = None
    full_has_ct = list(out_has_ct)
    n_main = n
    ct_treedef = traced.out_treedef
    if has_aux:
        out_tree, aux = out_tree
        main_leaves, ct_treedef = _xjit.tree_flatten(out_tree)
        n_main = len(main_leaves)

    def pullback(ct):
        ct_leaves, tree = _xjit.tree_flatten(ct)
        if tree != ct_treedef:
            raise TypeError(f"Tree structure of cotangent input {tree}, does not match "
                            f"structure of primal output {ct_treedef}.")
        cts = []
        for c, a, h in zip(ct_leaves, traced.out_avals[:n_main], full_has_ct[:n_main]):
            if not h:
                continue
            ca = tracing.leaf_aval(c)
            if ca.shape != a.shape:
                raise ValueError(f"Shape of cotangent input to vjp pullback function "
                                 f"{ca.shape} must be the same as the shape of corresponding "
                                 f"primal input {a.shape}.")
            if isinstance(c, (core.Tracer, _xjit.Array)) and ca.dtype != a.dtype:
                c = _convert(c, a.dtype)
            cts.append(_operand(c, a))
        # Auxiliary outputs get zero cotangents.
        cts += [np.zeros(a.shape, a.dtype)
                for a, h in zip(traced.out_avals[n_main:], full_has_ct[n_main:]) if h]
        grads = iter(_apply(bwd, list(residuals) + cts,
                            [a.weak_type for a, w in zip(avals, wants) if w]))
        leaves = [next(grads) if w else _zeros_float0(a.shape) for a, w in zip(avals, wants)]
        return p_tree.unflatten(leaves)

    return out_tree, pullback, aux


def _convert(x, dtype):
    from xjit._src.lax import elementwise
    return elementwise.convert_element_type(x, dtype)


@api_boundary
def vjp(fun: Callable, *primals, has_aux: bool = False):
    """``(fun(*primals), vjp_fn)``; ``vjp_fn(ct)`` is the cotangent of each primal.

    Example:
        >>> y, f_vjp = vjp(lambda x: x * x, 3.0)
        >>> f_vjp(1.0)
        (Array(6., dtype=float32, weak_type=True),)
    """
    out, pullback, aux = _vjp_core(fun, primals, has_aux)
    return (out, pullback, aux) if has_aux else (out, pullback)


# ---------------------------------------------------------------------- grad

def _argnums_tuple(argnums, nargs: int) -> tuple:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for i in nums:
        if not isinstance(i, int) or not -nargs <= i < nargs:
            raise TypeError(f"differentiating with respect to argnums={argnums} requires at "
                            f"least {max(nums) + 1} positional arguments to be passed by the "
                            f"caller, but got only {nargs} positional arguments.")
    return tuple(i % nargs for i in nums)


def _partial_args(fun, args, kwargs, nums):
    """``fun`` as a function of the arguments at ``nums`` only."""
    def f(*dyn):
        full = list(args)
        for i, v in zip(nums, dyn):
            full[i] = v
        return fun(*full, **kwargs)
    return f


def _check_input_dtypes(what, dyn, allow_int, holomorphic):
    for leaf in _xjit.tree_flatten(dyn)[0]:
        a = tracing.leaf_aval(leaf)
        if holomorphic:
            if a.dtype.kind != "c":
                raise TypeError(f"{what} with holomorphic=True requires inputs with complex "
                                f"dtype, but got {a.dtype.name}.")
        elif not _is_float(a.dtype) and not allow_int:
            raise TypeError(f"{what} requires real- or complex-valued inputs (input dtype that "
                            f"is a sub-dtype of np.inexact), but got {a.dtype.name}. If you "
                            f"want to use Boolean- or integer-valued inputs, use vjp or set "
                            f"allow_int to True.")


def _check_holomorphic_outputs(what, avals):
    for a in avals:
        if a.dtype.kind != "c":
            raise TypeError(f"{what} with holomorphic=True requires outputs with complex dtype, "
                            f"but got {a.dtype.name}.")


def _check_jacfwd_inputs(dyn, holomorphic):
    for leaf in _xjit.tree_flatten(dyn)[0]:
        a = tracing.leaf_aval(leaf)
        if holomorphic:
            if a.dtype.kind != "c":
                raise TypeError("jacfwd with holomorphic=True requires inputs with complex "
                                f"dtype, but got {a.dtype.name}.")
        elif not _is_float(a.dtype) or a.dtype.kind == "c":
            raise TypeError("jacfwd requires real-valued inputs (input dtype that is a sub-dtype "
                            f"of np.floating), but got {a.dtype.name}. For holomorphic "
                            "differentiation, pass holomorphic=True. For differentiation of "
                            "non-holomorphic functions involving complex inputs or outputs, use "
                            "jax.jvp directly.")


def _check_jacrev_outputs(out_avals, holomorphic):
    if holomorphic:
        _check_holomorphic_outputs("jacrev", out_avals)
        return
    for a in out_avals:
        if not _is_float(a.dtype) or a.dtype.kind == "c":
            raise TypeError("jacrev requires real-valued outputs (output dtype that is a "
                            f"sub-dtype of np.floating), but got {a.dtype.name}. For holomorphic "
                            "differentiation, pass holomorphic=True. For differentiation of "
                            "non-holomorphic functions involving complex outputs, use jax.vjp "
                            "directly.")


def value_and_grad(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
                   allow_int: bool = False, reduce_axes=()):
    """``fun`` and its gradient with respect to ``argnums``, in one call.

    Example:
        >>> value_and_grad(lambda x: x ** 3)(2.0)
        (Array(8., dtype=float32, weak_type=True), Array(12., dtype=float32, weak_type=True))
    """
    @functools.wraps(fun)
    @api_boundary
    def value_and_grad_f(*args, **kwargs):
        nums = _argnums_tuple(argnums, len(args))
        dyn = tuple(args[i] for i in nums)
        _check_input_dtypes("grad", dyn, allow_int, holomorphic)
        out, pullback, aux = _vjp_core(_partial_args(fun, args, kwargs, nums), dyn, has_aux)
        leaves, _ = _xjit.tree_flatten(out)
        if len(leaves) != 1 or tracing.leaf_aval(leaves[0]).shape != ():
            shape = tracing.leaf_aval(leaves[0]).shape if len(leaves) == 1 else None
            raise TypeError("Gradient only defined for scalar-output functions. Output "
                            + (f"had shape: {shape}." if shape is not None
                               else f"was {out}."))
        a = tracing.leaf_aval(leaves[0])
        if holomorphic:
            _check_holomorphic_outputs("grad", [a])
        elif not _is_float(a.dtype) or a.dtype.kind == "c":
            raise TypeError("grad requires real-valued outputs (output dtype that is a "
                            f"sub-dtype of np.floating), but got {a.dtype.name}. For "
                            "holomorphic differentiation, pass holomorphic=True. For "
                            "differentiation of non-holomorphic functions involving complex "
                            "outputs, use jax.vjp directly.")
        g = pullback(np.ones((), a.dtype))
        g = g[0] if isinstance(argnums, int) else g
        return ((out, aux), g) if has_aux else (out, g)

    return value_and_grad_f


def grad(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
         allow_int: bool = False, reduce_axes=()):
    """The gradient of scalar-valued ``fun`` with respect to ``argnums``.

    Example:
        >>> grad(lambda x: x ** 3)(2.0)
        Array(12., dtype=float32, weak_type=True)
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @functools.wraps(fun)
    @api_boundary
    def grad_f(*args, **kwargs):
        (_, aux), g = vg(*args, **kwargs) if has_aux else ((None, None), vg(*args, **kwargs)[1])
        return (g, aux) if has_aux else g

    return grad_f


# ----------------------------------------------------------------- jacobians

def _std_basis(leaves):
    """One-hot rows over all elements of ``leaves``: per leaf an array [N, *shape]."""
    avals = [tracing.leaf_aval(x) for x in leaves]
    sizes = [int(np.prod(a.shape, dtype=np.int64)) for a in avals]
    total = sum(sizes)
    out, start = [], 0
    for a, n in zip(avals, sizes):
        eye = np.zeros((total, n), dtype=a.dtype)
        eye[np.arange(start, start + n), np.arange(n)] = 1
        out.append(eye.reshape((total,) + a.shape))
        start += n
    return out, sizes


def jacfwd(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False):
    """The Jacobian of ``fun`` by forward mode (a vmapped JVP over a one-hot basis).

    Example:
        >>> jacfwd(lambda x: x * x)(np.arange(2.0, dtype=np.float32))
        Array([[0., 0.],
               [0., 2.]], dtype=float32)
    """
    from xjit._src.lax import shapes

    @functools.wraps(fun)
    @api_boundary
    def jacfun(*args, **kwargs):
        nums = _argnums_tuple(argnums, len(args))
        dyn = tuple(args[i] for i in nums)
        _check_jacfwd_inputs(dyn, holomorphic)
        f = _partial_args(fun, args, kwargs, nums)
        in_leaves, in_tree = _xjit.tree_flatten(dyn)
        basis, sizes = _std_basis(in_leaves)

        def push(*t_leaves):
            out, tan, aux = _jvp_core(f, dyn, in_tree.unflatten(list(t_leaves)), has_aux)
            return (tan, aux) if has_aux else tan

        res = vmap(push)(*basis)
        tan, aux = res if has_aux else (res, None)
        tan_leaves, out_tree = _xjit.tree_flatten(tan)
        if holomorphic:
            _check_holomorphic_outputs("jacfwd", [core.ShapedArray(t.shape, t.dtype)
                                                  for t in tan_leaves])
        in_avals = [tracing.leaf_aval(x) for x in in_leaves]
        jac_leaves = []
        for t in tan_leaves:   # [N, *out_shape]
            out_shape = tuple(t.shape[1:])
            per_input, start = [], 0
            for a, n in zip(in_avals, sizes):
                block = shapes.slice_in_dim(t, start, start + n, axis=0)   # [n, *out]
                start += n
                nd = len(out_shape)
                block = shapes.transpose(block, tuple(range(1, nd + 1)) + (0,))
                per_input.append(shapes.reshape(block, out_shape + a.shape))
            arg_tree = in_tree.unflatten(per_input)
            jac_leaves.append(arg_tree[0] if isinstance(argnums, int) else arg_tree)
        jac = out_tree.unflatten(jac_leaves)
        return (jac, aux) if has_aux else jac

    return jacfun


def jacrev(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
           allow_int: bool = False):
    """The Jacobian of ``fun`` by reverse mode (a vmapped pullback over a one-hot basis).

    Example:
        >>> jacrev(lambda x: x * x)(np.arange(2.0, dtype=np.float32))
        Array([[0., 0.],
               [0., 2.]], dtype=float32)
    """
    from xjit._src.lax import shapes

    @functools.wraps(fun)
    @api_boundary
    def jacfun(*args, **kwargs):
        nums = _argnums_tuple(argnums, len(args))
        dyn = tuple(args[i] for i in nums)
        _check_input_dtypes("jacrev", dyn, allow_int, holomorphic)
        f = _partial_args(fun, args, kwargs, nums)
        out, pullback, aux = _vjp_core(f, dyn, has_aux)
        out_leaves, out_tree = _xjit.tree_flatten(out)
        out_avals = [tracing.leaf_aval(x) for x in out_leaves]
        _check_jacrev_outputs(out_avals, holomorphic)
        basis, sizes = _std_basis(out_leaves)
        in_leaves, in_tree = _xjit.tree_flatten(dyn)
        in_avals = [tracing.leaf_aval(x) for x in in_leaves]
        floats = [_is_float(a.dtype) for a in in_avals]

        def pull(*ct_leaves):
            got = _xjit.tree_flatten(pullback(out_tree.unflatten(list(ct_leaves))))[0]
            return [g for g, fl in zip(got, floats) if fl]   # float0 leaves cannot be mapped

        float_cts = iter(vmap(pull)(*basis))   # per float input leaf: [M, *in_shape]
        total = sum(sizes)
        # Integer inputs (allow_int) get zeros of their own dtype, as JAX's jacrev.
        ct_leaves = [next(float_cts) if fl else np.zeros((total,) + a.shape, a.dtype)
                     for a, fl in zip(in_avals, floats)]
        per_output = []
        start = 0
        for a, m in zip(out_avals, sizes):
            per_input = []
            for c in ct_leaves:
                if isinstance(c, np.ndarray):
                    per_input.append(np.zeros(a.shape + c.shape[1:], c.dtype))
                    continue
                block = shapes.slice_in_dim(c, start, start + m, axis=0)   # [m, *in]
                per_input.append(shapes.reshape(block, a.shape + tuple(c.shape[1:])))
            start += m
            arg_tree = in_tree.unflatten(per_input)
            per_output.append(arg_tree[0] if isinstance(argnums, int) else arg_tree)
        jac = out_tree.unflatten(per_output)
        return (jac, aux) if has_aux else jac

    return jacfun


jacobian = jacrev


def hessian(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False):
    """The Hessian of scalar ``fun``: ``jacfwd(jacrev(fun))``.

    Example:
        >>> hessian(lambda x: (x ** 3).sum())(np.ones(2, np.float32))
        Array([[6., 0.],
               [0., 6.]], dtype=float32)
    """
    return jacfwd(jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic), argnums,
                  has_aux=has_aux, holomorphic=holomorphic)


# ---------------------------------------------------------------------- vmap

def _prefix_axes(prefix, tree, what: str) -> list:
    """One axis per leaf of ``tree``: ``prefix`` (int/None or a tree prefix) broadcast."""
    if prefix is None or isinstance(prefix, int):
        return [prefix] * len(_xjit.tree_flatten(tree)[0])
    if isinstance(prefix, (tuple, list)) and isinstance(tree, (tuple, list)) \
            and len(prefix) == len(tree):
        return [ax for p, t in zip(prefix, tree) for ax in _prefix_axes(p, t, what)]
    if isinstance(prefix, dict) and isinstance(tree, dict) and set(prefix) == set(tree):
        return [ax for k in sorted(tree) for ax in _prefix_axes(prefix[k], tree[k], what)]
    raise ValueError(f"vmap {what} specification must be a tree prefix of the corresponding "
                     f"value, got specification {prefix!r} for value tree "
                     f"{_xjit.tree_flatten(tree)[1]}.")


def vmap(fun: Callable, in_axes=0, out_axes=0, axis_name=None, axis_size=None,
         spmd_axis_name=None):
    """Vectorise ``fun`` over the axes ``in_axes`` of its arguments.

    ``in_axes``/``out_axes``: an int, None (not mapped) or a pytree prefix of
    the arguments/outputs. ``axis_name`` names the axis for the collectives
    of ``lax`` (``psum``, ``pmean``, ``pmax``, ``pmin``, ``axis_index``).
    Keyword arguments are mapped over axis 0.

    Example:
        >>> vmap(lambda x, y: x @ y, in_axes=(0, None))(np.ones((3, 2), np.float32),
        ...                                               np.ones(2, np.float32))
        Array([2., 2., 2.], dtype=float32)
    """
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if not (in_axes is None or isinstance(in_axes, (int, tuple, dict))):
        raise TypeError("vmap in_axes must be an int, None, or a tuple of entries corresponding "
                        f"to the positional arguments passed to the function, but got {in_axes}.")

    @functools.wraps(fun)
    @api_boundary
    def vmap_f(*args, **kwargs):
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError("vmap in_axes must be an int, None, or a tuple of entries "
                             "corresponding to the positional arguments passed to the function, "
                             f"but got len(in_axes)={len(in_axes)}, len(args)={len(args)}")
        axes = _prefix_axes(in_axes, tuple(args), "in_axes") \
            + [0] * len(_xjit.tree_flatten(kwargs)[0])
        leaves, treedef = _xjit.tree_flatten((tuple(args), dict(kwargs)))
        avals, flat_axes, sizes = [], [], []
        for i, (x, ax) in enumerate(zip(leaves, axes)):
            if ax is None:   # passed to fun as it is, as JAX does
                continue
            a = tracing.leaf_aval(x)
            if not -a.ndim <= ax < a.ndim:
                raise ValueError(f"vmap was requested to map its argument along axis {ax}, "
                                 f"which implies that its rank should be at least {ax + 1}, "
                                 f"but is only {a.ndim} (its shape is {a.shape})")
            ax %= a.ndim
            sizes.append((a.shape[ax], ax, i, a))
            flat_axes.append(ax)
            avals.append(core.ShapedArray(a.shape[:ax] + a.shape[ax + 1:], a.dtype, a.weak_type))
        distinct = {s for s, *_ in sizes}
        if axis_size is not None:
            distinct.add(axis_size)
        if len(distinct) > 1:
            lines = [f"  * axis {ax} of argument {i} of type {a.str_short()} has size {s}"
                     for s, ax, i, a in sizes]
            if axis_size is not None:
                lines.append(f"  * axis_size is {axis_size}")
            raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n"
                             + "\n".join(lines))
        if not distinct:
            raise ValueError("vmap must have at least one non-None value in in_axes")
        size = distinct.pop()
        mapped = [i for i, ax in enumerate(axes) if ax is not None]

        def fun_of_mapped(*mapped_leaves):
            full = list(leaves)
            for i, v in zip(mapped, mapped_leaves):
                full[i] = v
            a, kw = treedef.unflatten(full)
            return fun(*a, **kw)

        with axis_env.bound_axis(axis_name, size) as axis_id:
            traced = _trace(fun_of_mapped, avals,
                            _xjit.tree_flatten((tuple(range(len(avals))), {}))[1],
                            _fun_name(fun), [None] * len(avals))
        out_example = traced.out_treedef.unflatten(list(range(len(traced.out_avals))))
        oaxes = _prefix_axes(out_axes, out_example, "out_axes")
        flat_out = []
        for ax, a in zip(oaxes, traced.out_avals):
            if ax is None:
                flat_out.append(-1)
            else:
                if not -(a.ndim + 1) <= ax <= a.ndim:
                    raise ValueError(f"vmap out_axes {ax} out of range for an output of rank "
                                     f"{a.ndim}")
                flat_out.append(ax % (a.ndim + 1))
        try:
            comp = traced.mb.vmap(traced.computation, flat_axes + [-1] * len(traced.captures),
                                  size, flat_out, traced.unique("vmap"), axis_id)
        except TypeError as e:
            if "out_axes is None" in str(e):   # JAX raises ValueError
                raise ValueError(str(e)) from None
            raise
        operands = [_operand(leaves[i], tracing.leaf_aval(leaves[i])) for i in mapped] \
            + traced.captures
        outs = _apply(comp, operands, traced.out_weak)
        return traced.out_treedef.unflatten(outs)

    return vmap_f


# --------------------------------------------------------------- inspection

class Graph:
    """The traced graph of a function (``make_graph``): prints as StableHLO text."""

    def __init__(self, module, out_shape):
        self.module = module
        self.out_shape = out_shape

    def __str__(self):
        return self.module.as_text()

    __repr__ = __str__


def make_graph(fun: Callable, static_argnums=(), return_shape: bool = False):
    """``make_graph(f)(*args)``: the graph ``jit(f)`` would compile (JAX's make_jaxpr).

    Example:
        >>> print(make_graph(lambda x: x + 1)(1.0))  # doctest: +SKIP
    """
    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    @api_boundary
    def make(*args, **kwargs):
        dyn = [a for i, a in enumerate(args) if i not in nums]

        def rebuild(new_args, new_kwargs):
            it = iter(new_args)
            return tuple(args[i] if i in nums else next(it) for i in range(len(args))), new_kwargs

        traced = tracing.trace_to_module(fun, dyn, kwargs, rebuild_args=rebuild,
                                         name=_fun_name(fun))
        g = Graph(traced.module, None)
        if return_shape:
            from xjit._src import api
            g.out_shape = api.eval_shape(fun, *args, **kwargs)
            return g, g.out_shape
        return g

    return make


# ------------------------------------------------------------ stop_gradient

def stop_gradient(x):
    """``x``, with a zero derivative for every transformation.

    In a traced function it is a ``call`` of an identity computation named
    ``xjit_stop_gradient`` (StableHLO has no such op; see docs/architecture.md),
    which backends inline away and the JVP rule of ``call`` differentiates to zero.

    Example:
        >>> grad(lambda x: x * stop_gradient(x))(3.0)
        Array(3., dtype=float32, weak_type=True)
    """
    def one(leaf):
        trace = core.current_trace()
        if trace is None or not isinstance(leaf, core.Tracer):
            return leaf
        cb = trace.mb.computation(trace.unique_name("xjit_stop_gradient"))
        p = cb.parameter(leaf.dtype.name, leaf.shape)
        ident = cb.finish([p])
        return dispatch.bind("call", [leaf], {}, weak_type=leaf.weak_type,
                             regions=[lambda mb: ident])

    leaves, treedef = _xjit.tree_flatten(x)
    return treedef.unflatten([one(leaf) for leaf in leaves])
