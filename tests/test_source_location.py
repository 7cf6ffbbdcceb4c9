"""Source locations of traced ops: the innermost frame outside the xjit package
(traceback_util.user_location, walked in C++), as the Python walk finds it."""
import sys

import numpy as np

import xjit
from xjit._src import dispatch, traceback_util


# The Python walk, compiled as if it were xjit's own code (so its frame is
# skipped like user_location's).
_FAKE = traceback_util._XJIT_DIR + "fake_module.py"
_ns = {"user_frame": traceback_util.user_frame}
exec(compile("def python_location():\n"
             "    f = user_frame()\n"
             "    return '' if f is None else f'{f.f_code.co_filename}:{f.f_lineno}'\n",
             _FAKE, "exec"), _ns)
python_location = _ns["python_location"]


def test_user_location_is_the_callers_line():
    line = sys._getframe().f_lineno + 1
    assert traceback_util.user_location() == f"{__file__}:{line}"


def test_user_location_skips_xjit_frames():
    # Functions compiled as if they were xjit's own: their frames are skipped.
    src = ("def inner(f):\n    return f()\n"
           "def outer(f):\n    return inner(f)\n")
    ns = {}
    exec(compile(src, _FAKE, "exec"), ns)
    line = sys._getframe().f_lineno + 1
    got = ns["outer"](traceback_util.user_location), ns["outer"](python_location)
    assert got == (f"{__file__}:{line}",) * 2


def test_user_location_of_exec_code():
    ns = {"loc": traceback_util.user_location, "ref": python_location}
    exec(compile("a = loc()\nb = ref()\n", "<generated>", "exec"), ns)
    assert (ns["a"], ns["b"]) == ("<generated>:1", "<generated>:2")
    assert traceback_util.user_location() == python_location()


def test_traced_ops_get_the_user_line(monkeypatch):
    # A recording user_location, itself compiled as xjit's code.
    ns = {"seen": [], "loc": dispatch.user_location, "ref": python_location}
    exec(compile("def record():\n"
                 "    seen.append((loc(), ref()))\n"
                 "    return seen[-1][0]\n", _FAKE, "exec"), ns)
    monkeypatch.setattr(dispatch, "user_location", ns["record"])
    xjit.jit(lambda x: xjit.numpy.tanh(x * 0.5 + 1.0).sum()).lower(np.ones(4, np.float32))
    line = sys._getframe().f_lineno - 1
    assert ns["seen"] and all(a == b == f"{__file__}:{line}" for a, b in ns["seen"])
