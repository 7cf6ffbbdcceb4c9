"""JAX's top-level utilities around the transformations: process and device
counts for one process, ``clear_caches``, ``typeof``, ``named_scope`` and
``named_call``, ``ensure_compile_time_eval`` and the ``enable_x64``
context.

Example:
    >>> import xjit
    >>> xjit.process_count(), xjit.process_index()
    (1, 0)
"""
from __future__ import annotations

import contextlib
import functools
import threading

from xjit._src import api, config as config_lib, dispatch, tracing
from xjit._src.numpy import util


def process_count(backend=None) -> int:
    """Processes in the computation: one (xjit runs in one process)."""
    del backend
    return 1


def process_index(backend=None) -> int:
    """This process's index: 0."""
    del backend
    return 0


def process_indices(backend=None) -> list:
    """The processes' indices: [0]."""
    del backend
    return [0]


host_count, host_id, host_ids = process_count, process_index, process_indices


def local_device_count(backend=None) -> int:
    """Devices of ``backend`` (the default one) attached to this process."""
    return len(api.local_devices(backend=backend))


def clear_caches() -> None:
    """Drops every compiled function: each jitted function's cache and the
    eager op cache (the next call compiles again)."""
    for f in list(api._all_jitted):
        f.clear_cache()
    dispatch._eager_cache.clear()
    util._plans.clear()
    util._common_dtypes.clear()


def typeof(x):
    """The abstract value (shape, dtype, weak type) of ``x``."""
    return tracing.leaf_aval(x)


_scopes = threading.local()


@contextlib.contextmanager
def named_scope(name: str):
    """A name for the ops traced inside (JAX puts it in op metadata; xjit
    keeps the stack, ``current_name_stack()``, and computes the same)."""
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    stack = getattr(_scopes, "stack", [])
    _scopes.stack = stack + [name]
    try:
        yield
    finally:
        _scopes.stack = stack


def current_name_stack() -> str:
    """The names of the enclosing ``named_scope``s, joined by '/'."""
    return "/".join(getattr(_scopes, "stack", []))


def named_call(fun, *, name: str | None = None):
    """``fun`` traced under ``named_scope(name)`` (default: its ``__name__``)."""
    scope = name or getattr(fun, "__name__", "fun")

    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        with named_scope(scope):
            return fun(*args, **kwargs)
    return wrapper


@contextlib.contextmanager
def ensure_compile_time_eval():
    """Inside, an op whose operands are all concrete runs now (eagerly), even
    while a function is being traced: its result is a concrete array that
    Python control flow can use, as in JAX."""
    old = getattr(dispatch._compile_time_eval, "active", False)
    dispatch._compile_time_eval.active = True
    try:
        yield
    finally:
        dispatch._compile_time_eval.active = old


@contextlib.contextmanager
def enable_x64(new_val: bool = True):
    """64-bit types on (or off) within the context."""
    config = config_lib.config
    old = config.read("jax_enable_x64")
    config.update("jax_enable_x64", bool(new_val))
    try:
        yield
    finally:
        config.update("jax_enable_x64", old)
