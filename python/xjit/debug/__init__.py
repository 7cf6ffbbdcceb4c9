"""``xjit.debug``: printing and calling back to Python from inside ``jit``
(JAX's ``jax.debug``).

Example:
    >>> import numpy as np, xjit
    >>> @xjit.jit
    ... def f(x):
    ...     xjit.debug.print("x = {}", x)
    ...     return x + 1
    >>> f(np.float32(1)).block_until_ready()  # doctest: +SKIP
    x = 1.0
"""
from xjit._src.callbacks import debug_callback as callback  # noqa: F401
from xjit._src.callbacks import debug_print as print  # noqa: F401,A004
