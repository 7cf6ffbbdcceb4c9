"""``xjit.errors``: the exception types of traced-value misuse, as ``jax.errors``.

Example:
    >>> from xjit.errors import TracerBoolConversionError
    >>> issubclass(TracerBoolConversionError, TypeError)
    True
"""
from xjit._src.errors import (  # noqa: F401
    ConcretizationTypeError, TracerArrayConversionError, TracerBoolConversionError,
    TracerIntegerConversionError, UnexpectedTracerError)
