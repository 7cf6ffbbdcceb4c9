"""Bit-level lax ops: ``reduce_precision`` and ``bitcast_convert_type``.

Example:
    >>> from xjit import lax
    >>> lax.bitcast_convert_type(np.float32(1.0), np.int32)
    Array(1065353216, dtype=int32)
"""
from __future__ import annotations

import numpy as np

from xjit._src import core, dispatch, dtypes
from xjit._src.lax import operands as ops
from xjit._src.traceback_util import api_boundary


def _static_int(name: str, what: str, v) -> int:
    if isinstance(v, core.Tracer) or isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{name}: {what} must be a static int, got {v!r}")
    return int(v)


@api_boundary
def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """Round ``operand`` to a float format with ``exponent_bits`` exponent and
    ``mantissa_bits`` mantissa bits (ties to even; out-of-range values become
    +-inf or +-0; NaN is kept) and back to its own type.

    Example:
        >>> lax.reduce_precision(np.float32(1.0009765625), 5, 2)
        Array(1., dtype=float32)
    """
    e = _static_int("reduce_precision", "exponent_bits", exponent_bits)
    m = _static_int("reduce_precision", "mantissa_bits", mantissa_bits)
    ops.check_arraylike("reduce_precision", operand)
    dt = ops.dtype_of(operand)
    ops.check_dtype("reduce_precision", dt, "f", "floating")
    if e < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be >= 1, got {e}")
    if m < 0:
        raise ValueError(f"reduce_precision: mantissa_bits must be >= 0, got {m}")
    return dispatch.bind("reduce_precision", [ops.as_operand(operand, dt)],
                         {"exponent_bits": e, "mantissa_bits": m},
                         weak_type=ops.is_weak(operand))


@api_boundary
def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of ``operand`` as ``new_dtype``. A narrower type adds a
    trailing dimension (its pieces, least significant first); a wider one
    consumes the trailing dimension, which must be the width ratio.

    Example:
        >>> lax.bitcast_convert_type(np.uint32(0x3F800000), np.float32)
        Array(1., dtype=float32)
    """
    ops.check_arraylike("bitcast_convert_type", operand)
    x = ops.as_operand(operand)
    old = np.dtype(x.dtype)
    new = dispatch.canonicalize_dtype(new_dtype)
    if old == np.bool_ or new == np.bool_:
        raise TypeError(f"bitcast_convert_type: bool has no defined bit layout, got "
                        f"{old.name} -> {new.name}")
    if (ops.kind(old) == "c") != (ops.kind(new) == "c"):
        raise TypeError(f"bitcast_convert_type: complex types convert only to and from complex "
                        f"types, got {old.name} -> {new.name}")
    shape = tuple(x.shape)
    old_bits, new_bits = dtypes.bit_width(old), dtypes.bit_width(new)
    if max(old_bits, new_bits) % min(old_bits, new_bits):
        raise ValueError(f"bitcast_convert_type: {old_bits}-bit and {new_bits}-bit elements do "
                         f"not regroup, got {old.name} -> {new.name}")
    if new_bits < old_bits:
        shape = shape + (old_bits // new_bits,)
    elif new_bits > old_bits:
        ratio = new_bits // old_bits
        if not shape or shape[-1] != ratio:
            raise ValueError(f"bitcast_convert_type: converting {old.name} to the wider "
                             f"{new.name} needs a last dimension of {ratio}, got shape {shape}")
        shape = shape[:-1]
    # Bound even when the type is unchanged, as JAX does: its tangent is zero.
    return dispatch.bind("bitcast_convert", [x], {"shape": shape, "dtype": new.name},
                         weak_type=False)
