"""The exceptions xjit raises for misuse of traced values, named as in JAX.

Example:
    >>> issubclass(TracerBoolConversionError, TypeError)
    True
"""
from __future__ import annotations

_CONTROL_FLOW_HINT = (
    "Python control flow on a traced value is not possible inside jit: the value is "
    "only known when the compiled function runs. Use lax.cond or lax.select (or "
    "jnp.where) for a traced condition, lax.while_loop / lax.fori_loop for a traced "
    "loop, or mark the argument static with jit(f, static_argnums=...) / "
    "static_argnames=... if it is a Python value.")


class JAXTypeError(TypeError):
    """Base of xjit's TypeErrors about traced values."""


class JAXIndexError(IndexError):
    """Base of xjit's IndexErrors about traced values."""


class ConcretizationTypeError(JAXTypeError):
    """A concrete Python value was needed from a traced array.

    Example:
        >>> raise ConcretizationTypeError(tracer, "float() was called")  # doctest: +SKIP
    """

    def __init__(self, tracer, context: str = ""):
        super().__init__(
            f"Abstract tracer value encountered where concrete value is expected: "
            f"{tracer!r}\n{context}\n{_CONTROL_FLOW_HINT}")


class TracerBoolConversionError(ConcretizationTypeError):
    """``bool()`` (an ``if``/``while``/``and``) was applied to a traced array."""

    def __init__(self, tracer):
        TypeError.__init__(
            self, f"Attempted boolean conversion of traced array with shape "
                  f"{tracer.aval.str_short()}.\n{_CONTROL_FLOW_HINT}")


class TracerIntegerConversionError(JAXIndexError):
    """``int()``/``__index__`` was applied to a traced array."""

    def __init__(self, tracer):
        super().__init__(
            f"The __index__() method was called on traced array with shape "
            f"{tracer.aval.str_short()}.\n{_CONTROL_FLOW_HINT}")


class TracerArrayConversionError(JAXTypeError):
    """A traced array was converted to a numpy array (``np.asarray(tracer)``)."""

    def __init__(self, tracer):
        super().__init__(
            f"The numpy.ndarray conversion method __array__() was called on traced "
            f"array with shape {tracer.aval.str_short()}. Use xjit.numpy functions "
            f"instead of numpy functions inside jit.\n{_CONTROL_FLOW_HINT}")


class UnexpectedTracerError(JAXTypeError):
    """A traced value escaped the function being traced and was used later."""


for _cls in (JAXTypeError, JAXIndexError, ConcretizationTypeError, TracerBoolConversionError,
             TracerIntegerConversionError, TracerArrayConversionError, UnexpectedTracerError):
    _cls.__module__ = "xjit.errors"  # shown in tracebacks, as jax.errors is
del _cls
