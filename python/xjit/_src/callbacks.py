"""Host callbacks: ``xjit.pure_callback``, ``xjit.experimental.io_callback``,
``xjit.debug.callback`` and ``xjit.debug.print``.

Inside a trace a callback is a ``custom_call @xjit_python_callback`` whose
string backend_config names the Python function in this module's registry
(``"<id>:<vmap_method>"``). The target (``csrc/xjit/python/callback_target.cc``)
runs on the device's thread: it takes the GIL, calls ``_invoke`` with the
operands as numpy arrays, which the callback receives as xjit Arrays (as JAX
passes jax Arrays), and copies the results back. Callbacks with side
effects (io_callback, debug) are ``has_side_effect`` calls: never removed
or merged, run in program order (the device runs a program's ops in order,
so ``ordered=True`` holds whether or not it is asked for).

Under ``vmap`` the batching rule (``transforms/callback_rules.cc``) appends
one level per vmap to the config (``/<kind><size>:<mask>``): ``expand_dims``,
``broadcast_all`` and ``legacy_vectorized`` are done in the graph (the
callback is called once with batched arrays); ``sequential`` (and debug
callbacks, which JAX unrolls) is done here, at run time: ``_invoke`` loops
over the level's axis and stacks the results.

Outside any trace a callback simply calls the function.

Example:
    >>> import numpy as np, xjit
    >>> f = xjit.jit(lambda x: xjit.pure_callback(
    ...     lambda a: np.sin(a), xjit.ShapeDtypeStruct((2,), np.float32), x))
    >>> f(np.zeros(2, np.float32))
    Array([0., 0.], dtype=float32)
"""
from __future__ import annotations

import itertools
import threading
from typing import Callable

import numpy as np

from xjit import _xjit
from xjit._src import core, dispatch
from xjit._src.lax import operands as ops
from xjit._src.traceback_util import api_boundary

TARGET = "xjit_python_callback"
VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                "legacy_vectorized", None)


class _Entry:
    """A registered callback: the flat function and its flat result types."""
    __slots__ = ("fn", "result_avals", "kind")

    def __init__(self, fn, result_avals, kind):
        self.fn = fn                    # flat numpy args -> flat outputs
        self.result_avals = result_avals  # [(shape, dtype)]
        self.kind = kind                # "pure_callback", "io_callback", "debug_callback"


_registry: dict[int, _Entry] = {}
_ids = itertools.count(1)
_lock = threading.Lock()


def _register(entry: _Entry) -> int:
    with _lock:
        i = next(_ids)
        _registry[i] = entry
    return i


# ---------------------------------------------------------------- run time

def _parse_levels(config: str):
    """(id, vmap_method, levels): levels inner first, each (kind, size, mask)."""
    head, *levels = config.split("/")
    ident, method = head.split(":", 1)
    parsed = []
    for lv in levels:
        size, mask = lv[1:].split(":")
        parsed.append((lv[0], int(size), [c == "1" for c in mask]))
    return int(ident), method, parsed


def _check_results(entry: _Entry, out, results: list) -> list:
    """The callback's outputs as arrays of ``results`` ((shape, dtype) each: the
    declared types, batched by the vectorized vmap levels)."""
    leaves = _xjit.tree_flatten(out)[0] if out is not None else []
    if len(leaves) != len(results):
        raise RuntimeError(f"{entry.kind}: the callback returned {len(leaves)} values, "
                           f"result_shape_dtypes has {len(results)}")
    arrays = []
    for i, (leaf, (shape, dtype)) in enumerate(zip(leaves, results)):
        a = np.asarray(leaf)
        if a.shape != shape:
            raise RuntimeError(f"Incorrect output shape for return value {i}: "
                               f"Expected: {shape}, Actual: {a.shape}")
        if a.dtype != dtype:
            raise RuntimeError(f"Incorrect output dtype for return value {i}: "
                               f"Expected: {dtype}, Actual: {a.dtype}")
        arrays.append(np.asarray(a, order="C"))  # keeps 0-d arrays 0-d
    return arrays


def _to_arrays(host: list) -> list:
    """The callback's arguments as xjit Arrays on the default device, as JAX
    (since 0.4.27) passes jax Arrays; ``np.asarray`` gives numpy back."""
    device = dispatch.default_device()
    return [_xjit.device_put(np.asarray(a), device, False) for a in host]


def _run_levels(entry: _Entry, args: list, levels: list, results: list) -> list:
    """Undoes the sequential vmap levels (the outermost first): loops over
    their axis, calls the callback per element and stacks the results.
    ``results``: the (shape, dtype) of each result at this depth."""
    seq = [j for j, lv in enumerate(levels) if lv[0] == "S"]
    if not seq:
        return _check_results(entry, entry.fn(*_to_arrays(args)), results)
    j = seq[-1]
    _, size, mask = levels[j]
    outer = levels[j + 1:]
    # Every later (outer) level that includes an operand put its axis in front.
    axes = [sum(1 for lv in outer if lv[2][k]) for k in range(len(args))]
    raxis = len(outer)
    rest = levels[:j] + outer
    inner_results = [(shape[:raxis] + shape[raxis + 1:], dt) for shape, dt in results]
    per_element = []
    for i in range(size):
        sliced = [np.take(a, i, axis=axes[k]) if mask[k] else a for k, a in enumerate(args)]
        per_element.append(_run_levels(entry, sliced, rest, inner_results))
    if size == 0:
        return [np.zeros(shape, dt) for shape, dt in results]
    return [np.stack([r[n] for r in per_element], axis=raxis) for n in range(len(results))]


