"""Control flow with JAX's signatures on the graph's while/if/case ops.

Branch, condition and body functions are traced once each into regions
(``_regions.py``); values they close over become operands of the op. ``cond``
and ``switch`` lower to ``if``/``case``, ``while_loop`` and ``fori_loop`` to
``while``, ``scan`` and ``map`` to a ``while`` whose carry holds the loop
index and the stacked outputs. Eager calls build and run the op at once.

Example:
    >>> from xjit import lax
    >>> lax.fori_loop(0, 3, lambda i, x: x * 2.0, 1.0)
    Array(8., dtype=float32, weak_type=True)
"""
from __future__ import annotations

import inspect
from typing import Callable

import numpy as np

from xjit import _xjit
from xjit._src import core, dtypes
from xjit._src.config import config
from xjit._src.lax import elementwise as ew
from xjit._src.lax import operands as ops
from xjit._src.lax import regions as regions_mod
from xjit._src.traceback_util import api_boundary


_ARRAYLIKE = (ops.Array, ops.Tracer, np.ndarray, np.generic, bool, int, float, complex)


def _aval(x) -> core.ShapedArray:
    return core.ShapedArray(ops.shape_of(x), ops.dtype_of(x), ops.is_weak(x))


def _leaf_paths(tree) -> list:
    """JAX-style key paths (``[0]['a']``) of the leaves of tuples, lists and dicts."""
    if tree is None:
        return []
    if isinstance(tree, (tuple, list)) and not hasattr(tree, "_fields"):
        return [f"[{i}]{p}" for i, child in enumerate(tree) for p in _leaf_paths(child)]
    if isinstance(tree, dict):
        return [f"[{k!r}]{p}" for k in sorted(tree) for p in _leaf_paths(tree[k])]
    leaves = _xjit.tree_flatten(tree)[0]
    return [""] if len(leaves) == 1 and leaves[0] is tree else [f"<leaf {i}>" for i in
                                                                 range(len(leaves))]


def _carry_name(body_fun, position: int) -> str:
    try:
        params = list(inspect.signature(body_fun).parameters)
        return params[position]
    except (TypeError, ValueError, IndexError):
        return ""


def _promoted_or_raise(what: str, body_fun, carry_pos: int, in_carry, out_carry,
                       allow_promotion: bool):
    """Check that ``out_carry`` (a body's output) has ``in_carry``'s structure and types.

    Returns None when they match, or ``in_carry`` with its weakly typed leaves
    promoted when only those differ in dtype and ``allow_promotion`` (JAX
    retraces the loop with such a carry); otherwise raises JAX's TypeError.
    """
    in_leaves, in_tree = _xjit.tree_flatten(in_carry)
    out_leaves, out_tree = _xjit.tree_flatten(out_carry)
    if in_tree != out_tree:
        raise TypeError(
            f"{what} function carry input and carry output must have the same pytree "
            f"structure, but they differ:\n\nthe input tree structure is:\n{in_tree}\n\n"
            f"the output tree structure is:\n{out_tree}\n\nRevise the function so that the "
            f"carry output has the same pytree structure as the carry input.")
    name = _carry_name(body_fun, carry_pos)
    paths = _leaf_paths(in_carry)
    if len(paths) != len(in_leaves):
        paths = [f"<leaf {i}>" for i in range(len(in_leaves))]
    diffs, promoted, promotable = [], list(in_leaves), True
    for i, (a, b) in enumerate(zip(in_leaves, out_leaves)):
        if not (isinstance(a, _ARRAYLIKE) and isinstance(b, _ARRAYLIKE)):
            continue
        ia, ib = _aval(a), _aval(b)
        if ia.shape == ib.shape and ia.dtype == ib.dtype:
            continue
        if ia.weak_type and ia.shape == ib.shape:
            promoted[i] = ew._convert_element_type(a, dtypes.result_type(a, b), True)
        else:
            promotable = False
        why = " and also ".join(
            (["the dtypes do not match"] if ia.dtype != ib.dtype else [])
            + (["the shapes do not match"] if ia.shape != ib.shape else []))
        component = (f"the input carry component {name}{paths[i]}" if paths[i]
                     else f"the input carry {name}" if name else "the input carry")
        diffs.append(f"{component} has type {ia.str_short()} but the corresponding output "
                     f"carry component has type {ib.str_short()}, so {why}")
    if not diffs:
        return None
    if promotable and allow_promotion:
        return in_tree.unflatten(promoted)
    if len(diffs) == 1:
        differences = diffs[0][0].upper() + diffs[0][1:] + ".\n"
    else:
        differences = "".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"
    raise TypeError(
        f"{what} function carry input and carry output must have equal types (e.g. shapes "
        f"and dtypes of arrays), but they differ:\n\n{differences}\nRevise the function so "
        f"that all output types (e.g. shapes and dtypes) match the corresponding input types.")


