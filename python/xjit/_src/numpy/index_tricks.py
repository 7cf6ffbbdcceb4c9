"""Flat and multi-dimensional indices: ``ravel_multi_index`` and
``unravel_index`` with JAX's semantics (``unravel_index`` accepts negative
indices and clips out-of-bound ones; ``ravel_multi_index(mode='raise')``
needs concrete indices, as in JAX).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.unravel_index(jnp.array([1, 5]), (2, 3))
    (Array([0, 1], dtype=int32), Array([1, 2], dtype=int32))
"""
from __future__ import annotations

import math
import operator

import numpy as np

from xjit._src import core, dtypes
from xjit._src.errors import ConcretizationTypeError
from xjit._src.numpy import elementwise, reductions, util

_MODES = ("raise", "wrap", "clip", "ignore")


def _dims(dims, fun: str) -> tuple:
    out = []
    for d in dims:
        if isinstance(d, core.Tracer):
            raise ConcretizationTypeError(d, f"in `dims` argument of {fun}().")
        out.append(operator.index(d))
    return tuple(out)


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """The flat index of each coordinate tuple of ``multi_index`` in an array
    of shape ``dims`` (``order`` 'C' or 'F'); ``mode`` handles coordinates out
    of range: 'raise' (concrete input only), 'wrap', 'clip' or 'ignore'.

    Example:
        >>> jnp.ravel_multi_index((jnp.array([0, 1]), jnp.array([2, 0])), (2, 3))
        Array([2, 3], dtype=int32)
    """
    if len(multi_index) != len(dims):
        raise ValueError(f"ravel_multi_index: got {len(multi_index)} index arrays for "
                         f"{len(dims)} dimensions")
    if mode not in _MODES:
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    dims = _dims(dims, "ravel_multi_index")
    util.check_arraylike("ravel_multi_index", *multi_index)
    idx = [util.asarray_any(i) for i in multi_index]
    for i in idx:
        if not dtypes.issubdtype(i.dtype, np.integer):
            raise TypeError("only int indices permitted")
        if mode == "raise" and isinstance(i, core.Tracer) and i._known() is None:
            raise ConcretizationTypeError(
                i, "The error occurred because ravel_multi_index was jit-compiled with "
                   "mode='raise'. Use mode='wrap' or mode='clip' instead.")
    if math.prod(dims) - 1 > np.iinfo(dtypes.default_int_dtype()).max:
        raise ValueError(f"jnp.ravel_multi_index: the flat index for dims={dims} does not fit "
                         f"in {dtypes.default_int_dtype()}")
    if mode == "raise":
        for i, d in zip(idx, dims):
            if bool(reductions.any((i < 0) | (i >= d))):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        idx = [elementwise.clip(i, 0, d - 1) for i, d in zip(idx, dims)]
    elif mode == "wrap":
        idx = [i % d for i, d in zip(idx, dims)]
    sizes = dims if order == "C" else dims[::-1]
    coords = idx if order == "C" else idx[::-1]
    flat = 0
    for i, d in zip(coords, sizes):
        flat = flat * d + util.convert(i, dtypes.default_int_dtype())
    return util.asarray_any(flat) if not util.is_xjit_value(flat) else flat


def unravel_index(indices, shape):
    """The coordinates in an array of ``shape`` of each flat index: negative
    indices count from the end, out-of-bound ones are clipped.

    Example:
        >>> jnp.unravel_index(jnp.array([-1, 9]), (2, 3))
        (Array([1, 1], dtype=int32), Array([2, 2], dtype=int32))
    """
    util.check_arraylike("unravel_index", indices)
    flat = util.asarray_any(indices)
    if not dtypes.issubdtype(flat.dtype, np.integer):
        raise TypeError(f"unravel_index: indices must be integers, got {flat.dtype}")
    try:
        shape = list(shape)
    except TypeError:
        shape = [shape]
    if any(np.ndim(s) != 0 for s in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    shape = list(_dims(shape, "unravel_index"))
    out = [None] * len(shape)
    rest = flat
    for k in reversed(range(len(shape))):
        rest, out[k] = elementwise.divmod(rest, shape[k])
    # What is left is 0 in range, -1 for negative indices in range (the
    # floor division wrapped them), anything else is out of bounds.
    above = rest > 0
    below = (rest < -1) if dtypes.issubdtype(flat.dtype, np.signedinteger) else None
    result = []
    for s, i in zip(shape, out):
        if below is not None:
            i = elementwise.where(below, 0, i)
        result.append(elementwise.where(above, s - 1, i))
    return tuple(result)
