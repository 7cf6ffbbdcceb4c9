"""``lax.rng_bit_generator`` (the StableHLO op) and ``lax.rng_uniform``.

Example:
    >>> key = np.array([1, 0, 2, 0], np.uint32)
    >>> new_key, bits = lax.rng_bit_generator(key, (2,), algorithm=lax.RandomAlgorithm.RNG_THREE_FRY)
"""
from __future__ import annotations

import enum

import numpy as np

from xjit._src import dispatch
from xjit._src.lax import operands as ops
from xjit._src.traceback_util import api_boundary


class RandomAlgorithm(enum.IntEnum):
    """The algorithm of ``rng_bit_generator`` (JAX's names)."""
    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2


_ALGORITHM_TEXT = {RandomAlgorithm.RNG_DEFAULT: "DEFAULT",
                   RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
                   RandomAlgorithm.RNG_PHILOX: "PHILOX"}


@api_boundary
def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT):
    """``(new_key, bits)``: uniform bits of ``shape`` and unsigned ``dtype`` from a
    ``uint32[4]`` (or ``uint64[2]``) key, as XLA computes them; DEFAULT is PHILOX.

    Example: ``new_key, bits = lax.rng_bit_generator(key, (3,), np.uint8)``.
    """
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"rng_bit_generator: shape must be non-negative, got {shape}")
    dt = np.dtype(dtype)
    if dt not in (np.dtype("uint8"), np.dtype("uint16"), np.dtype("uint32"),
                  np.dtype("uint64")):
        raise TypeError(f"rng_bit_generator: unsupported dtype {dt}")
    dt = dispatch.canonicalize_dtype(dt)
    try:
        algorithm = RandomAlgorithm(algorithm)
    except ValueError:
        raise TypeError(f"rng_bit_generator: unknown algorithm {algorithm!r}") from None
    ops.check_arraylike("rng_bit_generator", key)
    kdt = ops.dtype_of(key)
    kshape = ops.shape_of(key)
    if not ((kshape == (4,) and kdt == np.uint32) or (kshape == (2,) and kdt == np.uint64)):
        raise TypeError(f"rng_bit_generator: key must be uint32[4] or uint64[2], got "
                        f"{kdt}{list(kshape)}")
    out = dispatch.bind("rng_bit_generator", [ops.as_operand(key, kdt)],
                        {"rng_algorithm": _ALGORITHM_TEXT[algorithm], "shape": shape,
                         "dtype": dt.name})
    return tuple(out)


# ---- issue 11 (h-fft): lax.rng_uniform, the StableHLO rng op

@api_boundary
def rng_uniform(a, b, shape):
    """Uniform values in ``[a, b)`` of ``shape`` and ``a``'s dtype (JAX's
    ``lax.rng_uniform``, the ``rng`` op with UNIFORM). The bits are
    implementation-defined: xjit expands the op into ``rng_bit_generator`` on a
    constant state at compile time, so the same program gives the same values.

    Example: ``lax.rng_uniform(np.float32(0), np.float32(1), (3,))``.
    """
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"rng_uniform: shape must be non-negative, got {shape}")
    ops.check_arraylike("rng_uniform", a, b)
    adt, bdt = ops.dtype_of(a), ops.dtype_of(b)
    if adt != bdt or ops.shape_of(a) != () or ops.shape_of(b) != ():
        raise TypeError(f"rng_uniform: a and b must be scalars of one dtype, got "
                        f"{adt}{list(ops.shape_of(a))} and {bdt}{list(ops.shape_of(b))}")
    if not (np.issubdtype(adt, np.floating) or np.issubdtype(adt, np.integer)):
        raise TypeError(f"rng_uniform: unsupported dtype {adt}")
    global _RNG_UNIFORM
    if _RNG_UNIFORM is None:
        from xjit._src.api import jit
        _RNG_UNIFORM = jit(_rng_uniform_traced, static_argnums=(2,))
    return _RNG_UNIFORM(a, b, shape)


def _rng_uniform_traced(a, b, shape):
    # Traced, so the shape operand is a constant of the graph: the rng op
    # needs it at compile time (passes/dynamic_shape_lowering.h).
    adt = ops.dtype_of(a)
    return dispatch.bind("rng", [a, b, np.array(shape, np.int32)],
                         {"rng_distribution": "UNIFORM", "shape": shape, "dtype": adt.name})


_RNG_UNIFORM = None