def _eager_python(*values) -> bool:
    """Under ``disable_jit`` with concrete values, JAX runs control flow as
    plain Python (only the taken branch; loops in the interpreter)."""
    return (config.read("jax_disable_jit") and core.current_trace() is None
            and not any(isinstance(v, core.Tracer) for v in values))


def _check_pred(pred):
    ops.check_arraylike("cond", pred)
    if ops.shape_of(pred) != ():
        raise TypeError(f"Pred must be a scalar, got {pred} of shape {ops.shape_of(pred)}.")
    dt = ops.dtype_of(pred)
    if ops.kind(dt) not in "biufc":
        raise TypeError(f"Pred type must be either boolean or number, got {dt}.")
    if dt != np.bool_:
        pred = ew.ne(pred, 0)
    return pred


def _type_differences(names, regions) -> str:
    """Lines naming each output leaf whose type differs between the branches."""
    paths = _leaf_paths(regions[0].out_tree.unflatten(list(range(len(regions[0].out_avals)))))
    if len(paths) != len(regions[0].out_avals):
        paths = [f"<leaf {i}>" for i in range(len(regions[0].out_avals))]
    lines = []
    for k in range(1, len(regions)):
        for i, (a, b) in enumerate(zip(regions[0].out_avals, regions[k].out_avals)):
            if a.shape == b.shape and a.dtype == b.dtype:
                continue
            why = " and also ".join(
                (["the dtypes do not match"] if a.dtype != b.dtype else [])
                + (["the shapes do not match"] if a.shape != b.shape else []))
            lines.append(f"  * the output of {names[0]} at {paths[i] or 'the root'} has type "
                         f"{a.str_short()} but the corresponding output of {names[k]} has type "
                         f"{b.str_short()}, so {why}")
    return "\n".join(lines)


def _promotable(regions) -> list | None:
    """Per output leaf, the dtype every branch can be widened to when branches
    differ only in the dtypes of weakly typed leaves (JAX promotes those);
    None when some difference is not of that kind."""
    targets = []
    for i in range(len(regions[0].out_avals)):
        avals = [r.out_avals[i] for r in regions]
        if any(a.shape != avals[0].shape for a in avals):
            return None
        dts = {a.dtype for a in avals}
        if len(dts) == 1:
            targets.append(None)
            continue
        strong = {a.dtype for a in avals if not a.weak_type}
        if len(strong) > 1:
            return None
        targets.append(dtypes.result_type(*[r.out_leaves[i] for r in regions]))
    return targets


def _trace_branches(what: str, names, funs, operands):
    """Trace the branch functions on ``operands``; (regions, captures, leaves).

    Raises JAX's TypeError when the branches' output structures or types differ."""
    leaves, in_tree, avals = regions_mod.operand_leaves(operands, what)
    wrapped = [lambda *xs, f=f: f(*in_tree.unflatten(list(xs))) for f in funs]
    regions, captures = regions_mod.trace_regions(what, wrapped, avals)
    for k in range(1, len(regions)):
        if regions[k].out_tree != regions[0].out_tree:
            raise TypeError(
                f"{names[0]} and {names[k]} output must have same type structure, got "
                f"{regions[0].out_tree} and {regions[k].out_tree}.")
    types = [[(a.shape, a.dtype) for a in r.out_avals] for r in regions]
    differing = [k for k in range(1, len(regions)) if types[k] != types[0]]
    if differing:
        targets = _promotable(regions)
        if targets is None:
            raise TypeError(f"{names[0]} and {names[differing[0]]} output must have identical "
                            f"types, got\n{_type_differences(names, regions)}")

        def widen(f):
            def g(*xs):
                out_leaves, tree = _xjit.tree_flatten(f(*xs))
                return tree.unflatten([x if t is None else ew._convert_element_type(x, t, True)
                                       for x, t in zip(out_leaves, targets)])
            return g
        regions, captures = regions_mod.trace_regions(what, [widen(f) for f in wrapped], avals)
    return regions, captures, leaves


