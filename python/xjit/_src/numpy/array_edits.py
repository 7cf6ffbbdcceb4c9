"""Whole-array constructions from others, as numpy defines them: ``copy``, ``append``,
``delete`` and ``insert`` (static positions), ``rot90``, ``kron``,
``cross``, ``diagflat``, ``hsplit``/``vsplit``/``dsplit``, ``rollaxis``,
``trapezoid``, ``ediff1d``, ``cov``, ``corrcoef``, ``isin``.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.kron(jnp.eye(2), jnp.ones((1, 2)))
    Array([[1., 1., 0., 0.],
           [0., 0., 1., 1.]], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import core
from xjit._src.errors import ConcretizationTypeError
from xjit._src.numpy import util
from xjit._src.numpy.comparison import iscomplexobj
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary


@api_boundary
def copy(a, order=None):
    """A copy of ``a`` (xjit arrays are immutable: the same values, a new array)."""
    del order
    util.check_arraylike("copy", a)
    return jnp.array(a, copy=True)


@api_boundary
def append(arr, values, axis=None):
    """``arr`` followed by ``values`` (both flattened when ``axis`` is None)."""
    util.check_arraylike("append", arr, values)
    if axis is None:
        return jnp.concatenate([jnp.ravel(arr), jnp.ravel(values)])
    return jnp.concatenate([arr, values], axis=axis)


def _static_positions(obj, n, name):
    if isinstance(obj, core.Tracer):
        raise ConcretizationTypeError(obj, f"in the positions of jnp.{name}")
    if isinstance(obj, slice):
        return np.arange(n)[obj]
    pos = np.asarray(obj)
    if pos.dtype == bool:
        if pos.shape != (n,):
            raise ValueError(f"{name}: a boolean mask must have length {n}, got {pos.shape}")
        return np.nonzero(pos)[0]
    if pos.dtype.kind not in "iu":
        raise IndexError(f"{name}: positions must be integers, got {pos.dtype}")
    return pos


@api_boundary
def delete(arr, obj, axis=None, *, assume_unique_indices: bool = False):
    """``arr`` without the entries at static positions ``obj`` along ``axis``."""
    del assume_unique_indices
    util.check_arraylike("delete", arr)
    a = jnp.asarray(arr)
    if axis is None:
        a, axis = jnp.ravel(a), 0
    axis = util.canonicalize_axis(axis, a.ndim)
    n = a.shape[axis]
    pos = _static_positions(obj, n, "delete").ravel()
    if np.any((pos < -n) | (pos >= n)):
        raise IndexError(f"delete: index out of bounds for axis {axis} with size {n}")
    keep = np.ones(n, bool)
    keep[pos % n if n else pos] = False
    return jnp.take(a, jnp.asarray(np.nonzero(keep)[0].astype(np.int32)), axis=axis)


@api_boundary
def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before static positions ``obj`` along
    ``axis`` (numpy's rules: one scalar position takes a block of values)."""
    util.check_arraylike("insert", arr, values)
    a = jnp.asarray(arr)
    if axis is None:
        a, axis = jnp.ravel(a), 0
    axis = util.canonicalize_axis(axis, a.ndim)
    n = a.shape[axis]
    pos = _static_positions(obj, n + 1, "insert")
    v = jnp.asarray(values, a.dtype)
    v = v.reshape((1,) * (a.ndim - v.ndim) + v.shape)
    if pos.size == 1 and np.ndim(obj) == 0 and not isinstance(obj, slice):
        v = jnp.moveaxis(v, 0, axis)
    numnew = v.shape[axis] if pos.size == 1 else pos.size
    shape = list(a.shape)
    shape[axis] = numnew
    v = jnp.broadcast_to(v, shape)
    # Where numpy puts each old entry (>= 0) and each new one (-1 - j).
    layout = np.insert(np.arange(n), pos.item() if pos.size == 1 else pos.ravel(),
                       -1 - np.arange(numnew))
    take = np.where(layout >= 0, layout, n - 1 - layout).astype(np.int32)
    return jnp.take(jnp.concatenate([a, v], axis=axis), jnp.asarray(take), axis=axis)


