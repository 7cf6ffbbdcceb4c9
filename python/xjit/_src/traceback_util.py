"""Traceback filtering: exceptions leaving xjit show the user's frames only.

Like JAX, frames from inside the xjit package are dropped from a traceback when
an exception crosses an API boundary, so the last frame shown is the user's own
line. ``config.update("jax_traceback_filtering", "off")`` keeps every frame.

Example:
    >>> @api_boundary
    ... def f(x):
    ...     raise TypeError("bad")
"""
from __future__ import annotations

import functools
import os
import sys
import types

from xjit import _xjit
from xjit._src.config import config

_XJIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def is_xjit_file(filename: str) -> bool:
    """True for source files of the xjit package itself."""
    return filename.startswith(_XJIT_DIR)


# code object -> whether it is xjit's: every traced op asks user_frame, which
# walks a dozen frames; a dict hit is cheaper than a filename test.
_IS_XJIT_CODE: dict = {}


def user_frame():
    """The innermost frame whose code lives outside the xjit package (or None)."""
    f = sys._getframe(1)
    known = _IS_XJIT_CODE
    while f is not None:
        code = f.f_code
        mine = known.get(code)
        if mine is None:
            if len(known) > 50_000:  # code made on the fly (exec): keep the cache small
                known.clear()
            mine = known[code] = is_xjit_file(code.co_filename)
        if not mine:
            return f
        f = f.f_back
    return None


def user_location() -> str:
    """``"file:line"`` of the innermost user frame, for op source locations
    (``user_frame``'s, found in C++: every traced op asks).

    Example:
        >>> user_location()  # doctest: +SKIP
        '/home/me/model.py:12'
    """
    return _xjit.user_location(_XJIT_DIR)


def filter_traceback(tb):
    """A copy of traceback ``tb`` without frames from the xjit package."""
    kept = []
    while tb is not None:
        if not is_xjit_file(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def api_boundary(fun):
    """Decorator: exceptions escaping ``fun`` lose their xjit-internal frames."""

    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        try:
            return fun(*args, **kwargs)
        except Exception as e:
            if config._values["jax_traceback_filtering"] == "off":
                raise
            raise e.with_traceback(filter_traceback(e.__traceback__))
    return wrapper
