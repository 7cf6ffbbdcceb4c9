"""``fori_loop``, ``scan``, ``map`` and ``associative_scan`` with JAX's signatures.

``scan`` is one ``while`` in the graph: its carry holds the step counter, the
user's carry and one buffer per output leaf (``[length, ...]``); ``xs`` are
captured operands (never copied per step). Step ``i`` reads ``xs[i]`` with
dynamic_slice and writes ``ys[i]`` with dynamic_update_slice, which the cpu
backend does in place. ``associative_scan`` is JAX's log-step algorithm on
strided slices (no loop).

Example:
    >>> carry, ys = scan(lambda c, x: (c + x, c), 0.0, np.arange(3, dtype=np.float32))
    >>> ys
    Array([0., 0., 1.], dtype=float32)
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from xjit import _xjit
from xjit._src import core, dtypes
from xjit._src.lax import elementwise as ew
from xjit._src.lax import operands as ops
from xjit._src.lax import regions as regions_mod
from xjit._src.lax import shapes, slicing
from xjit._src.lax.control_flow import (
    _ARRAYLIKE, _as_arrays, _eager_python, _promoted_or_raise, while_loop)
from xjit._src.traceback_util import api_boundary

def _read_row(x, i):
    """``x[i]`` for a traced ``i`` (a dynamic_slice of one row)."""
    if ops.shape_of(x)[0] == 0:  # a zero-length scan: the body never runs
        return shapes.full(ops.shape_of(x)[1:], 0, ops.dtype_of(x))
    return slicing.dynamic_index_in_dim(x, i, 0, keepdims=False)


def _write_row(buf, i, y):
    """``buf`` with row ``i`` replaced by ``y`` (a dynamic_update_slice, done in
    place by the cpu while: the body may write over its own ys buffer)."""
    if ops.shape_of(buf)[0] == 0:  # a zero-length scan: the body never runs
        return buf
    return slicing.dynamic_update_index_in_dim(buf, y, i, 0)


def _check_leading(xs_leaves, length):
    lengths = set()
    for x in xs_leaves:
        if len(ops.shape_of(x)) == 0:
            raise ValueError(f"scan got value with no leading axis to scan over: {x}.")
        lengths.add(ops.shape_of(x)[0])
    if length is not None:
        try:
            length = int(length)
        except TypeError:
            raise TypeError("scan: length must be a concrete integer") from None
        if lengths and lengths != {length}:
            raise ValueError(f"scan got `length` argument of {length} which disagrees with "
                             f"leading axis sizes {sorted(lengths)}.")
        return length
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    if len(lengths) > 1:
        raise ValueError(f"scan got values with different leading axis sizes: "
                         f"{', '.join(str(n) for n in sorted(lengths))}.")
    return lengths.pop()


def _pair(out):
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError("scan body output must be a pair, got "
                        f"{_xjit.tree_flatten(out)[1]}.")
    return out


@api_boundary
def scan(f: Callable, init, xs=None, length=None, reverse=False, unroll=1,
         _split_transpose=False):
    """JAX's scan: ``carry, y = f(carry, x)`` over the leading axis of ``xs``,
    as one ``while`` in the graph (``unroll`` only affects speed in JAX; it
    is accepted and the loop is not unrolled).

    Example:
        >>> scan(lambda c, x: (c + x, c * 2), 0, np.arange(3, dtype=np.int32))[1]
        Array([0, 0, 2], dtype=int32)
    """
    if not callable(f):
        raise TypeError("scan: f argument should be callable.")
    if isinstance(unroll, bool):
        unroll = max(1, int(unroll))
    if not isinstance(unroll, int) or unroll < 0:
        raise TypeError(f"scan: unroll must be a bool or a non-negative int, got {unroll!r}")
    xs_leaves, xs_tree = _xjit.tree_flatten(xs)
    xs_leaves = [x if isinstance(x, (ops.Array, ops.Tracer)) else ops.as_operand(x)
                 for x in xs_leaves]
    n = _check_leading(xs_leaves, length)
    if _eager_python():  # disable_jit: a Python loop, as JAX
        carry, ys = init, []
        for step in (range(n - 1, -1, -1) if reverse else range(n)):
            x = xs_tree.unflatten([shapes.index_in_dim(x, step, 0, keepdims=False)
                                   for x in xs_leaves])
            carry, y = _pair(f(carry, x))
            ys.append(y)
        if reverse:
            ys.reverse()
        if not ys:
            raise ValueError("zero-length scan is not supported in disable_jit() mode because "
                             "the output type is unknown.")
        y_leaves = [_xjit.tree_flatten(y)[0] for y in ys]
        stacked = [shapes.concatenate([shapes.expand_dims(ops.as_operand(s[j]), (0,))
                                       for s in y_leaves], 0)
                   for j in range(len(y_leaves[0]))]
        return _as_arrays(carry), _xjit.tree_flatten(ys[0])[1].unflatten(stacked)

    def x_at(i):
        return xs_tree.unflatten([_read_row(x, i) for x in xs_leaves])

    # Probe f once for the output types (and JAX's carry checks and weak-type widening).
    for attempt in range(2):
        c_leaves, c_tree, c_avals = regions_mod.operand_leaves(init, "scan")
        x_avals = [ops.shape_of(x)[1:] for x in xs_leaves]
        from xjit._src.core import ShapedArray
        probe_avals = c_avals + [ShapedArray(s, ops.dtype_of(x), False)
                                 for s, x in zip(x_avals, xs_leaves)]
        nc = len(c_leaves)

        def probe(*vals):
            return _pair(f(c_tree.unflatten(list(vals[:nc])),
                           xs_tree.unflatten(list(vals[nc:]))))
        (traced,), _ = regions_mod.trace_regions("scan_probe", [probe], probe_avals)
        out = traced.out_tree.unflatten(traced.out_leaves)
        promoted = _promoted_or_raise("scan body", f, 0, init, out[0],
                                      allow_promotion=attempt == 0)
        if promoted is None:
            break
        init = promoted
    y_tree = _xjit.tree_flatten(out[1])[1]
    n_y = len(traced.out_leaves) - nc
    y_avals = traced.out_avals[nc:]
    ys_init = [regions_mod.zeros(a, (n,) + tuple(a.shape)) for a in y_avals]

    if n == 0:  # nothing to read a row of: f was traced (checked) once, as JAX does
        return c_tree.unflatten(list(c_leaves)), y_tree.unflatten(list(ys_init))

    def body(state):
        i, carry, ys = state
        idx = (n - 1) - i if reverse else i
        new_carry, y = _pair(f(c_tree.unflatten(list(carry)), x_at(idx)))
        y_leaves = _xjit.tree_flatten(y)[0]
        c_out = _xjit.tree_flatten(new_carry)[0]
        return (i + np.int32(1), c_out, [_write_row(b, idx, v) for b, v in zip(ys, y_leaves)])

    # The user's leaves, not their numpy copies: Python scalars stay weakly typed.
    init_state = (np.int32(0), _xjit.tree_flatten(init)[0], ys_init)
    _, carry_leaves, ys = while_loop(lambda s: ew.lt(s[0], np.int32(n)), body, init_state)
    carry = c_tree.unflatten(list(carry_leaves))
    assert len(ys) == n_y
    return carry, y_tree.unflatten(list(ys))


@api_boundary
def map(f: Callable, xs, *, batch_size: int | None = None):
    """``stack([f(x) for x in xs])`` over the leading axis, as a ``scan``;
    with ``batch_size``, each step applies ``vmap(f)`` to that many rows.

    Example:
        >>> map(lambda x: x * 2, np.arange(3, dtype=np.float32))
        Array([0., 2., 4.], dtype=float32)
    """
    if batch_size is not None:
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"map: batch_size must be a positive int, got {batch_size!r}")
        from xjit._src.api_transforms import vmap
        leaves, tree = _xjit.tree_flatten(xs)
        if not leaves:
            raise ValueError("map: xs must have at least one leaf")
        n = _check_leading(leaves, None)
        num_batches, rest = divmod(n, batch_size)
        main = [shapes.reshape(shapes.slice_in_dim(x, 0, num_batches * batch_size, axis=0),
                               (num_batches, batch_size) + tuple(ops.shape_of(x)[1:]))
                for x in leaves]
        outs = []
        if num_batches:
            _, ys = scan(lambda _, x: ((), vmap(f)(x)), (), tree.unflatten(main))
            y_leaves, y_tree = _xjit.tree_flatten(ys)
            outs.append((y_tree, [shapes.reshape(y, (num_batches * batch_size,)
                                                 + tuple(ops.shape_of(y)[2:]))
                                  for y in y_leaves]))
        if rest:
            tail = tree.unflatten([shapes.slice_in_dim(x, num_batches * batch_size, n, axis=0)
                                   for x in leaves])
            r_leaves, r_tree = _xjit.tree_flatten(vmap(f)(tail))
            outs.append((r_tree, r_leaves))
        if len(outs) == 1:
            return outs[0][0].unflatten(outs[0][1])
        return outs[0][0].unflatten([shapes.concatenate([a, b], 0)
                                     for a, b in zip(outs[0][1], outs[1][1])])
    _, ys = scan(lambda _, x: ((), f(x)), (), xs)
    return ys


def _interleave(a, b, axis: int):
    """Rows of ``a`` and ``b`` alternating along ``axis`` (a first)."""
    na, nb = ops.shape_of(a)[axis], ops.shape_of(b)[axis]
    ndim = len(ops.shape_of(a))
    a_pad = [(0, 0, 0)] * ndim
    b_pad = [(0, 0, 0)] * ndim
    a_pad[axis] = (0, 1 if na == nb else 0, 1)
    b_pad[axis] = (1, 0 if na == nb else 1, 1)
    zero = np.zeros((), ops.dtype_of(a))
    op = ew.bitwise_or if ops.dtype_of(a) == np.bool_ else ew.add
    return op(shapes.pad(a, zero, a_pad), shapes.pad(b, zero, b_pad))


@api_boundary
def associative_scan(fn: Callable, elems, reverse: bool = False, axis: int = 0):
    """Inclusive scan of the associative ``fn`` along ``axis`` (JAX's log-step
    algorithm: O(log n) rounds of strided slices, no loop).

    Example:
        >>> associative_scan(lambda a, b: a + b, np.arange(1, 5, dtype=np.int32))
        Array([ 1,  3,  6, 10], dtype=int32)
    """
    if not callable(fn):
        raise TypeError("associative_scan: fn argument should be callable.")
    leaves, tree = _xjit.tree_flatten(elems)
    if not leaves:
        raise ValueError("associative_scan: elems must have at least one leaf")
    leaves = [x if isinstance(x, (ops.Array, ops.Tracer)) else ops.as_operand(x)
              for x in leaves]
    ndim = len(ops.shape_of(leaves[0]))
    if not -ndim <= axis < ndim:
        raise ValueError(f"associative_scan: axis {axis} is out of bounds for rank {ndim}")
    axis %= ndim
    n = ops.shape_of(leaves[0])[axis]
    if any(ops.shape_of(x)[axis] != n for x in leaves):
        raise ValueError(f"Array inputs to associative_scan must have the same first "
                         f"dimension. (saw: {[ops.shape_of(x) for x in leaves]})")
    if reverse:
        leaves = [shapes.rev(x, (axis,)) for x in leaves]

    def combine(a, b):
        out = fn(tree.unflatten(a), tree.unflatten(b))
        out_leaves, out_tree = _xjit.tree_flatten(out)
        if out_tree != tree:
            raise ValueError(f"associative_scan: fn must return the structure of its inputs "
                             f"{tree}, got {out_tree}")
        return out_leaves

    def sl(x, start, stop=None, stride=1):
        size = ops.shape_of(x)[axis]
        stop = size if stop is None else (stop if stop >= 0 else size + stop)
        return shapes.slice_in_dim(x, start, stop, stride=stride, axis=axis)

    def rec(xs):
        size = ops.shape_of(xs[0])[axis]
        if size < 2:
            return xs
        reduced = combine([sl(x, 0, -1, 2) for x in xs], [sl(x, 1, None, 2) for x in xs])
        odd = rec(reduced)
        if size % 2 == 0:
            even = combine([sl(e, 0, -1) for e in odd], [sl(x, 2, None, 2) for x in xs])
        else:
            even = combine(odd, [sl(x, 2, None, 2) for x in xs])
        even = [shapes.concatenate([sl(x, 0, 1), e], axis) for x, e in zip(xs, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = rec(leaves)
    if reverse:
        out = [shapes.rev(x, (axis,)) for x in out]
    return tree.unflatten(out)


def _checked_fori_carry(body_fun, lower, upper, init_val):
    """``init_val``, widened where the body widens a weakly typed leaf; JAX's
    TypeError naming fori_loop's body when the body changes the carry."""
    i_aval = core.ShapedArray((), dtypes.result_type(lower, upper),
                              ops.is_weak(lower) and ops.is_weak(upper))
    for attempt in range(2):
        leaves, tree, avals = regions_mod.operand_leaves(init_val, "fori_loop")
        probe = lambda i, *xs: body_fun(i, tree.unflatten(list(xs)))  # noqa: E731
        (traced,), _ = regions_mod.trace_regions("fori_probe", [probe], [i_aval] + avals)
        out = traced.out_tree.unflatten(traced.out_leaves)
        promoted = _promoted_or_raise("fori_loop body", body_fun, 1, init_val, out,
                                      allow_promotion=attempt == 0)
        if promoted is None:
            return init_val
        init_val = promoted
    return init_val


