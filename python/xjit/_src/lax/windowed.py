"""Windowed reductions in ``xjit.lax``: JAX's ``reduce_window`` (variadic, any
traced body, with ``lax.add``/``lax.max``/``lax.min`` and their identities as
the monoid reducers JAX recognises), the helpers ``reduce_window_sum``,
``reduce_window_max``, ``reduce_window_min`` (JAX's ``_reduce_window_*``), and
``select_and_scatter_add`` (the max-pool gradient), on the StableHLO
``reduce_window`` and ``select_and_scatter`` ops.

Example:
    >>> x = np.arange(16, dtype=np.float32).reshape(4, 4)
    >>> lax.reduce_window(x, -np.inf, lax.max, (2, 2), (2, 2), "VALID")
    Array([[ 5.,  7.],
           [13., 15.]], dtype=float32)
"""
from __future__ import annotations

import operator
from typing import Callable, Sequence

import numpy as np

from xjit import _xjit
from xjit._src import core, dispatch, dtypes, tracing
from xjit._src.lax import elementwise as ew
from xjit._src.lax import operands as ops
from xjit._src.lax.convolution import padtype_to_pads
from xjit._src.traceback_util import api_boundary

_region_counter = [0]


def _region_name(kind: str) -> str:
    _region_counter[0] += 1
    return f"{kind}_{_region_counter[0]}"


def _refuse_capture(x) -> None:
    raise NotImplementedError(
        f"reduce_window computations can't close over Tracers: got {x!r} from an enclosing "
        f"trace. Pass it as an operand instead, or use a value known before tracing.")


def _window_tuple(name: str, what: str, values, n: int, default: int | None = None) -> tuple:
    if values is None:
        if default is None:
            raise TypeError(f"{name}: {what} is required")
        return (default,) * n
    try:
        out = tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"{name}: {what} must be a sequence of integers, got {values!r}") from None
    if len(out) != n:
        raise ValueError(f"{name}: {what} must have {n} entries (one per operand dimension), "
                         f"got {out}")
    if any(v <= 0 for v in out):
        raise ValueError(f"{name}: {what} must be positive, got {out}")
    return out


def _padding(name, shape, window_dimensions, window_strides, padding, base_dilation,
             window_dilation) -> tuple:
    if isinstance(padding, str):
        # JAX pads for the dilated base and window when the padding is a string.
        base = [0 if d == 0 else (d - 1) * b + 1 for d, b in zip(shape, base_dilation)]
        win = [0 if w == 0 else (w - 1) * r + 1 for w, r in zip(window_dimensions,
                                                                  window_dilation)]
        return tuple(tuple(p) for p in padtype_to_pads(base, win, window_strides, padding))
    try:
        pads = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: padding must be a string or a sequence of (low, high) "
                        f"pairs, got {padding!r}") from None
    if len(pads) != len(shape):
        raise ValueError(f"{name}: padding must have {len(shape)} (low, high) pairs, got "
                         f"{pads}")
    return pads


def _window_attrs(name, shape, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation) -> dict:
    n = len(shape)
    wd = _window_tuple(name, "window_dimensions", window_dimensions, n)
    ws = _window_tuple(name, "window_strides", window_strides, n)
    bd = _window_tuple(name, "base_dilation", base_dilation, n, 1)
    wdl = _window_tuple(name, "window_dilation", window_dilation, n, 1)
    pads = _padding(name, shape, wd, ws, padding, bd, wdl)
    attrs = {"window_dimensions": wd, "window_strides": ws, "base_dilations": bd,
             "window_dilations": wdl}
    if n:
        attrs["padding"] = pads
    return attrs


def _bind_reduce_window(name, xs, inits, body, attrs, region_key, weak):
    dtypes = [np.dtype(x.dtype) if hasattr(x, "dtype") else ops.dtype_of(x) for x in xs]

    def build_region(mb):
        avals = [core.ShapedArray((), d) for d in dtypes] * 2
        return tracing.trace_region(mb, _region_name("window_body"), avals, body, dtypes,
                                    on_capture=_refuse_capture).computation

    out = dispatch.bind("reduce_window", list(xs) + list(inits), attrs, weak_type=weak,
                        regions=[build_region], region_key=region_key)
    return out if isinstance(out, list) else [out]


