"""``convolve`` and ``correlate`` of 1-d arrays (modes full/same/valid), on
``lax.conv_general_dilated`` as JAX's are.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.convolve(jnp.array([1., 2., 3.]), jnp.array([0., 1., 0.5]))
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float32)
"""
from __future__ import annotations

from xjit._src import dtypes
from xjit._src.lax import convolution as lax_conv
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import util


def _conv(x, y, mode, op, precision, preferred_element_type):
    util.check_arraylike(op, x, y)
    if util.ndim_of(x) != 1 or util.ndim_of(y) != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        dt, weak = dtypes.result_type(x, y, return_weak_type_flag=True)
        dt = util.to_inexact(dt)
        util.check_int_operand(x)
        util.check_int_operand(y)
        x, y = util.convert(x, dt, weak), util.convert(y, dt, weak)
    else:
        x, y = util.asarray_any(x), util.asarray_any(y)
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {tuple(x.shape)} and "
                         f"{tuple(y.shape)}.")
    reverse_out = False
    if op == "correlate":
        if y.dtype.kind == "c":
            y = lax_ew.conj(y)
        if x.shape[0] < y.shape[0]:
            x, y = y, x
            reverse_out = True
    else:
        if x.shape[0] < y.shape[0]:
            x, y = y, x
        y = lax_shapes.rev(y, (0,))
    n = y.shape[0]
    if mode == "valid":
        padding = [(0, 0)]
    elif mode == "same":
        padding = [(n // 2, n - n // 2 - 1)]
    elif mode == "full":
        padding = [(n - 1, n - 1)]
    else:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    result = lax_conv.conv_general_dilated(
        lax_shapes.reshape(x, (1, 1, x.shape[0])), lax_shapes.reshape(y, (1, 1, n)), (1,),
        padding, precision=precision, preferred_element_type=preferred_element_type)
    result = lax_shapes.reshape(result, (result.shape[2],))
    return lax_shapes.rev(result, (0,)) if reverse_out else result


def convolve(a, v, mode: str = "full", *, precision=None, preferred_element_type=None):
    """Discrete linear convolution of two 1-d arrays (numpy's modes)."""
    return _conv(a, v, mode, "convolve", precision, preferred_element_type)


def correlate(a, v, mode: str = "valid", *, precision=None, preferred_element_type=None):
    """Cross-correlation of two 1-d arrays (numpy's modes; ``v`` conjugated)."""
    return _conv(a, v, mode, "correlate", precision, preferred_element_type)
