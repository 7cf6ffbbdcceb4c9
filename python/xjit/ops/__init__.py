"""``xjit.ops``: segment reductions (``jax.ops``).

Example:
    >>> from xjit import ops
    >>> ops.segment_max(jnp.array([1.0, 5.0, 2.0]), jnp.array([0, 0, 1]), num_segments=2)
    Array([5., 2.], dtype=float32)
"""
from xjit._src.segment_ops import (  # noqa: F401
    segment_max, segment_min, segment_prod, segment_sum)
