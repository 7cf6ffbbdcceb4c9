"""Control flow with JAX's signatures, built from select and static unrolling.

The graph has no while/if ops yet, so:

* ``cond``/``select_n``/``switch`` evaluate every branch and select the
  result (the same values as JAX for pure functions; a concrete predicate
  runs only the chosen branch);
* ``fori_loop``/``scan`` unroll when their trip count is static;
* ``while_loop`` runs eagerly, and raises ``NotImplementedError`` when its
  condition is traced.

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
from xjit._src.lax import elementwise as ew
from xjit._src.lax import operands as ops
from xjit._src.lax import shapes
from xjit._src.traceback_util import api_boundary


def _is_concrete(x) -> bool:
    return not isinstance(x, core.Tracer)


def _tree_select(pred, on_true, on_false):
    t_leaves, t_tree = _xjit.tree_flatten(on_true)
    f_leaves, f_tree = _xjit.tree_flatten(on_false)
    if t_tree != f_tree:
        raise TypeError(f"cond branches must return the same pytree structure, got {t_tree} "
                        f"and {f_tree}")
    out = []
    for t, f in zip(t_leaves, f_leaves):
        if ops.shape_of(t) != ops.shape_of(f) or ops.dtype_of(t) != ops.dtype_of(f):
            raise TypeError(
                f"cond branches must return matching types, got "
                f"{ops.dtype_of(t).name}{list(ops.shape_of(t))} and "
                f"{ops.dtype_of(f).name}{list(ops.shape_of(f))}")
        out.append(ew.select(pred, t, f))
    return t_tree.unflatten(out)


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


def _run_loop(what: str, body_fun, carry_pos: int, init, step):
    """The last carry of ``step(init)`` (a generator of the carries after each
    iteration), each checked against ``init``'s structure and types. When the body
    widens a weakly typed leaf of ``init``, ``init`` is promoted and the loop run
    again from the start (JAX retraces with the promoted carry)."""
    for attempt in range(2):
        carry, restart = init, False
        for out in step(init):
            promoted = _promoted_or_raise(what, body_fun, carry_pos, init, out,
                                          allow_promotion=attempt == 0)
            if promoted is not None:
                init, restart = promoted, True
                break
            carry = out
        if not restart:
            return carry
    return carry


def _scalar_pred(name, pred):
    if ops.shape_of(pred) != ():
        raise TypeError(f"{name}: pred must be a scalar, got shape {ops.shape_of(pred)}")
    if ops.dtype_of(pred) != np.bool_:
        pred = ew.ne(pred, 0)
    return pred


@api_boundary
def cond(pred, true_fun: Callable, false_fun: Callable, *operands):
    """``true_fun(*operands) if pred else false_fun(*operands)``, with ``pred``
    allowed to be traced.

    Example:
        >>> lax.cond(True, lambda x: x + 1, lambda x: x - 1, 1.0)
        Array(2., dtype=float32, weak_type=True)
    """
    ops.check_arraylike("cond", pred)
    pred = _scalar_pred("cond", pred)
    if _is_concrete(pred):
        branch = true_fun if bool(np.asarray(pred)) else false_fun
        return _as_arrays(branch(*operands))
    return _tree_select(pred, true_fun(*operands), false_fun(*operands))


@api_boundary
def switch(index, branches, *operands):
    """``branches[clamp(index, 0, len - 1)](*operands)``.

    Example:
        >>> lax.switch(1, [lambda: 0.0, lambda: 1.0])
        Array(1., dtype=float32, weak_type=True)
    """
    branches = list(branches)
    if not branches:
        raise ValueError("switch: branches must be non-empty")
    if ops.shape_of(index) != ():
        raise TypeError(f"Branch index must be scalar, got {index} of shape "
                        f"{ops.shape_of(index)}.")
    if ops.kind(ops.dtype_of(index)) not in "biu":  # a float index is not clamped-and-cast
        raise TypeError(f"Index type must be an integer, got {index}.")
    if _is_concrete(index):
        i = int(np.clip(int(np.asarray(index)), 0, len(branches) - 1))
        return _as_arrays(branches[i](*operands))
    index = ew.clamp(0, ew.convert_element_type(index, np.int32), len(branches) - 1)
    out = branches[-1](*operands)
    for i in range(len(branches) - 2, -1, -1):
        out = _tree_select(ew.eq(index, i), branches[i](*operands), out)
    return out


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


@api_boundary
def fori_loop(lower, upper, body_fun: Callable, init_val):
    """``for i in range(lower, upper): val = body_fun(i, val)``; bounds must be static.

    Example:
        >>> lax.fori_loop(0, 4, lambda i, s: s + i, 0)
        Array(6, dtype=int32, weak_type=True)
    """
    for bound in (lower, upper):
        if (not isinstance(bound, _ARRAYLIKE) or ops.shape_of(bound) != ()
                or ops.kind(ops.dtype_of(bound)) not in "iu"):
            raise TypeError("fori_loop lower and upper arguments must be integer scalars")
    if not (_is_concrete(lower) and _is_concrete(upper)):
        raise NotImplementedError(
            "fori_loop with traced bounds needs a while op, which xjit does not have yet; "
            "make the bounds static (Python ints or static_argnums).")
    indices = range(int(np.asarray(lower)), int(np.asarray(upper)))
    return _as_arrays(_run_loop("fori_loop body", body_fun, 1, init_val,
                                lambda init: _fori_steps(body_fun, indices, init)))


def _fori_steps(body_fun, indices, val):
    for i in indices:
        val = body_fun(i, val)
        yield val


@api_boundary
def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
    """``while cond_fun(val): val = body_fun(val)``; the condition must be concrete.

    Example:
        >>> lax.while_loop(lambda x: x < 10, lambda x: x * 2, 1)
        Array(16, dtype=int32, weak_type=True)
    """
    return _as_arrays(_run_loop("while_loop body", body_fun, 0, init_val,
                                lambda init: _while_steps(cond_fun, body_fun, init)))


def _check_cond_output(c) -> None:
    """JAX's check: cond_fun returns one boolean scalar (weak type allowed)."""
    leaves, tree = _xjit.tree_flatten(c)
    if len(leaves) != 1 or leaves[0] is not c:
        raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {tree}.")
    aval = _aval(c) if isinstance(c, _ARRAYLIKE) else None
    if aval is None or aval.shape != () or aval.dtype != np.bool_:
        raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) "
                        f"[{aval!r}].")


