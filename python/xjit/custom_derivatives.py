"""``xjit.custom_derivatives``: JAX's custom_derivatives names.

Example:
    >>> from xjit.custom_derivatives import custom_jvp, SymbolicZero
"""
from xjit._src.custom_derivatives import (  # noqa: F401
    CustomVJPPrimal, SymbolicZero, custom_jvp, custom_vjp)
from xjit._src.linear_call import linear_call  # noqa: F401,E402
