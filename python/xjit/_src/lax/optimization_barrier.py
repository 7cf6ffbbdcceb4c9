"""``lax.optimization_barrier`` (the StableHLO op), as JAX's: the identity on
a pytree of arrays that the compiler's passes treat as opaque, so nothing is
folded, fused or CSE'd through it (e.g. to keep a rematerialised value from
being merged with the original).

Example:
    >>> lax.optimization_barrier((np.float32(1.0), np.arange(3)))
    (Array(1., dtype=float32), Array([0, 1, 2], dtype=int32))
"""
from __future__ import annotations

from xjit import _xjit
from xjit._src import dispatch
from xjit._src.lax import operands as ops
from xjit._src.traceback_util import api_boundary


@api_boundary
def optimization_barrier(operand):
    """``operand`` (a pytree of arrays) unchanged, behind a barrier passes do not cross.

    Example: ``x, y = lax.optimization_barrier((x, y))``.
    """
    leaves, tree = _xjit.tree_flatten(operand)
    if not leaves:
        return operand
    ops.check_arraylike("optimization_barrier", *leaves)
    values = [ops.as_operand(x, ops.dtype_of(x)) for x in leaves]
    out = dispatch.bind("optimization_barrier", values, {},
                        weak_type=[ops.is_weak(x) for x in leaves])
    out = list(out) if isinstance(out, (list, tuple)) else [out]
    return tree.unflatten(out)
