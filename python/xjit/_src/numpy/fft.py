"""``xjit.numpy.fft``: numpy's FFT API on ``lax.fft``, as ``jax.numpy.fft``.

Transforms over axes other than the innermost are moved there (and back);
more than 3 axes are transformed in groups of at most 3, as JAX does. ``s``
/ ``n`` crop or zero-pad the input; ``norm`` is "backward" (default),
"ortho" or "forward".

Example:
    >>> jnp.fft.rfft(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    Array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
"""
from __future__ import annotations

import operator
from typing import Sequence

import numpy as np

from xjit._src import dtypes
from xjit._src.lax import fft as lax_fft
from xjit._src.numpy import creation, elementwise as jnp_ew, pad as jnp_pad, roll as jnp_roll
from xjit._src.numpy import shape_ops, util

FftType = lax_fft.FftType


def _norm_factor(s, func_name: str, norm, dtype):
    n = float(np.prod(s)) if len(s) else 1.0
    if norm == "backward":
        return None
    if norm == "ortho":
        f = np.sqrt(n) if func_name.startswith("i") else 1 / np.sqrt(n)
    elif norm == "forward":
        f = n if func_name.startswith("i") else 1 / n
    else:
        raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')
    return np.array(f, dtype=dtype)


def _fft_core_nd(arr, fft_type, s):
    if len(s) <= 3:
        return lax_fft.fft(arr, fft_type, tuple(s))
    # More than 3 axes: the innermost n by one op, the rest recursively.
    n = 2 if len(s) == 4 else 3
    ndim = arr.ndim
    src = tuple(range(ndim - len(s), ndim - n))
    dst = tuple(range(ndim - len(s) + n, ndim))
    if fft_type in (FftType.RFFT, FftType.FFT):
        arr = lax_fft.fft(arr, fft_type, tuple(s)[-n:])
        arr = shape_ops.moveaxis(arr, src, dst)
        arr = _fft_core_nd(arr, FftType.FFT, s[:-n])
        arr = shape_ops.moveaxis(arr, dst, src)
    else:
        arr = shape_ops.moveaxis(arr, src, dst)
        arr = _fft_core_nd(arr, FftType.IFFT, s[:-n])
        arr = shape_ops.moveaxis(arr, dst, src)
        arr = lax_fft.fft(arr, fft_type, tuple(s)[-n:])
    return arr


def _fft_core(func_name: str, fft_type, a, s, axes, norm):
    full_name = f"jax.numpy.fft.{func_name}"
    util.check_arraylike(full_name, a)
    arr = creation.asarray(a)
    if s is not None:
        s = tuple(map(operator.index, s))
        if any(x <= 0 for x in s):
            raise ValueError("Shape should be positive.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    orig_axes = axes
    if axes is None:
        axes = range(arr.ndim) if s is None else range(arr.ndim - len(s), arr.ndim)
    axes = [operator.index(ax) for ax in axes]
    for ax in axes:
        if not -arr.ndim <= ax < arr.ndim:
            raise ValueError(f"axis {ax} is out of bounds for array of dimension {arr.ndim}")
    norm_axes = [ax % arr.ndim for ax in axes] if arr.ndim else axes
    if len(norm_axes) != len(set(norm_axes)):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {list(axes)}.")
    if orig_axes is not None:
        axes = tuple(range(arr.ndim - len(axes), arr.ndim))
        arr = shape_ops.moveaxis(arr, norm_axes, axes)
    else:
        axes = tuple(norm_axes)
    if s is not None:
        in_s = list(arr.shape)
        for axis, x in zip(axes, s):
            in_s[axis] = x
        if fft_type == FftType.IRFFT:
            in_s[-1] = in_s[-1] // 2 + 1
        arr = arr[tuple(slice(x) for x in in_s)]
        widths = [(0, x - y) for x, y in zip(in_s, arr.shape)]
        if any(w != (0, 0) for w in widths):
            arr = jnp_pad.pad(arr, widths)
    else:
        if fft_type == FftType.IRFFT:
            s = [arr.shape[axis] for axis in axes[:-1]]
            if axes:
                s += [max(0, 2 * (arr.shape[axes[-1]] - 1))]
        else:
            s = [arr.shape[axis] for axis in axes]
    if fft_type == FftType.IRFFT and s and s[-1] == 0:
        raise ValueError(f"Invalid number of FFT data points ({s[-1]}) specified.")
    transformed = _fft_core_nd(arr, fft_type, s)
    factor = _norm_factor(s, func_name, "backward" if norm is None else norm,
                          dtypes.dtype(transformed))
    if factor is not None:
        transformed = jnp_ew.multiply(transformed, factor)
    if orig_axes is not None:
        transformed = shape_ops.moveaxis(transformed, axes, norm_axes)
    return transformed


def _axis_check_1d(func_name: str, axis):
    if isinstance(axis, (list, tuple)):
        full_name = f"jax.numpy.fft.{func_name}"
        raise ValueError(f"{full_name} does not support multiple axes. Please use {full_name}n. "
                         f"Got axis = {axis!r}.")


def _fft_core_1d(func_name, fft_type, a, n, axis, norm):
    _axis_check_1d(func_name, axis)
    axes = None if axis is None else [axis]
    s = None if n is None else [n]
    return _fft_core(func_name, fft_type, a, s, axes, norm)


def _fft_core_2d(func_name, fft_type, a, s, axes, norm):
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. Got axes = {axes!r}.")
    return _fft_core(func_name, fft_type, a, s, axes, norm)


def fftn(a, s=None, axes=None, norm=None):
    """N-d discrete Fourier transform. Example: ``jnp.fft.fftn(x, axes=(0, 1))``."""
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    """N-d inverse discrete Fourier transform. Example: ``jnp.fft.ifftn(jnp.fft.fftn(x))``."""
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    """N-d FFT of real input (last axis halved). Example: ``jnp.fft.rfftn(x)``."""
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    """Inverse of ``rfftn``. Example: ``jnp.fft.irfftn(jnp.fft.rfftn(x), x.shape)``."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


def fft(a, n=None, axis=-1, norm=None):
    """1-d discrete Fourier transform. Example: ``jnp.fft.fft(x, n=8)``."""
    return _fft_core_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a, n=None, axis=-1, norm=None):
    """1-d inverse discrete Fourier transform. Example: ``jnp.fft.ifft(jnp.fft.fft(x))``."""
    return _fft_core_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a, n=None, axis=-1, norm=None):
    """1-d FFT of real input: ``n // 2 + 1`` entries. Example: ``jnp.fft.rfft(x)``."""
    return _fft_core_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a, n=None, axis=-1, norm=None):
    """Inverse of ``rfft``: real output of length ``n`` (default ``2 * (m - 1)``).

    Example: ``jnp.fft.irfft(jnp.fft.rfft(x), n=x.shape[-1])``.
    """
    return _fft_core_1d("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a, n=None, axis=-1, norm=None):
    """FFT of a Hermitian-symmetric signal given by its first half (real output).

    Example: ``jnp.fft.hfft(np.array([1, 2j, 3]))``.
    """
    _axis_check_1d("hfft", axis)
    util.check_arraylike("jax.numpy.fft.hfft", a)
    conj_a = jnp_ew.conj(creation.asarray(a))
    nn = (conj_a.shape[axis] - 1) * 2 if n is None else n
    out = _fft_core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm)
    return jnp_ew.multiply(out, np.array(nn, dtype=dtypes.dtype(out)))