def _apply_branches(op: str, selector, what: str, names, funs, operands):
    regions, captures, leaves = _trace_branches(what, names, funs, operands)
    weak = [all(r.out_avals[i].weak_type for r in regions)
            for i in range(len(regions[0].out_avals))]
    out = regions_mod.bind(op, [selector] + list(leaves) + list(captures), regions, weak)
    return regions[0].out_tree.unflatten(out)


_NO_OPERAND = object()


def _cond_with_per_branch_args(pred, true_operand, true_fun, false_operand, false_fun):
    return _cond(pred, lambda op: true_fun(op[0]), lambda op: false_fun(op[1]),
                 (true_operand, false_operand))


@api_boundary
def cond(*args, **kwargs):
    """``true_fun(*operands) if pred else false_fun(*operands)``, lowered to
    ``if`` (only the chosen branch runs). Also accepts JAX's old form
    ``cond(pred, true_operand, true_fun, false_operand, false_fun)``.

    Example:
        >>> lax.cond(True, lambda x: x + 1, lambda x: x - 1, 1.0)
        Array(2., dtype=float32, weak_type=True)
    """
    try:
        ba = inspect.signature(_cond_with_per_branch_args).bind(*args, **kwargs)
    except TypeError:
        pass
    else:
        _, true_operand, true_fun, false_operand, false_fun = ba.args
        if not (callable(true_operand) and callable(true_fun)) and (
                callable(true_fun) and callable(false_fun)):
            return _cond_with_per_branch_args(*ba.args)
    return _cond(*args, **kwargs)


def _cond(pred, true_fun, false_fun, *operands, operand=_NO_OPERAND):
    if operand is not _NO_OPERAND:
        if operands:
            raise TypeError("if 'operand' keyword is passed then no operands can be passed "
                            "positionally")
        operands = (operand,)
    if not (callable(true_fun) and callable(false_fun)):
        raise TypeError("Expected true_fun and false_fun to be callable.")
    pred = _check_pred(pred)
    if _eager_python(pred):
        return _as_arrays((true_fun if bool(np.asarray(pred)) else false_fun)(*operands))
    return _apply_branches("if", pred, "cond", ["true_fun", "false_fun"],
                           [true_fun, false_fun], operands)


@api_boundary
def switch(index, branches, *operands, operand=_NO_OPERAND):
    """``branches[clamp(index, 0, len - 1)](*operands)``, lowered to ``case``.

    Example:
        >>> lax.switch(1, [lambda: 0.0, lambda: 1.0])
        Array(1., dtype=float32, weak_type=True)
    """
    if operand is not _NO_OPERAND:
        if operands:
            raise TypeError("if 'operand' keyword is passed then no operands can be passed "
                            "positionally")
        operands = (operand,)
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    ops.check_arraylike("switch", index)
    if ops.shape_of(index) != ():
        raise TypeError(f"Branch index must be scalar, got {index} of shape "
                        f"{ops.shape_of(index)}.")
    if ops.kind(ops.dtype_of(index)) not in "biu":
        raise TypeError(f"Index type must be an integer, got {index}.")
    if len(branches) == 1:
        return _as_arrays(branches[0](*operands))
    if _eager_python(index):
        i = int(np.clip(int(np.asarray(index)), 0, len(branches) - 1))
        return _as_arrays(branches[i](*operands))
    index = ew.convert_element_type(index, np.int32)
    index = ew.clamp(np.int32(0), index, np.int32(len(branches) - 1))
    names = [f"branch {i}" for i in range(len(branches))]
    return _apply_branches("case", index, "switch", names, branches, operands)


