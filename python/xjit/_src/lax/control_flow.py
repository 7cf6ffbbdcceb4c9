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

from typing import Callable

import numpy as np

from xjit import _xjit
from xjit._src import core
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
    if not (_is_concrete(lower) and _is_concrete(upper)):
        raise NotImplementedError(
            "fori_loop with traced bounds needs a while op, which xjit does not have yet; "
            "make the bounds static (Python ints or static_argnums).")
    val = init_val
    for i in range(int(np.asarray(lower)), int(np.asarray(upper))):
        val = body_fun(i, val)
    return _as_arrays(val)


@api_boundary
def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
    """``while cond_fun(val): val = body_fun(val)``; the condition must be concrete.

    Example:
        >>> lax.while_loop(lambda x: x < 10, lambda x: x * 2, 1)
        Array(16, dtype=int32, weak_type=True)
    """
    val = init_val
    while True:
        c = cond_fun(val)
        if isinstance(c, core.Tracer):
            raise NotImplementedError(
                "while_loop with a traced condition needs a while op, which xjit does not "
                "have yet; run it outside jit or use fori_loop with static bounds.")
        if not bool(np.asarray(c)):
            break
        val = body_fun(val)
    return _as_arrays(val)


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
    carry = init
    ys = []
    steps = range(n - 1, -1, -1) if reverse else range(n)
    for i in steps:
        x = x_tree.unflatten([shapes.index_in_dim(leaf, i, 0, keepdims=False)
                              for leaf in x_leaves])
        carry, y = f(carry, x)
        ys.append(y)
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
