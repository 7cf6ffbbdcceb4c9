"""Products of xjit.numpy: matmul, dot, vdot, inner, outer, tensordot.

All lower to ``lax.dot_general`` after JAX's dtype promotion. Mismatched contracting
dimensions raise TypeError, as JAX's ``dot_general`` does.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.matmul(jnp.ones((5, 2, 3)), jnp.ones((3, 4))).shape
    (5, 2, 4)
"""
from __future__ import annotations

import numpy as np

from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import linalg as lax_linalg
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import elementwise
from xjit._src.numpy import shape_ops
from xjit._src.numpy import util


def _promote(name, a, b):
    util.check_arraylike(name, a, b)
    return util.promote_dtypes(a, b)


def _dot_general(a, b, contract, batch=((), ()), preferred_element_type=None):
    if a.dtype == np.bool_:
        # Bool products are logical OR of ANDs; compute in int32 and compare.
        ai, bi = util.convert(a, np.int32), util.convert(b, np.int32)
        out = lax_linalg.dot_general(ai, bi, (contract, batch))
        return lax_ew.ne(out, util.broadcast_to(util.convert(0, np.int32), out.shape))
    kwargs = {}
    if preferred_element_type is not None:
        kwargs["preferred_element_type"] = preferred_element_type
    return lax_linalg.dot_general(a, b, (contract, batch), **kwargs)


def matmul(a, b, *, precision=None, preferred_element_type=None):
    """Matrix product with numpy's rules: 1-D operands gain then lose an axis,
    leading (batch) axes broadcast.

    Example:
        >>> jnp.matmul(jnp.ones((2, 3)), jnp.ones(3))
        Array([3., 3.], dtype=float32)
    """
    a, b = _promote("matmul", a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: operands must not be scalars, got shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    # The shapes after numpy's promotion of 1-D operands to matrices.
    a_shape = (1,) + tuple(a.shape) if a_vec else tuple(a.shape)
    b_shape = tuple(b.shape) + (1,) if b_vec else tuple(b.shape)
    if a_shape[-1] != b_shape[-2]:
        raise TypeError(f"matmul: contracting dimensions differ: shapes "
                         f"{a_shape} and {b_shape} ({a_shape[-1]} != {b_shape[-2]})")
    if a.ndim <= 2 and b.ndim <= 2:
        # No batch axes: one contraction of the operands as they are (as jnp.dot
        # does), rather than reshaping vectors to matrices and back.
        return _dot_general(a, b, ((a.ndim - 1,), (0,)), preferred_element_type=preferred_element_type)
    if a_vec:
        a = lax_shapes.reshape(a, a_shape)
    if b_vec:
        b = lax_shapes.reshape(b, b_shape)
    try:
        batch = util.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ValueError(f"matmul: batch dimensions of shapes {tuple(a.shape)} and "
                         f"{tuple(b.shape)} do not broadcast") from None
    nb = len(batch)
    a = util.broadcast_to(a, batch + tuple(a.shape[-2:]))
    b = util.broadcast_to(b, batch + tuple(b.shape[-2:]))
    bdims = tuple(range(nb))
    out = _dot_general(a, b, ((nb + 1,), (nb,)), (bdims, bdims), preferred_element_type)
    shape = tuple(out.shape)
    if a_vec and b_vec:
        shape = shape[:-2]
    elif a_vec:
        shape = shape[:-2] + shape[-1:]
    elif b_vec:
        shape = shape[:-1]
    return lax_shapes.reshape(out, shape) if shape != tuple(out.shape) else out


def dot(a, b, *, precision=None, preferred_element_type=None):
    """numpy's ``dot``: scalars multiply; otherwise contract a's last axis with b's
    second-to-last (last for 1-D b).

    Example:
        >>> jnp.dot(jnp.arange(3.0), jnp.arange(3.0))
        Array(5., dtype=float32)
    """
    a, b = _promote("dot", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return elementwise.multiply(a, b)
    b_axis = 0 if b.ndim == 1 else b.ndim - 2
    if a.shape[-1] != b.shape[b_axis]:
        raise TypeError(f"dot: shapes {tuple(a.shape)} and {tuple(b.shape)} not aligned: "
                         f"{a.shape[-1]} (dim {a.ndim - 1}) != {b.shape[b_axis]} (dim {b_axis})")
    return _dot_general(a, b, ((a.ndim - 1,), (b_axis,)), preferred_element_type=preferred_element_type)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of the flattened inputs, conjugating the first.

    Example:
        >>> jnp.vdot(jnp.array([1j, 2]), jnp.array([1j, 2]))
        Array(5.+0.j, dtype=complex64)
    """
    a, b = _promote("vdot", a, b)
    a, b = shape_ops.ravel(elementwise.conjugate(a)), shape_ops.ravel(b)
    if a.shape != b.shape:
        raise TypeError(f"vdot: vectors have different sizes {a.shape[0]} and {b.shape[0]}")
    return _dot_general(a, b, ((0,), (0,)), preferred_element_type=preferred_element_type)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Contract the last axes of ``a`` and ``b``.

    Example:
        >>> jnp.inner(jnp.ones((2, 3)), jnp.ones((4, 3))).shape
        (2, 4)
    """
    a, b = _promote("inner", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return elementwise.multiply(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise TypeError(f"inner: last dimensions differ: {tuple(a.shape)} and {tuple(b.shape)}")
    return _dot_general(a, b, ((a.ndim - 1,), (b.ndim - 1,)),
                        preferred_element_type=preferred_element_type)


def outer(a, b, out=None):
    """Outer product of the flattened inputs.

    Example:
        >>> jnp.outer(jnp.arange(2), jnp.arange(3)).shape
        (2, 3)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
    a, b = _promote("outer", a, b)
    a, b = shape_ops.ravel(a), shape_ops.ravel(b)
    return elementwise.multiply(lax_shapes.reshape(a, (a.shape[0], 1)), lax_shapes.reshape(b, (1, b.shape[0])))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    """Sum products over ``axes`` (an int: a's last and b's first axes; or two lists).

    Example:
        >>> jnp.tensordot(jnp.ones((2, 3, 4)), jnp.ones((3, 4, 5))).shape
        (2, 5)
    """
    a, b = _promote("tensordot", a, b)
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > min(a.ndim, b.ndim):
            raise ValueError(f"tensordot: number of axes {n} exceeds the operands' rank")
        ca, cb = tuple(range(a.ndim - n, a.ndim)), tuple(range(n))
    else:
        try:
            ax_a, ax_b = axes
        except (TypeError, ValueError):
            raise TypeError("tensordot axes argument must be an int or a pair of sequences, "
                            f"got {axes!r}") from None
        ax_a = [ax_a] if isinstance(ax_a, (int, np.integer)) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, (int, np.integer)) else list(ax_b)
        if len(ax_a) != len(ax_b):
            raise TypeError("tensordot requires axes lists of equal length, got "
                            f"{ax_a} and {ax_b}")
        ca = tuple(util.canonicalize_axis(i, a.ndim) for i in ax_a)
        cb = tuple(util.canonicalize_axis(i, b.ndim) for i in ax_b)
    for i, j in zip(ca, cb):
        if a.shape[i] != b.shape[j]:
            raise TypeError(f"tensordot: shape mismatch on contracted axes: {tuple(a.shape)} "
                             f"axis {i} vs {tuple(b.shape)} axis {j}")
    return _dot_general(a, b, (ca, cb), preferred_element_type=preferred_element_type)