def _check_cond_output(c, aval=None) -> None:
    """JAX's check: cond_fun returns one boolean scalar (weak type allowed)."""
    leaves, tree = _xjit.tree_flatten(c)
    if len(leaves) != 1 or leaves[0] is not c:
        raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {tree}.")
    if aval is None:
        aval = _aval(c) if isinstance(c, _ARRAYLIKE) else None
    if aval is None or aval.shape != () or aval.dtype != np.bool_:
        raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) "
                        f"[{aval!r}].")


def _trace_loop(what: str, cond_fun, body_fun, carry_pos: int, init_val, body_args):
    """Trace ``cond_fun`` and ``body_fun`` on the carry ``init_val`` (widened and
    traced again when the body widens a weakly typed leaf, as JAX retraces).

    ``body_args(carry) -> args`` builds the body's arguments from the carry tree.
    Returns (regions, captures, operand leaves, treedef, avals)."""
    for attempt in range(2):
        leaves, tree, avals = regions_mod.operand_leaves(init_val, what)
        cond_f = lambda *xs: cond_fun(tree.unflatten(list(xs)))  # noqa: E731
        body_f = lambda *xs: body_fun(*body_args(tree.unflatten(list(xs))))  # noqa: E731
        regions, captures = regions_mod.trace_regions("while", [cond_f, body_f], avals)
        c = regions[0]
        if len(c.out_leaves) != 1 or c.out_tree != _xjit.tree_flatten(c.out_leaves[0])[1]:
            raise TypeError(f"cond_fun must return a boolean scalar, but got pytree "
                            f"{c.out_tree}.")
        _check_cond_output(c.out_leaves[0], c.out_avals[0])
        body_out = regions[1].out_tree.unflatten(regions[1].out_leaves)
        promoted = _promoted_or_raise(what, body_fun, carry_pos, init_val, body_out,
                                      allow_promotion=attempt == 0)
        if promoted is None:
            return regions, captures, leaves, tree, avals
        init_val = promoted
    raise AssertionError("unreachable")


@api_boundary
def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
    """``while cond_fun(val): val = body_fun(val)``, lowered to ``while``.

    Example:
        >>> lax.while_loop(lambda x: x < 10, lambda x: x * 2, 1)
        Array(16, dtype=int32, weak_type=True)
    """
    if not (callable(cond_fun) and callable(body_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    if _eager_python():
        val = init_val
        while bool(np.asarray(cond_fun(val))):
            val = body_fun(val)
        return _as_arrays(val)
    regions, captures, leaves, tree, avals = _trace_loop(
        "while_loop body", cond_fun, body_fun, 0, init_val, lambda carry: (carry,))
    out = regions_mod.bind("while", list(leaves) + list(captures), regions,
                           [a.weak_type for a in avals])
    return tree.unflatten(out[:len(leaves)])


@api_boundary
def select_n(which, *cases):
    """``cases[which]`` element-wise; ``which`` is bool (2 cases) or int.

    Example:
        >>> lax.select_n(np.array([True, False]), np.zeros(2, np.float32), np.ones(2, np.float32))
        Array([1., 0.], dtype=float32)
    """
    if not cases:
        raise ValueError("select_n requires at least one case")
    ops.check_arraylike("select_n", which)
    if ops.kind(ops.dtype_of(which)) not in "biu":
        raise TypeError("lax.select_n requires which to be a boolean or integer type")
    if len(cases) == 1:
        return cases[0]
    if ops.dtype_of(which) == np.bool_:
        if len(cases) != 2:
            raise TypeError("select_n with a boolean selector requires exactly 2 cases")
        return ew.select(which, cases[1], cases[0])
    out = cases[-1]
    for i in range(len(cases) - 2, -1, -1):
        out = ew.select(ew.eq(which, i), cases[i], out)
    return out


def _as_arrays(tree):
    leaves, treedef = _xjit.tree_flatten(tree)
    return treedef.unflatten([x if isinstance(x, (ops.Array, ops.Tracer))
                              else ops.concrete_value(ops.as_operand(x), ops.is_weak(x))
                              for x in leaves])


