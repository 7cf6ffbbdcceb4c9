"""Tracing the regions of the control-flow ops (while, if, case).

Each function is traced once into a computation of the current module
builder (a throwaway one for an eager call). The regions of one op share one
list of captured outer values: every region takes them, in the same order,
as its trailing parameters, and the op takes them as trailing operands
(``docs/architecture.md``, "Control flow").

Example:
    >>> from xjit._src.core import ShapedArray
    >>> regions, captures = trace_regions("f", [lambda x: x + 1], [ShapedArray((), np.float32)])
    >>> regions[0].out_avals
    [ShapedArray(float32[])]
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from xjit import _xjit
from xjit._src import core, dispatch, tracing


class TracedRegion:
    """One traced region: its computation, output tree, leaves and avals."""
    __slots__ = ("trace", "cb", "values", "out_tree", "out_leaves", "out_avals", "computation")

    def __init__(self, trace, cb, values, out_tree, out_leaves, out_avals):
        self.trace = trace
        self.cb = cb
        self.values = values
        self.out_tree = out_tree
        self.out_leaves = out_leaves
        self.out_avals = out_avals
        self.computation = None


def operand_leaves(tree, what: str) -> tuple:
    """(leaves as operands, treedef, avals) of a pytree of array-likes."""
    leaves, treedef = _xjit.tree_flatten(tree)
    avals = []
    for x in leaves:
        try:
            avals.append(tracing.leaf_aval(x))
        except TypeError:
            raise TypeError(f"{what}: value {x!r} of type {type(x)} is not a valid JAX "
                            f"type") from None
    operands = [x if isinstance(x, (core.Tracer, _xjit.Array))
                else dispatch.to_numpy_operand(x, a.dtype) for x, a in zip(leaves, avals)]
    return operands, treedef, avals


def trace_regions(name: str, funs: Sequence[Callable], in_avals: Sequence[core.ShapedArray]):
    """Trace each of ``funs`` on one parameter per aval.

    Returns ``(regions, captures)``: a ``TracedRegion`` per function, each
    finished with the same trailing capture parameters, and the captured
    values (tracers of the enclosing trace), the op's trailing operands.
    """
    parent = core.current_trace()
    mb = parent.mb if parent is not None else _xjit.ModuleBuilder(f"eager_{name}")
    union: list = []
    regions = []
    for k, fun in enumerate(funs):
        base = f"{name}_region{k}"
        cb = mb.computation(base if parent is None else parent.unique_name(base))
        trace = core.Trace(mb, cb, f"region {name}", parent=parent)
        with core.new_trace(trace):
            params = [core.Tracer(trace, cb.parameter(core.dtype_name(a.dtype), a.shape), a)
                      for a in in_avals]
            for x in union:  # the captures of the regions before, in their order
                trace.lift(x)
            out = fun(*params)
            leaves, out_tree = _xjit.tree_flatten(out)
            pairs = [tracing.output_value(trace, leaf) for leaf in leaves]
            avals = []
            for leaf, (_, weak) in zip(leaves, pairs):
                a = tracing.leaf_aval(leaf)
                avals.append(core.ShapedArray(a.shape, a.dtype, weak))
        union = list(trace.captures)
        regions.append(TracedRegion(trace, cb, [v for v, _ in pairs], out_tree, leaves, avals))
    for r in regions:
        for x in union:  # captures of later regions: unused parameters here
            r.trace.lift(x)
        r.computation = r.cb.finish(r.values)
    return regions, union


def bind(op: str, operands: Sequence, regions: Sequence[TracedRegion], weak: Sequence[bool]):
    """Apply ``op`` to ``operands`` with the traced regions; a list of results."""
    if core.current_trace() is None:  # eager: the regions are copied into the op's module
        builders = [lambda mb, c=r.computation: mb.clone_computation(c) for r in regions]
    else:
        builders = [lambda mb, c=r.computation: c for r in regions]
    out = dispatch.bind(op, list(operands), {}, weak_type=list(weak), regions=builders)
    if isinstance(out, list):
        return out
    return [out]


def zeros(aval: core.ShapedArray, shape=None):
    """A numpy zero operand of ``aval``'s dtype (and ``shape``)."""
    return np.zeros(aval.shape if shape is None else shape, aval.dtype)
