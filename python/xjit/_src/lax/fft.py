"""``lax.fft`` (the StableHLO ``fft`` op) and ``lax.FftType``, as JAX's.

Example:
    >>> lax.fft(np.ones(4, np.complex64), lax.FftType.FFT, (4,))
    Array([4.+0.j, 0.+0.j, 0.+0.j, 0.+0.j], dtype=complex64)
"""
from __future__ import annotations

import enum
import operator
from typing import Sequence

import numpy as np

from xjit._src import dispatch, dtypes
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import operands as ops
from xjit._src.traceback_util import api_boundary


class FftType(enum.IntEnum):
    """Which FFT ``lax.fft`` computes (JAX's values)."""
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


_NAMES = {"fft": FftType.FFT, "ifft": FftType.IFFT, "rfft": FftType.RFFT, "irfft": FftType.IRFFT}


def _fft_type(fft_type) -> FftType:
    if isinstance(fft_type, str):
        if fft_type not in _NAMES and fft_type not in (k.upper() for k in _NAMES):
            raise ValueError(f"Unknown FFT type '{fft_type}'")
        return _NAMES[fft_type.lower()]
    if isinstance(fft_type, FftType):
        return fft_type
    raise TypeError(f"Unknown FFT type value '{fft_type}'")


def _complex_dtype(dt: np.dtype) -> np.dtype:
    return np.dtype(np.complex128) if dt in (np.float64, np.complex128) else np.dtype(np.complex64)


@api_boundary
def fft(x, fft_type, fft_lengths: Sequence[int]):
    """The FFT of ``x`` over its ``len(fft_lengths)`` (1 to 3) innermost dimensions.

    FFT/IFFT take (and convert to) complex input; RFFT takes real input and
    keeps ``n // 2 + 1`` entries of the last dimension; IRFFT returns real
    values with a last dimension of ``fft_lengths[-1]``. IFFT and IRFFT are
    scaled by ``1 / prod(fft_lengths)``.

    Example: ``lax.fft(x, "rfft", (8,))``.
    """
    typ = _fft_type(fft_type)
    ops.check_arraylike("fft", x)
    dt = ops.dtype_of(x)
    if typ == FftType.RFFT:
        if np.issubdtype(dt, np.complexfloating):
            raise ValueError("only real valued inputs supported for rfft")
        # Integers take the default float; float16/bfloat16 compute in float32.
        want = dt if dt in (np.float32, np.float64) else dtypes.default_float_dtype()
    else:
        want = _complex_dtype(dt if dtypes.is_inexact(dt) else dtypes.default_float_dtype())
    want = dispatch.canonicalize_dtype(want)
    if dt != want or not isinstance(x, (ops.Array, ops.Tracer)):
        x = lax_ew.convert_element_type(x, want)
    lengths = tuple(operator.index(n) for n in fft_lengths)
    if not lengths:
        return x  # XLA's fft takes no 0-d transform
    shape = ops.shape_of(x)
    if len(lengths) > len(shape):
        raise ValueError(f"FFT input shape {shape} must have at least as many input dimensions "
                         f"as fft_lengths {lengths}.")
    # JAX's shape checks (ValueError), before the op's own.
    k = len(lengths)
    if k > 3:
        raise ValueError(f"fft: at most 3 fft_lengths are supported, got {lengths}")
    if typ == FftType.IRFFT:
        if shape[-k:-1] != lengths[:-1] or shape[-1] != lengths[-1] // 2 + 1:
            raise ValueError(f"IRFFT input shape {shape} minor dimensions must be equal to all "
                             f"except the last fft_length, and the last {lengths[-1] // 2 + 1}, "
                             f"got fft_lengths={lengths}")
    elif shape[-k:] != lengths:
        raise ValueError(f"{typ.name} input shape {shape} minor dimensions must be equal to "
                         f"fft_lengths {lengths}")
    return dispatch.bind("fft", [x], {"fft_type": typ.name, "fft_length": lengths})
