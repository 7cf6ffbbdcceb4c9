"""Tracing Python functions into builder computations.

``trace_to_module`` is what ``jit`` does on a cache miss: one parameter per
flattened argument leaf, the function run on tracers, the output leaves made
the computation's results. ``trace_call`` does the same for a jitted function
called while another is traced (a ``call`` of its own computation), and
``trace_region`` for the called computations of ops such as ``reduce``.
Both nest in the current trace: outer tracers they use become captures.

Example:
    >>> traced = trace_to_module(lambda x: x * 2, (np.ones(3, np.float32),), {})
    >>> "stablehlo.multiply" in traced.module.as_text()
    True
"""
from __future__ import annotations

import gc

from typing import Callable, Sequence

import numpy as np

from xjit import _xjit
from xjit._src import core, dispatch

_PY_SCALARS = (bool, int, float, complex)


def leaf_aval(x, describe: Callable[[], str] | None = None) -> core.ShapedArray:
    """The abstract value jit gives argument leaf ``x`` (JAX's signature rules).

    Example:
        >>> leaf_aval(1.0)
        ShapedArray(float32[], weak_type=True)
    """
    if isinstance(x, (_xjit.Array, core.Tracer, core.ShapeDtypeStruct)):
        return core.ShapedArray(x.shape, x.dtype, getattr(x, "weak_type", False))
    if isinstance(x, _PY_SCALARS):
        return core.ShapedArray((), dispatch.python_scalar_dtype(x), not isinstance(x, bool))
    if isinstance(x, (np.ndarray, np.generic)) and x.dtype.name in core.DTYPE_BY_NAME:
        return core.ShapedArray(x.shape, dispatch.canonicalize_dtype(x.dtype), False)
    raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.")


class TracedModule:
    """The result of tracing a function for jit: module plus tree structures."""

    def __init__(self, module, in_treedef, in_avals, out_treedef, out_weak_types):
        self.module = module
        self.in_treedef = in_treedef
        self.in_avals = in_avals
        self.out_treedef = out_treedef
        self.out_weak_types = out_weak_types


def output_value(trace: core.Trace, leaf) -> tuple:
    """(builder value, weak flag) of one output leaf of a traced function."""
    if isinstance(leaf, core.Tracer):
        return dispatch.graph_value(trace, leaf), leaf.aval.weak_type
    if isinstance(leaf, _xjit.Array):
        return trace.constant(leaf), leaf.weak_type
    if isinstance(leaf, _PY_SCALARS):
        return trace.constant(dispatch.to_numpy_operand(leaf)), not isinstance(leaf, bool)
    if isinstance(leaf, (np.ndarray, np.generic)):
        return trace.constant(dispatch.to_numpy_operand(leaf)), False
    raise TypeError(f"Value {leaf!r} of type {type(leaf)} returned from a traced "
                    f"function is not a valid JAX type.")


def _trace_function(trace: core.Trace, fun: Callable, in_treedef, in_avals,
                    rebuild_args: Callable | None, concrete: Sequence | None = None) -> tuple:
    """Run ``fun`` on parameters of ``trace``: (out_treedef, [(value, weak)] per output leaf).

    ``concrete``: per parameter, its concrete value or None (concrete traces only)."""
    cb = trace.cb
    if concrete is None:
        concrete = [None] * len(in_avals)
    with core.new_trace(trace):
        tracers = [core.Tracer(trace, cb.parameter(core.dtype_name(a.dtype), a.shape), a, c)
                   for a, c in zip(in_avals, concrete)]
        args, kwargs = in_treedef.unflatten(tracers)
        if rebuild_args is not None:
            args, kwargs = rebuild_args(args, kwargs)
        out = fun(*args, **kwargs)
        out_leaves, out_treedef = _xjit.tree_flatten(out)
        pairs = [output_value(trace, leaf) for leaf in out_leaves]
    return out_treedef, pairs


def trace_to_module(fun: Callable, dyn_args: Sequence, dyn_kwargs: dict, *,
                    rebuild_args: Callable | None = None, name: str = "main") -> TracedModule:
    """Trace ``fun`` on tracers standing for the leaves of (dyn_args, dyn_kwargs).

    ``rebuild_args(args, kwargs) -> (args, kwargs)`` re-inserts static arguments
    before the call.
    """
    leaves, in_treedef = _xjit.tree_flatten((tuple(dyn_args), dict(dyn_kwargs)))
    in_avals = [leaf_aval(x) for x in leaves]
    mb = _xjit.ModuleBuilder(f"jit_{_sanitize(name)}")
    cb = mb.computation("main")
    trace = core.Trace(mb, cb, f"jit({name})")
    # Tracing makes many small objects that live until it ends; the cycle
    # collector's passes over them (a tenth of a 10,000-op trace) wait
    # until then.
    collecting = gc.isenabled()
    gc.disable()
    try:
        out_treedef, pairs = _trace_function(trace, fun, in_treedef, in_avals, rebuild_args)
    finally:
        if collecting:
            gc.enable()
    module = dispatch.build_module(mb, cb, [v for v, _ in pairs])
    return TracedModule(module, in_treedef, in_avals, out_treedef, [w for _, w in pairs])


