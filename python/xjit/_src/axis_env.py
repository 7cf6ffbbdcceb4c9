"""The named vmap axes being traced, innermost last: ``vmap(axis_name=...)``
binds its name to a fresh id while it traces its function, and the
collectives of ``lax.parallel`` look names up here.

Example:
    >>> with bound_axis("i", 4) as axis_id:
    ...     lookup("i") == (4, axis_id)
    True
"""
from __future__ import annotations

import contextlib
import itertools

_axis_env: list = []           # (name, size, id) of the vmaps being traced, innermost last
_ids = itertools.count()


@contextlib.contextmanager
def bound_axis(name, size: int):
    """Binds ``name`` (None: nothing) to a new axis id while a vmap traces; yields the id."""
    if name is None:
        yield -1
        return
    axis_id = next(_ids)
    _axis_env.append((name, size, axis_id))
    try:
        yield axis_id
    finally:
        _axis_env.pop()


def lookup(name):
    """``(size, id)`` of the innermost vmap axis called ``name``; JAX's NameError if none."""
    for n, size, axis_id in reversed(_axis_env):
        if n == name:
            return size, axis_id
    names = [n for n, _, _ in _axis_env]
    raise NameError(f"unbound axis name: {name}. The following axis names (e.g. defined by "
                    f"pmap) are available to collective operations: {names}")