@api_boundary
def rot90(m, k: int = 1, axes=(0, 1)):
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``."""
    util.check_arraylike("rot90", m)
    m = jnp.asarray(m)
    k = operator.index(k) % 4
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    ax0, ax1 = (util.canonicalize_axis(a, m.ndim) for a in axes)
    if ax0 == ax1:
        raise ValueError("Axes must be different.")
    if k == 0:
        return m
    if k == 2:
        return jnp.flip(jnp.flip(m, ax0), ax1)
    perm = list(range(m.ndim))
    perm[ax0], perm[ax1] = perm[ax1], perm[ax0]
    if k == 1:
        return jnp.transpose(jnp.flip(m, ax1), perm)
    return jnp.flip(jnp.transpose(m, perm), ax1)


@api_boundary
def kron(a, b):
    """Kronecker product: blocks ``a[i, j] * b``."""
    util.check_arraylike("kron", a, b)
    a, b = jnp.asarray(a), jnp.asarray(b)
    nd = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.reshape((1,) * (nd - b.ndim) + b.shape)
    ae = a.reshape(sum(((d, 1) for d in a.shape), ()))
    be = b.reshape(sum(((1, d) for d in b.shape), ()))
    return (ae * be).reshape(tuple(x * y for x, y in zip(a.shape, b.shape)))


@api_boundary
def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis=None):
    """Cross product of vectors of 2 or 3 components (2-vectors: the z component)."""
    util.check_arraylike("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = jnp.moveaxis(jnp.asarray(a), axisa, -1)
    b = jnp.moveaxis(jnp.asarray(b), axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a0, a1 = a[..., 0], a[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else jnp.zeros_like(a0)
    b0, b1 = b[..., 0], b[..., 1]
    b2 = b[..., 2] if b.shape[-1] == 3 else jnp.zeros_like(b0)
    c = jnp.stack(jnp.broadcast_arrays(a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0),
                  axis=-1)
    return jnp.moveaxis(c, -1, axisc)


@api_boundary
def diagflat(v, k: int = 0):
    """A 2-d array with the flattened ``v`` on diagonal ``k``."""
    util.check_arraylike("diagflat", v)
    return jnp.diag(jnp.ravel(v), k)


def _split_along(name, axis, min_ndim):
    @api_boundary
    def split(ary, indices_or_sections):
        util.check_arraylike(name, ary)
        a = jnp.asarray(ary)
        if a.ndim < min_ndim:
            raise ValueError(f"{name} only works on arrays of {min_ndim} or more dimensions")
        ax = 0 if (name == "hsplit" and a.ndim == 1) else axis
        return jnp.split(a, indices_or_sections, axis=ax)
    split.__name__ = split.__qualname__ = name
    split.__doc__ = f"numpy's ``{name}``: ``split`` along axis {axis}."
    return split


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 2)
dsplit = _split_along("dsplit", 2, 3)


@api_boundary
def rollaxis(a, axis: int, start: int = 0):
    """``axis`` moved to before position ``start`` (numpy's older ``moveaxis``)."""
    util.check_arraylike("rollaxis", a)
    a = jnp.asarray(a)
    n = a.ndim
    axis = util.canonicalize_axis(axis, n)
    if not -n <= start <= n:
        raise ValueError(f"start={start} must satisfy {-n} <= start <= {n}")
    start = start + n if start < 0 else start
    if axis < start:
        start -= 1
    return jnp.moveaxis(a, axis, start)


@api_boundary
def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """Integral of ``y`` over ``axis`` by the trapezoidal rule."""
    util.check_arraylike("trapezoid", y)
    y = jnp.moveaxis(jnp.asarray(y), axis, -1)
    if x is None:
        dxs = jnp.asarray(dx)
    else:
        x = jnp.asarray(x)
        dxs = jnp.diff(x) if x.ndim == 1 else jnp.diff(jnp.moveaxis(x, axis, -1), axis=-1)
    (y,) = util.promote_args_inexact("trapezoid", y)
    return jnp.sum(dxs * (y[..., 1:] + y[..., :-1]), axis=-1) * 0.5


@api_boundary
def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened ``ary``, with ``to_begin``/``to_end`` around them."""
    util.check_arraylike("ediff1d", ary)
    a = jnp.ravel(ary)
    parts = [a[1:] - a[:-1]]
    if to_begin is not None:
        parts.insert(0, jnp.ravel(jnp.asarray(to_begin, a.dtype)))
    if to_end is not None:
        parts.append(jnp.ravel(jnp.asarray(to_end, a.dtype)))
    return jnp.concatenate(parts)


@api_boundary
def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof=None, fweights=None,
        aweights=None):
    """Covariance matrix of the variables (rows if ``rowvar``) of ``m`` (and ``y``)."""
    util.check_arraylike("cov", m)
    x = jnp.atleast_2d(jnp.asarray(m))
    if not rowvar and x.shape[0] != 1:
        x = x.T
    if y is not None:
        yy = jnp.atleast_2d(jnp.asarray(y))
        if not rowvar and yy.shape[0] != 1:
            yy = yy.T
        x = jnp.concatenate([x, yy], axis=0)
    (x,) = util.promote_args_inexact("cov", x)
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fweights is not None:
        w = jnp.asarray(fweights).astype(x.dtype)
    if aweights is not None:
        aw = jnp.asarray(aweights).astype(x.dtype)
        w = aw if w is None else w * aw
    if w is None:
        avg = jnp.mean(x, axis=1)
        fact = x.shape[1] - ddof
        xc = x - avg[:, None]
        return jnp.squeeze((xc @ jnp.conj(xc).T) / fact)
    w_sum = jnp.sum(w)
    avg = jnp.sum(x * w, axis=1) / w_sum
    if aweights is None:
        fact = w_sum - ddof
    else:
        fact = w_sum - ddof * jnp.sum(w * jnp.asarray(aweights).astype(x.dtype)) / w_sum
    xc = x - avg[:, None]
    return jnp.squeeze(((xc * w) @ jnp.conj(xc).T) / fact)


@api_boundary
def corrcoef(x, y=None, rowvar: bool = True):
    """Pearson correlation coefficients (``cov`` normalised; real parts clipped to [-1, 1])."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return c / c
    d = jnp.diag(c)
    s = jnp.sqrt(jnp.real(d))
    c = c / s[:, None] / s[None, :]
    if iscomplexobj(c):
        return jnp.clip(jnp.real(c), -1, 1) + 1j * jnp.clip(jnp.imag(c), -1, 1)
    return jnp.clip(c, -1, 1)


@api_boundary
def isin(element, test_elements, assume_unique: bool = False, invert: bool = False, *,
         method: str = "auto"):
    """Element-wise: whether each element of ``element`` is in ``test_elements``."""
    del assume_unique, method
    util.check_arraylike("isin", element, test_elements)
    e = jnp.asarray(element)
    t = jnp.ravel(test_elements)
    found = jnp.any(e[..., None] == t, axis=-1) if t.shape[0] else jnp.zeros(e.shape, bool)
    return ~found if invert else found