_MONOID_BODIES = {"add": ew.add, "max": ew.max, "min": ew.min}


def _monoid_identity(monoid: str, dt) -> np.ndarray:
    k = ops.kind(dt)
    if monoid == "add":
        return np.zeros((), dt)
    lowest = monoid == "max"
    if k == "b":
        return np.array(not lowest)
    if k in "fc":
        return dtypes.extreme_value(dt, lowest)
    info = dtypes.iinfo(dt)
    return np.array(info.min if lowest else info.max).astype(dt)


def _monoid_window(monoid: str, operand, window_dimensions, window_strides, padding,
                   base_dilation=None, window_dilation=None):
    name = f"reduce_window_{monoid}"
    ops.check_arraylike(name, operand)
    x = ops.as_operand(operand)
    shape = ops.shape_of(x)
    attrs = _window_attrs(name, shape, window_dimensions, window_strides, padding,
                          base_dilation, window_dilation)
    dt = ops.dtype_of(x)
    init = _monoid_identity(monoid, dt)
    body = _MONOID_BODIES[monoid]
    return _bind_reduce_window(name, [x], [init], body, attrs, (monoid,),
                               [ops.is_weak(operand)])[0]


@api_boundary
def reduce_window_sum(operand, window_dimensions, window_strides, padding,
                      base_dilation=None, window_dilation=None):
    """Sum over each window (JAX's ``_reduce_window_sum``)."""
    return _monoid_window("add", operand, window_dimensions, window_strides, padding,
                          base_dilation, window_dilation)


@api_boundary
def reduce_window_max(operand, window_dimensions, window_strides, padding,
                      base_dilation=None, window_dilation=None):
    """Maximum over each window (JAX's ``_reduce_window_max``)."""
    return _monoid_window("max", operand, window_dimensions, window_strides, padding,
                          base_dilation, window_dilation)


@api_boundary
def reduce_window_min(operand, window_dimensions, window_strides, padding,
                      base_dilation=None, window_dilation=None):
    """Minimum over each window (JAX's ``_reduce_window_min``)."""
    return _monoid_window("min", operand, window_dimensions, window_strides, padding,
                          base_dilation, window_dilation)


def _monoid_of(computation, flat_inits, dt) -> str | None:
    monoid = {ew.add: "add", ew.max: "max", ew.min: "min"}.get(computation)
    if monoid is None:
        return None
    init = flat_inits[0]
    if isinstance(init, ops.Tracer):
        return None
    try:
        value = np.asarray(init)
    except (TypeError, ValueError):
        return None
    ident = _monoid_identity(monoid, dt)
    if value.shape != () or not bool(value == ident):
        return None
    return monoid