def _invoke(config: str, args: list, result_types: list) -> list:
    """Called by the custom_call target with the GIL held."""
    ident, _, levels = _parse_levels(config)
    entry = _registry.get(ident)
    if entry is None:
        raise RuntimeError(f"host callback {ident} is not registered (its program outlived it)")
    results = [(tuple(shape), np.dtype(dt)) for dt, shape in result_types]
    return _run_levels(entry, list(args), levels, results)


_xjit.set_python_callback_invoker(_invoke)


# ---------------------------------------------------------------- trace time

def _result_avals(name: str, result_shape_dtypes) -> tuple:
    leaves, treedef = _xjit.tree_flatten(result_shape_dtypes)
    avals = []
    for leaf in leaves:
        if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            raise ValueError(f"{name}: result_shape_dtypes must be a pytree of objects with "
                             f".shape and .dtype (xjit.ShapeDtypeStruct), got {leaf!r}")
        avals.append((tuple(int(d) for d in leaf.shape), dispatch.canonicalize_dtype(leaf.dtype)))
    return avals, treedef


def _flat_fn(callback: Callable, in_treedef) -> Callable:
    def fn(*flat):
        args, kwargs = in_treedef.unflatten(list(flat))
        return callback(*args, **kwargs)
    return fn


def _call(kind: str, callback, result_shape_dtypes, args, kwargs, *, side_effect: bool,
          vmap_method):
    if not callable(callback):
        raise TypeError(f"{kind}: callback must be callable, got {callback!r}")
    if vmap_method not in VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods {list(VMAP_METHODS)}, "
                         f"but got: {vmap_method}")
    avals, out_treedef = _result_avals(kind, result_shape_dtypes)
    leaves, in_treedef = _xjit.tree_flatten((tuple(args), dict(kwargs)))
    for i, x in enumerate(leaves):
        ops.check_arraylike(f"{kind} argument {i}", x)
    entry = _Entry(_flat_fn(callback, in_treedef), avals, kind)
    trace = core.current_trace()
    if trace is None:  # eager: call it now
        out = _check_results(entry, entry.fn(*_to_arrays(leaves)), avals)
        arrays = [_xjit.device_put(a, dispatch.default_device(), False) for a in out]
        return out_treedef.unflatten(arrays)
    if side_effect:
        trace.mark_effects()
    ident = _register(entry)
    from xjit._src.lax.custom_call import custom_call  # noqa: PLC0415 (lead's module)
    config = f"{ident}:{vmap_method or 'none'}"
    outs = custom_call(TARGET, [ops.as_operand(x) for x in leaves],
                       [core.ShapeDtypeStruct(s, d) for s, d in avals],
                       backend_config=config, has_side_effect=side_effect)
    return out_treedef.unflatten(list(outs))


@api_boundary
def pure_callback(callback: Callable, result_shape_dtypes, *args, sharding=None,
                  vmap_method: str | None = None, **kwargs):
    """Calls the Python function ``callback`` on the host with xjit Arrays and
    returns its results as arrays of ``result_shape_dtypes`` (JAX's
    ``jax.pure_callback``). A pure call: removed when unused, merged with an
    equal one; under ``vmap`` as ``vmap_method`` says; no derivative (wrap it
    in ``custom_jvp``)."""
    del sharding
    return _call("pure_callback", callback, result_shape_dtypes, args, kwargs,
                 side_effect=False, vmap_method=vmap_method)


@api_boundary
def io_callback(callback: Callable, result_shape_dtypes, *args, sharding=None,
                ordered: bool = False, **kwargs):
    """Like ``pure_callback`` for a function with side effects (JAX's
    ``jax.experimental.io_callback``): always called, in program order."""
    del sharding, ordered  # a device runs a program's ops in order
    return _call("io_callback", callback, result_shape_dtypes, args, kwargs,
                 side_effect=True, vmap_method="sequential")


@api_boundary
def debug_callback(callback: Callable, *args, ordered: bool = False, partitioned: bool = False,
                   **kwargs) -> None:
    """Calls ``callback(*args, **kwargs)`` on the host for its side effect (JAX's
    ``jax.debug.callback``); under ``vmap`` once per element, under ``grad`` on
    the primal values."""
    del ordered, partitioned

    def run(*a, **k):
        callback(*a, **k)
        return None
    _call("debug_callback", run, None, args, kwargs, side_effect=True, vmap_method="sequential")


@api_boundary
def debug_print(fmt: str, *args, ordered: bool = False, **kwargs) -> None:
    """Prints ``fmt.format(*args, **kwargs)`` with the values the program
    computes (JAX's ``jax.debug.print``)."""
    if not isinstance(fmt, str):
        raise TypeError(f"debug.print: fmt must be a str, got {type(fmt).__name__}")

    def print_values(*a, **k):
        print(fmt.format(*a, **k), flush=True)
    debug_callback(print_values, *args, ordered=ordered, **kwargs)