def ihfft(a, n=None, axis=-1, norm=None):
    """Inverse of ``hfft``: the first half of the spectrum of a real signal.

    Example: ``jnp.fft.ihfft(np.arange(4.0))``.
    """
    _axis_check_1d("ihfft", axis)
    util.check_arraylike("jax.numpy.fft.ihfft", a)
    arr = creation.asarray(a)
    nn = arr.shape[axis] if n is None else n
    out = _fft_core_1d("ihfft", FftType.RFFT, arr, n, axis, norm)
    return jnp_ew.multiply(jnp_ew.conj(out), np.array(1 / nn, dtype=dtypes.dtype(out)))


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """2-d discrete Fourier transform. Example: ``jnp.fft.fft2(x)``."""
    return _fft_core_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """2-d inverse discrete Fourier transform. Example: ``jnp.fft.ifft2(jnp.fft.fft2(x))``."""
    return _fft_core_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """2-d FFT of real input. Example: ``jnp.fft.rfft2(x)``."""
    return _fft_core_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """Inverse of ``rfft2``. Example: ``jnp.fft.irfft2(jnp.fft.rfft2(x), x.shape)``."""
    return _fft_core_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


def _check_freq_args(name, n, d):
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. "
                         f"Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                         f"Got d = {list(d)}.")


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of an ``n``-point FFT with spacing ``d``.

    Example: ``jnp.fft.fftfreq(4)`` is ``[0, 0.25, -0.5, -0.25]``.
    """
    _check_freq_args("fftfreq", n, d)
    n = operator.index(n)
    out_dtype = dtypes.canonicalize_dtype(dtype) if dtype is not None else \
        dtypes.default_float_dtype()
    dt = out_dtype if dtypes.is_inexact(out_dtype) else dtypes.default_float_dtype()
    real_dt = np.dtype(dt).type(0).real.dtype
    i = creation.arange(n, dtype=real_dt)
    k = jnp_ew.subtract(jnp_ew.remainder(jnp_ew.add(i, n // 2), n), n // 2)
    result = jnp_ew.divide(k, creation.asarray(d * n, dtype=real_dt))
    return result.astype(out_dtype)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of ``rfft``'s ``n // 2 + 1`` outputs.

    Example: ``jnp.fft.rfftfreq(4)`` is ``[0, 0.25, 0.5]``.
    """
    _check_freq_args("rfftfreq", n, d)
    n = operator.index(n)
    dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.default_float_dtype()
    k = creation.arange(0, n // 2 + 1, dtype=dt)
    return jnp_ew.divide(k, creation.asarray(d * n, dtype=dt))


def fftshift(x, axes=None):
    """Move the zero frequency to the middle. Example: ``jnp.fft.fftshift(jnp.fft.fftfreq(5))``."""
    util.check_arraylike("fftshift", x)
    x = creation.asarray(x)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift = [dim // 2 for dim in x.shape]
    elif isinstance(axes, int):
        shift = x.shape[axes] // 2
    else:
        shift = [x.shape[ax] // 2 for ax in axes]
    return jnp_roll.roll(x, shift, axes)


def ifftshift(x, axes=None):
    """The inverse of ``fftshift``. Example: ``jnp.fft.ifftshift(jnp.fft.fftshift(x))``."""
    util.check_arraylike("ifftshift", x)
    x = creation.asarray(x)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift = [-(dim // 2) for dim in x.shape]
    elif isinstance(axes, int):
        shift = -(x.shape[axes] // 2)
    else:
        shift = [-(x.shape[ax] // 2) for ax in axes]
    return jnp_roll.roll(x, shift, axes)
