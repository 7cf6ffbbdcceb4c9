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


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=(),
         global_arg_shapes=None):
    """``fun`` mapped over a leading axis with one device per index, as
    ``jax.pmap``: on one process the axis is vmapped under ``axis_name``
    (collectives such as ``lax.psum`` work) and compiled once; the axis
    may be at most as long as the devices available."""
    from xjit._src import api_transforms
    del global_arg_shapes
    static = ((static_broadcasted_argnums,) if isinstance(static_broadcasted_argnums, int)
              else tuple(static_broadcasted_argnums))
    available = len(devices) if devices is not None else len(api.local_devices(backend=backend))

    @functools.wraps(fun)
    def mapped(*args):
        axes = in_axes if not isinstance(in_axes, int) or not static else tuple(
            None if i in static else in_axes for i in range(len(args)))
        sizes = set()
        per_arg = axes if isinstance(axes, (tuple, list)) else (axes,) * len(args)
        for a, ax in zip(args, per_arg):
            if ax is None:
                continue
            for leaf in _leaves(a):
                shape = util.shape_of(leaf)
                sizes.add(shape[ax] if shape else None)
        size = axis_size if axis_size is not None else (max(s for s in sizes if s is not None)
                                                        if sizes - {None} else None)
        if size is not None and size > available:
            raise ValueError(f"pmap: the mapped axis has size {size}, but only {available} "
                             f"device(s) are available")
        inner = api_transforms.vmap(lambda *xs: fun(*_with_static(args, xs, static)),
                                    in_axes=_drop(axes, static, len(args)), out_axes=out_axes,
                                    axis_name=axis_name, axis_size=axis_size)
        return inner(*[a for i, a in enumerate(args) if i not in static])
    return api.jit(mapped, static_argnums=static, donate_argnums=donate_argnums)


def _leaves(x):
    from xjit import _xjit
    return _xjit.tree_flatten(x)[0]


def _with_static(args, dynamic, static):
    it = iter(dynamic)
    return [a if i in static else next(it) for i, a in enumerate(args)]


def _drop(axes, static, n):
    if not isinstance(axes, (tuple, list)):
        return axes
    return tuple(ax for i, ax in enumerate(axes) if i not in static)
