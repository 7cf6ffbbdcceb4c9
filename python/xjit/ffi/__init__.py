"""``xjit.ffi``: JAX's ``jax.ffi`` (foreign functions as custom_call targets).

Example:
    >>> import ctypes, numpy as np, xjit
    >>> lib = ctypes.cdll.LoadLibrary("./libscale.so")  # doctest: +SKIP
    >>> xjit.ffi.register_ffi_target("scale", xjit.ffi.pycapsule(lib.Scale))  # doctest: +SKIP
"""
from xjit._src.ffi import ffi_call, pycapsule, register_ffi_target  # noqa: F401
