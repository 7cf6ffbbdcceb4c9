"""logsumexp, shared by ``xjit.nn`` and ``xjit.scipy.special`` (JAX keeps it in
``jax._src.ops.special`` for the same reason: both public modules export it).

The maximum over the reduced axes is subtracted before ``exp`` (clamped to
the finite range, so all -inf or an inf gives the right limit), and added back
after the ``log``.

Example:
    >>> logsumexp(np.zeros(4, np.float32))
    Array(1.3862944, dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import elementwise
from xjit._src.numpy import reductions
from xjit._src.numpy import util


def reduction_dims(a, axis) -> tuple:
    """The reduced axes of ``a`` for ``axis`` (None, an int or a sequence), sorted."""
    if axis is None:
        return tuple(range(a.ndim))
    if isinstance(axis, (tuple, list)):
        return util.canonicalize_axes(tuple(axis), a.ndim)
    return (util.canonicalize_axis(axis, a.ndim),)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``log(sum(b * exp(a)))`` over ``axis``, computed without overflow.

    With ``return_sign`` it returns ``(log|sum|, sign(sum))``; otherwise a negative
    sum gives NaN. ``where`` selects the elements that take part.

    Example:
        >>> logsumexp(np.array([1000.0, 1000.0], np.float32))
        Array(1000.6932, dtype=float32)
    """
    if where is not None:
        util.check_arraylike("logsumexp", where)
        a = elementwise.where(where, a, 0)
    if b is not None:
        a_arr, b_arr = util.promote_args_inexact("logsumexp", a, b)
        a_arr = elementwise.where(elementwise.not_equal(b_arr, 0), a_arr, -np.inf)
    else:
        a_arr, = util.promote_args_inexact("logsumexp", a)
        b_arr = None
    dims = reduction_dims(a_arr, axis)
    is_complex = dtypes.issubdtype(a_arr.dtype, np.complexfloating)
    amax = reductions.max(elementwise.real(a_arr), axis=dims, keepdims=keepdims, where=where,
                          initial=-np.inf)
    # JAX takes 0 where the maximum is not finite; clamping it into the
    # finite range gives the same results (an all -inf row: -inf; an inf: inf;
    # NaN stays NaN) with ops the generated row kernels cover (max and min,
    # not is_finite and select), so the whole reduction fuses into one.
    big = dtypes.finfo(amax.dtype).max
    amax = lax_ew.max(lax_ew.min(amax, lax_ew._full_like(amax, big)), lax_ew._full_like(amax, -big))
    amax_with_dims = amax if keepdims else lax_shapes.expand_dims(amax, dims)
    amax_with_dims = util.broadcast_to(
        util.convert(amax_with_dims, a_arr.dtype, False), a_arr.shape)
    exp_a = lax_ew.exp(lax_ew.sub(a_arr, amax_with_dims))
    if b_arr is not None:
        exp_a = lax_ew.mul(exp_a, b_arr)
    sumexp = reductions.sum(exp_a, axis=dims, keepdims=keepdims, where=where)
    sign = lax_ew.sign(sumexp)
    if return_sign or not is_complex:
        sumexp = elementwise.absolute(sumexp)
    out = lax_ew.add(lax_ew.log(sumexp),
                     util.convert(amax, sumexp.dtype, False))  # astype: strong
    if return_sign:
        return out, sign
    if b_arr is not None and not is_complex:
        out = elementwise.where(lax_ew.lt(sign, lax_ew._full_like(sign, 0)),
                                util.convert(np.nan, out.dtype, False), out)
    return out
