"""``xjit.experimental``: JAX's ``jax.experimental`` names xjit has.

Example:
    >>> import numpy as np, xjit
    >>> from xjit.experimental import io_callback
    >>> io_callback(lambda x: x * 2, xjit.ShapeDtypeStruct((), np.float32), np.float32(3))
    Array(6., dtype=float32)
"""
from xjit._src.callbacks import io_callback  # noqa: F401