def _while_steps(cond_fun, body_fun, val):
    while True:
        c = cond_fun(val)
        _check_cond_output(c)
        if isinstance(c, core.Tracer):
            raise NotImplementedError(
                "while_loop with a traced condition needs a while op, which xjit does not "
                "have yet; run it outside jit or use fori_loop with static bounds.")
        if not bool(np.asarray(c)):
            return
        val = body_fun(val)
        yield val


@api_boundary
def scan(f: Callable, init, xs=None, length=None, reverse=False, unroll=1):
    """JAX's scan, unrolled: ``carry, y = f(carry, x)`` over the leading axis of ``xs``.

    Example:
        >>> carry, ys = lax.scan(lambda c, x: (c + x, c), 0.0, np.arange(3, dtype=np.float32))
        >>> ys
        Array([0., 0., 1.], dtype=float32)
    """
    x_leaves, x_tree = _xjit.tree_flatten(xs)
    lengths = {ops.shape_of(x)[0] for x in x_leaves}
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1:
        raise ValueError(f"scan got inconsistent lengths for xs/length: {sorted(lengths)}")
    n = lengths.pop()
    ys = []
    steps = range(n - 1, -1, -1) if reverse else range(n)

    def run(init):
        ys.clear()
        carry = init
        for i in steps:
            x = x_tree.unflatten([shapes.index_in_dim(leaf, i, 0, keepdims=False)
                                  for leaf in x_leaves])
            out = f(carry, x)
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError("scan body output must be a pair, got "
                                f"{_xjit.tree_flatten(out)[1]}.")
            carry, y = out
            ys.append(y)
            yield carry

    carry = _run_loop("scan body", f, 0, init, run)
    if reverse:
        ys.reverse()
    if not ys:
        raise ValueError("scan of length 0 is not supported")
    y_leaves = [_xjit.tree_flatten(y)[0] for y in ys]
    y_tree = _xjit.tree_flatten(ys[0])[1]
    stacked = [shapes.concatenate([shapes.expand_dims(ops.as_operand(step[j])
                                                      if not isinstance(step[j], (
                                                          ops.Array, ops.Tracer))
                                                      else step[j], (0,))
                                   for step in y_leaves], 0)
               for j in range(len(y_leaves[0]))]
    return _as_arrays(carry), y_tree.unflatten(stacked)
