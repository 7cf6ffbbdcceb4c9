"""``lax.composite`` (the StableHLO op), as JAX's: a named operation whose
meaning is its decomposition function. xjit traces the decomposition into a
function of the module and emits ``stablehlo.composite`` calling it; every
backend runs the decomposition (a compiler that knows the name may do better).

Example:
    >>> tangent = lax.composite(lambda x: lax.sin(x) / lax.cos(x), name="my.tangent")
    >>> tangent(np.float32(0.5))
    Array(0.5463025, dtype=float32)
"""
from __future__ import annotations

import functools
import re
from typing import Callable

import numpy as np

from xjit import _xjit
from xjit._src import api_transforms, core, dispatch, tracing
from xjit._src.errors import UnexpectedTracerError
from xjit._src.lax.custom_call import format_attribute_dictionary
from xjit._src.traceback_util import api_boundary

_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+$")


def composite(decomposition: Callable, name: str, version: int = 0):
    """Returns a function that applies ``decomposition`` as the composite op
    ``name`` (namespaced, such as ``"my.tangent"``). Positional arguments are
    its inputs; keyword arguments are static attributes, passed on to
    ``decomposition`` and recorded in ``composite_attributes`` (``None``
    values are left out of the attributes)."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"composite: name must be namespaced like 'my.op' "
                         f"([a-zA-Z][a-zA-Z0-9_]*(.[a-zA-Z0-9_$]+)+), got {name!r}")
    if isinstance(version, bool) or not isinstance(version, (int, np.integer)) or version < 0:
        raise ValueError(f"composite: version must be a non-negative int, got {version!r}")

    @functools.wraps(decomposition)
    @api_boundary
    def apply(*args, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, core.Tracer):
                raise UnexpectedTracerError(
                    f"composite '{name}': attribute {k!r} is a traced value; values not known "
                    "when compiling must be passed as positional arguments")
        attributes = {k: v for k, v in kwargs.items() if v is not None}
        text = format_attribute_dictionary(attributes) if attributes else None
        leaves, treedef = _xjit.tree_flatten((tuple(args), {}))
        avals = [tracing.leaf_aval(x) for x in leaves]
        traced = api_transforms._trace(lambda *a: decomposition(*a, **kwargs), avals, treedef,
                                       api_transforms._fun_name(decomposition),
                                       [api_transforms._operand(x, a)
                                        for x, a in zip(leaves, avals)])
        operands = [api_transforms._operand(x, a) for x, a in zip(leaves, avals)]
        operands += traced.captures
        attrs = {"name": name}
        if text is not None:
            attrs["composite_attributes"] = text
        if version:
            attrs["version"] = int(version)
        computation = traced.computation
        out = dispatch.bind("composite", operands, attrs, weak_type=list(traced.out_weak),
                            regions=[lambda mb: mb.clone_computation(computation)])
        outs = out if isinstance(out, list) else [out]
        return traced.out_treedef.unflatten(outs)
    return apply