def trace_call(fun: Callable, dyn_args: Sequence, dyn_kwargs: dict, *,
               rebuild_args: Callable | None = None, name: str = "fun"):
    """``fun`` applied inside the current trace as a ``call`` of its own computation.

    What a jitted function does when called while another function is traced
    (JAX's pjit inside jit): ``fun`` is traced into a computation of the outer
    module named after it, whose parameters are the argument leaves followed by
    the outer values ``fun`` closes over (its captures); the call's operands
    are the arguments and those captures. Returns ``fun``'s output pytree of
    tracers of the current trace.

    Example:
        >>> def outer(x):
        ...     return trace_call(lambda y: y * x, (x + 1,), {}, name="inner")
        >>> "func.call" in trace_to_module(outer, (np.float32(2),), {}).module.as_text()
        True
    """
    parent = core.current_trace()
    leaves, in_treedef = _xjit.tree_flatten((tuple(dyn_args), dict(dyn_kwargs)))
    in_avals = [leaf_aval(x) for x in leaves]
    cb = parent.mb.computation(parent.unique_name(_sanitize(name)))
    trace = core.Trace(parent.mb, cb, f"jit({name})", parent=parent)
    out_treedef, pairs = _trace_function(trace, fun, in_treedef, in_avals, rebuild_args)
    if not pairs and not trace.has_effects:  # nothing to compute: no call
        return out_treedef.unflatten([])
    if not pairs:
        # Only side effects: the call returns a token nobody reads, and stays
        # because its callee has side effects.
        callee = cb.finish([cb.op("after_all", [], {}, [], "")])
    else:
        callee = cb.finish([v for v, _ in pairs])
    operands = [x if isinstance(x, (core.Tracer, _xjit.Array))
                else dispatch.to_numpy_operand(x, a.dtype) for x, a in zip(leaves, in_avals)]
    out = dispatch.bind("call", operands + trace.captures, {},
                        weak_type=[w for _, w in pairs] or [False], regions=[lambda mb: callee])
    if not pairs:
        return out_treedef.unflatten([])
    return out_treedef.unflatten(out if isinstance(out, list) else [out])


class Region:
    """A traced region: its computation and the outer values it captured (tracers
    of the enclosing trace, the trailing parameters of ``computation``)."""
    __slots__ = ("computation", "captures")

    def __init__(self, computation, captures):
        self.computation = computation
        self.captures = captures


def trace_region(mb, name: str, in_avals: Sequence[core.ShapedArray], fun: Callable,
                 out_dtypes: Sequence[np.dtype], on_capture: Callable | None = None) -> Region:
    """Build computation ``name`` in module builder ``mb`` from ``fun``.

    ``fun`` receives one tracer per aval and returns a pytree whose leaves are
    the results, converted to ``out_dtypes`` when they are Python scalars. The
    region is nested in the current trace (if any): tracers of it or of traces
    enclosing it become captures, unless ``on_capture(tracer)`` raises.
    """
    parent = core.current_trace()
    cb = mb.computation(name if parent is None else parent.unique_name(name))
    trace = core.Trace(mb, cb, f"region {name}", parent=parent, on_capture=on_capture)
    with core.new_trace(trace):
        params = [core.Tracer(trace, cb.parameter(core.dtype_name(a.dtype), a.shape), a) for a in in_avals]
        out = fun(*params)
        leaves, _ = _xjit.tree_flatten(out)
        if len(leaves) != len(out_dtypes):
            raise TypeError(f"{name}: the computation must return {len(out_dtypes)} "
                            f"value(s), got {len(leaves)}")
        values = []
        for leaf, dt in zip(leaves, out_dtypes):
            if isinstance(leaf, _PY_SCALARS):
                leaf = dispatch.to_numpy_operand(leaf, dt)
            if leaf.dtype != dt:
                raise TypeError(f"{name}: the computation returned {np.dtype(leaf.dtype).name}"
                                f", expected {np.dtype(dt).name}")
            values.append(output_value(trace, leaf)[0])
    return Region(cb.finish(values), trace.captures)


def _sanitize(name: str) -> str:
    # ASCII only: the name is a symbol of the printed text (@name), which the parser reads.
    out = "".join(c if (c.isascii() and c.isalnum()) or c == "_" else "_" for c in name)
    return out or "fun"
