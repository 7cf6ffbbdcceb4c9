"""Errors: tracer misuse and bad operands raise TypeErrors naming the op and the user line."""
import os
import traceback

import numpy as np
import pytest

import xjit
from xjit import lax
from xjit.errors import (ConcretizationTypeError, TracerArrayConversionError,
                         TracerBoolConversionError, TracerIntegerConversionError,
                         UnexpectedTracerError)

XJIT_DIR = os.path.dirname(xjit.__file__)


def last_user_frame(tb):
    frames = [f for f in traceback.extract_tb(tb) if not f.filename.startswith(XJIT_DIR)]
    return frames[-1]


def test_bool_on_tracer():
    @xjit.jit
    def f(x):
        if lax.gt(x, 0.0):
            return x
        return lax.neg(x)

    with pytest.raises(TracerBoolConversionError, match="lax.cond") as info:
        f(np.float32(1))
    assert isinstance(info.value, TypeError)
    assert isinstance(info.value, ConcretizationTypeError)
    assert "bool[]" in str(info.value)


def test_other_concretizations():
    x = np.ones(3, np.float32)
    with pytest.raises(ConcretizationTypeError):
        xjit.jit(lambda v: float(v))(x)
    with pytest.raises(TracerIntegerConversionError):
        xjit.jit(lambda v: int(v))(x)
    with pytest.raises(TracerArrayConversionError, match=r"float32\[3\]"):
        xjit.jit(lambda v: np.asarray(v))(x)
    with pytest.raises(ConcretizationTypeError):
        xjit.jit(lambda v: v.item())(x)


def test_shape_mismatch_names_op_shapes_and_user_line():
    a, b = np.ones(3, np.float32), np.ones(4, np.float32)
    with pytest.raises(TypeError) as info:
        lax.add(a, b)  # the line the traceback must end at
    line = test_shape_mismatch_names_op_shapes_and_user_line.__code__.co_firstlineno + 3
    msg = str(info.value)
    assert "add" in msg and "(3,)" in msg and "(4,)" in msg
    frame = last_user_frame(info.tb)
    assert frame.filename == __file__ and frame.lineno == line
    # The xjit-internal frames are filtered out entirely.
    assert all(not f.filename.startswith(os.path.join(XJIT_DIR, "_src", "lax"))
               for f in traceback.extract_tb(info.tb))


def test_error_inside_jit_points_at_user_line():
    def f(x):
        return lax.add(x, np.ones(4, np.float32))  # bad line

    line = f.__code__.co_firstlineno + 1
    with pytest.raises(TypeError, match="add") as info:
        xjit.jit(f)(np.ones(3, np.float32))
    frame = last_user_frame(info.tb)
    assert frame.lineno == line and frame.filename == __file__


def test_cpp_errors_arrive_as_python_exceptions():
    with pytest.raises(ValueError):
        lax.rev(np.ones((2, 3), np.float32), (5,))
    with pytest.raises(TypeError):
        lax.reshape(np.ones(6, np.float32), (4,))


def test_leaked_tracer():
    leaked = []

    @xjit.jit
    def f(x):
        leaked.append(x)
        return x

    f(np.float32(1))
    with pytest.raises(UnexpectedTracerError):
        lax.add(leaked[0], 1.0)


def test_jit_argument_and_return_types():
    with pytest.raises(TypeError, match="not a valid JAX type"):
        xjit.jit(lambda x: x)(object())
    with pytest.raises(TypeError, match="not a valid JAX type"):
        xjit.jit(lambda x: "text")(np.float32(1))
