"""Contractions: dot_general and dot.

Example:
    >>> from xjit import lax
    >>> lax.dot(np.ones((2, 3), np.float32), np.ones(3, np.float32))
    Array([3., 3.], dtype=float32)
"""
from __future__ import annotations

from xjit._src import dispatch
from xjit._src.lax import operands as ops
from xjit._src.lax.elementwise import convert_element_type
from xjit._src.traceback_util import api_boundary


def _dims(name, values):
    return tuple(int(v) for v in values)


@api_boundary
def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """General contraction, as in XLA's DotGeneral.

    ``dimension_numbers = ((lhs_contracting, rhs_contracting), (lhs_batch,
    rhs_batch))``; the result has the batch dims, then lhs's free dims, then
    rhs's free dims. ``precision`` is accepted and ignored (CPU computes at
    full precision).

    Example:
        >>> a = np.ones((4, 2, 3), np.float32); b = np.ones((4, 3, 5), np.float32)
        >>> lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))).shape
        (4, 2, 5)
    """
    ops.check_arraylike("dot_general", lhs, rhs)
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise TypeError(f"dot_general: dimension_numbers must be ((lhs_contracting, "
                        f"rhs_contracting), (lhs_batch, rhs_batch)), got "
                        f"{dimension_numbers!r}") from None
    if preferred_element_type is not None:
        pet = dispatch.canonicalize_dtype(preferred_element_type)
        if ops.dtype_of(lhs) != pet:
            lhs = convert_element_type(lhs, pet)
        if ops.dtype_of(rhs) != pet:
            rhs = convert_element_type(rhs, pet)
    dt = ops.resolve_dtypes("dot_general", (lhs, rhs))
    ops.check_dtype("dot_general", dt, "biufc", "bool, integer, floating, complexfloating")
    lshape, rshape = ops.shape_of(lhs), ops.shape_of(rhs)
    lc, rc, lb, rb = (_dims("dot_general", d) for d in (lc, rc, lb, rb))
    for i, j in zip(lc, rc):
        if i < len(lshape) and j < len(rshape) and lshape[i] != rshape[j]:
            raise TypeError(
                f"dot_general requires contracting dimensions to have the same shape, got "
                f"{tuple(lshape[k] for k in lc if k < len(lshape))} and "
                f"{tuple(rshape[k] for k in rc if k < len(rshape))}.")
    attrs = {"lhs_contracting_dimensions": lc, "rhs_contracting_dimensions": rc,
             "lhs_batching_dimensions": lb, "rhs_batching_dimensions": rb}
    weak = ops.is_weak(lhs) and ops.is_weak(rhs)
    return dispatch.bind("dot_general", [ops.as_operand(lhs, dt), ops.as_operand(rhs, dt)],
                         attrs, weak_type=weak)


@api_boundary
def dot(lhs, rhs, precision=None, preferred_element_type=None):
    """Vector/matrix products: contracts lhs's last dim with rhs's first.

    Example:
        >>> lax.dot(np.ones(3, np.float32), np.ones(3, np.float32))
        Array(3., dtype=float32)
    """
    ls, rs = ops.shape_of(lhs), ops.shape_of(rhs)
    if not (1 <= len(ls) <= 2 and 1 <= len(rs) <= 2) or ls[-1] != rs[0]:
        raise TypeError(f"Incompatible shapes for dot: got {ls} and {rs}.")
    return dot_general(lhs, rhs, (((len(ls) - 1,), (0,)), ((), ())), precision,
                       preferred_element_type)
