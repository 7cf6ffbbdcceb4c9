"""numpy's host-side constructors, files and printing for xjit arrays: the
data is read or formatted by numpy on the host (as JAX does) and handed to
or taken from the device: ``frombuffer``, ``fromstring``, ``fromfile``,
``fromiter``, ``fromfunction``, ``load``, ``save``, ``savez``,
``array_repr``, ``array_str``, ``printoptions`` and friends.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.fromfunction(lambda i, j: i + j, (2, 2))
    Array([[0., 1.],
           [1., 2.]], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit._src.numpy.grids import indices
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary

printoptions = np.printoptions
get_printoptions = np.get_printoptions
set_printoptions = np.set_printoptions
save = np.save
savez = np.savez


@api_boundary
def frombuffer(buffer, dtype=float, count: int = -1, offset: int = 0):
    """The bytes of ``buffer`` read as ``dtype`` (by numpy), as an xjit array."""
    return jnp.asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


@api_boundary
def fromstring(string, dtype=float, count: int = -1, *, sep: str):
    """Numbers in a text ``string`` separated by ``sep``, as an xjit array."""
    return jnp.asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


@api_boundary
def fromfile(*args, **kwargs):
    """Not supported, as in JAX: read with numpy and convert."""
    raise NotImplementedError("jnp.fromfile() is not implemented because it may be non-pure "
                              "and thus unsafe for use with JIT and other JAX transformations. "
                              "Consider using jnp.asarray(np.fromfile(...)) instead.")


@api_boundary
def fromiter(*args, **kwargs):
    """Not supported, as in JAX: build with numpy and convert."""
    raise NotImplementedError("jnp.fromiter() is not implemented because it may be non-pure "
                              "and thus unsafe for use with JIT and other JAX transformations. "
                              "Consider using jnp.asarray(np.fromiter(...)) instead.")


@api_boundary
def fromfunction(function, shape, *, dtype=float, **kwargs):
    """``function`` called once on the index grids of ``shape`` (``dtype``)."""
    grids = indices(tuple(shape), dtype=jnp.dtype(dtype) if dtype is not float else
                        jnp.float32)
    return function(*grids, **kwargs)


@api_boundary
def load(file, *args, **kwargs):
    """``np.load``; arrays come back as xjit arrays (npz archives stay numpy's)."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray) and out.dtype != object:
        return jnp.asarray(out)
    return out


@api_boundary
def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """numpy's ``array_repr`` of the array's values."""
    return np.array_repr(np.asarray(arr), max_line_width, precision, suppress_small)


@api_boundary
def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """numpy's ``array_str`` of the array's values."""
    return np.array_str(np.asarray(a), max_line_width, precision, suppress_small)


def iterable(y) -> bool:
    """Whether ``iter(y)`` works."""
    try:
        iter(y)
    except TypeError:
        return False
    return True