def _static_int(x):
    if isinstance(x, core.Tracer) and x._concrete is None:
        return None
    try:
        return int(np.asarray(x if not isinstance(x, core.Tracer)
                              else core.concrete_value_of(x)))
    except Exception:  # noqa: BLE001 - a value without a concrete integer
        return None


@api_boundary
def fori_loop(lower, upper, body_fun: Callable, init_val, *, unroll=None):
    """``for i in range(lower, upper): val = body_fun(i, val)``: a ``while`` in
    the graph; with static bounds a ``scan`` of ``upper - lower`` steps, as JAX.

    Example:
        >>> lax.fori_loop(0, 4, lambda i, s: s + i, 0)
        Array(6, dtype=int32, weak_type=True)
    """
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    for bound in (lower, upper):
        if (not isinstance(bound, _ARRAYLIKE) or ops.shape_of(bound) != ()
                or ops.kind(ops.dtype_of(bound)) not in "iu"):
            raise TypeError("fori_loop lower and upper arguments must be integer scalars")
    lo, hi = _static_int(lower), _static_int(upper)
    init_val = _checked_fori_carry(body_fun, lower, upper, init_val)
    if lo is not None and hi is not None:
        dt = dtypes.result_type(lower, upper)
        weak = ops.is_weak(lower) and ops.is_weak(upper)
        start = lo if weak else np.asarray(lo, dt)
        one = 1 if weak else np.asarray(1, dt)

        def step(carry, _):
            i, x = carry
            return (i + one, body_fun(i, x)), None
        (_, result), _ = scan(step, (start, init_val), None, length=max(hi - lo, 0),
                                    unroll=1 if unroll is None else unroll)
        return result
    dt = dtypes.result_type(lower, upper)
    weak = ops.is_weak(lower) and ops.is_weak(upper)
    lower = ew._convert_element_type(lower, dt, weak)
    upper = ew._convert_element_type(upper, dt, weak)

    one = 1 if weak else np.asarray(1, dt)

    def body(carry):
        i, x = carry
        return i + one, body_fun(i, x)

    # upper is captured by the condition, not carried: nothing to pass on per step.
    _, result = while_loop(lambda c: ew.lt(c[0], upper), body, (lower, init_val))
    return result
