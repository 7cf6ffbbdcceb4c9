"""``xjit.numpy.fft``: numpy's FFT functions (JAX's ``jax.numpy.fft``).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.fft.fft(np.array([1.0, 0.0, 0.0, 0.0]))
    Array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
"""
from xjit._src.numpy.fft import (  # noqa: F401
    fft, ifft, rfft, irfft, fft2, ifft2, rfft2, irfft2, fftn, ifftn, rfftn, irfftn, hfft, ihfft,
    fftfreq, rfftfreq, fftshift, ifftshift)
