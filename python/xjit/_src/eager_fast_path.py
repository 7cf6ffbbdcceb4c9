"""Eager calls of ``xjit.numpy``'s element-wise functions through jit's C++
fast path, as JAX's ``jnp`` functions are jitted: ``jnp.add(x, y)`` (and so
``x + y``) on arrays costs a cache look-up and a run in C++ (about 1 µs)
instead of Python's promotion, broadcasting and one-op dispatch (about 8 µs).

Inside a trace the function runs as it is (it adds its ops to the graph),
and so does a call with a Python int outside 0..127 (its value is checked
against the dtype it converts to, which a traced argument cannot be).
Arrays of another platform than the default one keep the eager path (a jit
call would run on the default device). When the jitted call fails, the
function runs eagerly and raises its own, more specific error.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.add(jnp.ones(2), 1)
    Array([2., 2.], dtype=float32)
"""
from __future__ import annotations

import functools
import inspect
from typing import Callable

from xjit import _xjit
from xjit._src import core, dispatch


def via_jit(fun: Callable, static_argnames: tuple = ()) -> Callable:
    """``fun`` called through ``jit`` outside traces. ``static_argnames``: its
    parameters that configure it (axis, dtype, keepdims...), which become
    part of the jit cache key; positional ones are passed by name."""
    state = core._state
    jitted = None
    names = list(inspect.signature(fun).parameters)

    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        nonlocal jitted
        if state.stack:
            return fun(*args, **kwargs)
        platform = dispatch.default_backend()
        for a in args:
            if type(a) is _xjit.Array and a.device.platform != platform:
                return fun(*args, **kwargs)
            # A Python int is checked against the dtype it converts to
            # (OverflowError for -3 with uint8); as a traced jit argument its
            # value is unknown. Those that fit every integer type go through.
            if type(a) is int and not 0 <= a <= 127:
                return fun(*args, **kwargs)
        if jitted is None:
            from xjit._src.api import jit   # api imports the numpy modules
            jitted = jit(fun, static_argnames=static_argnames)
        if static_argnames and len(args) > 1:   # configuration passed positionally
            kwargs = dict(kwargs)
            kwargs.update(zip(names[1:], args[1:]))
            args = args[:1]
        try:
            return jitted(*args, **kwargs)
        except Exception:   # noqa: BLE001 (re-raised below by the eager path)
            return fun(*args, **kwargs)
    return wrapper