@api_boundary
def reduce_window(operand, init_value, computation: Callable, window_dimensions: Sequence[int],
                  window_strides: Sequence[int], padding, base_dilation=None,
                  window_dilation=None):
    """Reduce each window of ``operand`` with ``computation`` (JAX's API).

    ``operand``/``init_value`` are an array and a scalar or matching pytrees of
    them (variadic); ``computation(acc, x)`` is traced once into the op's body.
    ``padding`` is "SAME"/"VALID"/"SAME_LOWER" or (low, high) pairs; padded
    positions and base-dilation holes hold ``init_value``.
    """
    flat_ops, tree = _xjit.tree_flatten(operand)
    flat_inits, init_tree = _xjit.tree_flatten(init_value)
    if tree != init_tree:
        raise ValueError(f"Operands must have the same tree structure as init_values: {tree} "
                         f"vs. {init_tree}")
    if not flat_ops:
        raise TypeError("reduce_window requires at least one operand")
    ops.check_arraylike("reduce_window", *flat_ops, *flat_inits)
    shape = ops.shape_of(flat_ops[0])
    if len(flat_ops) == 1:
        dt = ops.dtype_of(flat_ops[0])
        monoid = _monoid_of(computation, flat_inits, dt)
        if monoid is not None:
            return tree.unflatten([_monoid_window(monoid, flat_ops[0], window_dimensions,
                                                  window_strides, padding, base_dilation,
                                                  window_dilation)])
    attrs = _window_attrs("reduce_window", shape, window_dimensions, window_strides, padding,
                          base_dilation, window_dilation)
    xs, inits = [], []
    for x, init in zip(flat_ops, flat_inits):
        if ops.shape_of(x) != shape:
            raise TypeError(f"reduce_window: operands must have the same shape, got "
                            f"{[ops.shape_of(o) for o in flat_ops]}")
        if ops.shape_of(init):
            raise TypeError(f"reduce_window: init_values must be scalars, got shape "
                            f"{ops.shape_of(init)}")
        xdt, idt = ops.dtype_of(x), ops.dtype_of(init)
        if xdt != idt and not (ops.is_weak(init) and not ops.is_weak(x)):
            raise TypeError(f"reduce_window: operand dtype {xdt.name} and init_value dtype "
                            f"{idt.name} must match")
        xs.append(ops.as_operand(x, xdt))
        inits.append(ops.as_operand(init, xdt))
    n = len(xs)

    def body(*params):
        acc = tree.unflatten(list(params[:n]))
        val = tree.unflatten(list(params[n:]))
        out = computation(acc, val)
        flat_out, out_tree = _xjit.tree_flatten(out)
        if out_tree != tree:
            raise TypeError(f"reduce_window: computation must return the structure of the "
                            f"operands {tree}, got {out_tree}")
        return flat_out if n > 1 else flat_out[0]

    weak = [ops.is_weak(x) and ops.is_weak(i) for x, i in zip(flat_ops, flat_inits)]
    return tree.unflatten(_bind_reduce_window("reduce_window", xs, inits, body, attrs, None,
                                              weak))


def _select_region(mb, dt, direction: str):
    def select(a, b):
        ctype = {"f": "FLOAT", "i": "SIGNED", "u": "UNSIGNED", "b": "UNSIGNED"}[ops.kind(dt)]
        return dispatch.bind("compare", [a, b], {"comparison_direction": direction,
                                                 "compare_type": ctype})
    avals = [core.ShapedArray((), dt)] * 2
    return tracing.trace_region(mb, _region_name("select"), avals, select,
                                [np.dtype(np.bool_)], on_capture=_refuse_capture).computation


def _add_region(mb, dt):
    avals = [core.ShapedArray((), dt)] * 2
    return tracing.trace_region(mb, _region_name("scatter"), avals, ew.add, [dt],
                                on_capture=_refuse_capture).computation


@api_boundary
def select_and_scatter_add(source, operand, select_prim: str, window_dimensions,
                           window_strides, padding):
    """Adds each ``source`` element onto the position its window of ``operand``
    selects (``select_prim`` "ge" for max pooling, "le" for min pooling); JAX's
    ``_select_and_scatter_add``. ``padding`` is (low, high) pairs."""
    name = "select_and_scatter_add"
    ops.check_arraylike(name, source, operand)
    directions = {"ge": "GE", "gt": "GT", "le": "LE", "lt": "LT"}
    if select_prim not in directions:
        raise ValueError(f"{name}: select_prim must be one of {sorted(directions)}, got "
                         f"{select_prim!r}")
    x = ops.as_operand(operand)
    dt = ops.dtype_of(x)
    shape = ops.shape_of(x)
    n = len(shape)
    wd = _window_tuple(name, "window_dimensions", window_dimensions, n)
    ws = _window_tuple(name, "window_strides", window_strides, n)
    pads = _padding(name, shape, wd, ws, padding, (1,) * n, (1,) * n)
    attrs = {"window_dimensions": wd, "window_strides": ws}
    if n:
        attrs["padding"] = pads
    direction = directions[select_prim]
    regions = [lambda mb: _select_region(mb, dt, direction), lambda mb: _add_region(mb, dt)]
    return dispatch.bind("select_and_scatter",
                         [x, ops.as_operand(source, dt), np.zeros((), dt)], attrs,
                         weak_type=ops.is_weak(operand), regions=regions,
                         region_key=("add", direction))
