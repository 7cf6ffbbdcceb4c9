"""More of numpy's array functions: the array API's ``vecdot``, ``matvec``,
``vecmat`` and ``unstack``; ``compress``, ``choose``, ``resize``,
``unwrap`` and ``block``, with numpy's semantics (JAX's static-shape
forms).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.vecdot(jnp.ones((2, 3)), jnp.arange(3.0))
    Array([3., 3.], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import core
from xjit._src.errors import ConcretizationTypeError
from xjit._src.numpy import util
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary


@api_boundary
def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """Dot products of vectors along ``axis`` (the first conjugated), broadcast elsewhere."""
    del precision, preferred_element_type
    util.check_arraylike("vecdot", x1, x2)
    a, b = jnp.asarray(x1), jnp.asarray(x2)
    if a.shape[axis] != b.shape[axis]:
        raise ValueError(f"vecdot: the axes to contract have sizes {a.shape[axis]} and "
                         f"{b.shape[axis]}")
    return jnp.sum(jnp.conj(jnp.moveaxis(a, axis, -1)) * jnp.moveaxis(b, axis, -1), axis=-1)


@api_boundary
def matvec(x1, x2, /):
    """Matrix-vector products ``x1 @ x2`` over broadcast batch dimensions."""
    util.check_arraylike("matvec", x1, x2)
    return jnp.matmul(x1, jnp.asarray(x2)[..., None])[..., 0]


@api_boundary
def vecmat(x1, x2, /):
    """Vector-matrix products ``conj(x1) @ x2`` over broadcast batch dimensions."""
    util.check_arraylike("vecmat", x1, x2)
    return jnp.matmul(jnp.conj(jnp.asarray(x1))[..., None, :], x2)[..., 0, :]


@api_boundary
def unstack(x, /, *, axis: int = 0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    util.check_arraylike("unstack", x)
    x = jnp.asarray(x)
    if x.ndim == 0:
        raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was "
                         "passed.")
    x = jnp.moveaxis(x, axis, 0)
    return tuple(x[i] for i in range(x.shape[0]))


@api_boundary
def compress(condition, a, axis=None, *, size=None, fill_value=0):
    """The slices of ``a`` along ``axis`` where the 1-d ``condition`` is true
    (``a`` flattened when ``axis`` is None); a traced condition needs ``size``."""
    util.check_arraylike("compress", condition, a)
    cond = jnp.asarray(condition)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1D array")
    a = jnp.asarray(a)
    if axis is None:
        a, axis = jnp.ravel(a), 0
    axis = util.canonicalize_axis(axis, a.ndim)
    n = min(cond.shape[0], a.shape[axis])
    cond = cond[:n].astype(bool)
    a = jnp.take(a, jnp.arange(n), axis=axis)
    if size is None:
        if isinstance(cond, core.Tracer):
            raise ConcretizationTypeError(cond, "in compress without size=")
        return jnp.take(a, jnp.asarray(np.nonzero(np.asarray(cond))[0].astype(np.int32)),
                        axis=axis)
    (idx,) = jnp.nonzero(cond, size=size, fill_value=n)
    out = jnp.take(a, idx, axis=axis, mode="fill", fill_value=fill_value)
    return out


@api_boundary
def choose(a, choices, out=None, mode: str = "raise"):
    """``choices[a[i]][i]`` element-wise, ``a`` indexing the list of broadcast
    choices (``mode``: "clip" or "wrap"; "raise" needs concrete indices)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    util.check_arraylike("choose", a, *choices)
    a = jnp.asarray(a)
    if jnp.dtype(a.dtype).kind not in "iu":
        raise TypeError(f"choose: a must be an integer array, got {a.dtype}")
    n = len(choices)
    if mode == "raise":
        if isinstance(a, core.Tracer):
            raise ConcretizationTypeError(a, "in choose with mode='raise'; use 'clip' or 'wrap'")
        if np.any((np.asarray(a) < 0) | (np.asarray(a) >= n)):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = a % n
    elif mode == "clip":
        a = jnp.clip(a, 0, n - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    arrays = jnp.broadcast_arrays(a, *choices)
    stacked = jnp.stack(arrays[1:])
    return jnp.take_along_axis(stacked, arrays[0][None].astype(jnp.int32), axis=0)[0]


@api_boundary
def resize(a, new_shape):
    """``a`` flattened, repeated as often as needed and cut to ``new_shape``."""
    util.check_arraylike("resize", a)
    shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else tuple(
        operator.index(d) for d in new_shape)
    if any(d < 0 for d in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    flat = jnp.ravel(a)
    total = int(np.prod(shape, dtype=np.int64))
    if flat.shape[0] == 0 or total == 0:
        return jnp.zeros(shape, flat.dtype)
    reps = -(-total // flat.shape[0])
    return jnp.tile(flat, reps)[:total].reshape(shape)


@api_boundary
def unwrap(p, discont=None, axis: int = -1, period=2 * np.pi):
    """``p`` with jumps larger than ``discont`` (default ``period / 2``) along
    ``axis`` replaced by their ``period`` complement."""
    util.check_arraylike("unwrap", p)
    (p,) = util.promote_args_inexact("unwrap", p)
    if discont is None:
        discont = period / 2
    p = jnp.moveaxis(p, axis, -1)
    dd = jnp.diff(p, axis=-1)
    half = period / 2
    ddmod = jnp.mod(dd + half, period) - half
    ddmod = jnp.where((ddmod == -half) & (dd > 0), half, ddmod)
    correction = jnp.where(jnp.abs(dd) < discont, 0, ddmod - dd)
    out = jnp.concatenate([p[..., :1], p[..., 1:] + jnp.cumsum(correction, axis=-1)], axis=-1)
    return jnp.moveaxis(out, -1, axis)


@api_boundary
def block(arrays):
    """An array assembled from nested lists of blocks (innermost lists join
    along the last axis, the next along the one before, ...)."""

    def depth(x):
        return 1 + depth(x[0]) if isinstance(x, list) and x else (1 if isinstance(x, list)
                                                                    else 0)
    if isinstance(arrays, tuple):
        raise TypeError("jax.numpy.block does not allow tuples, got a tuple")
    d = depth(arrays)
    leaves = []

    def collect(x):
        if isinstance(x, list):
            for y in x:
                collect(y)
        else:
            leaves.append(jnp.asarray(x))
    collect(arrays)
    nd = max([d] + [leaf.ndim for leaf in leaves])

    def assemble(x, level):
        if not isinstance(x, list):
            x = jnp.asarray(x)
            return x.reshape((1,) * (nd - x.ndim) + x.shape)
        if not x:
            raise ValueError("Lists cannot be empty")
        return jnp.concatenate([assemble(y, level + 1) for y in x], axis=nd - d + level)
    return assemble(arrays, 0)


def _refuse_inplace(name, inplace):
    if inplace:
        raise ValueError(f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays "
                         "are immutable. Pass inplace=False to instead return an updated array.")


@api_boundary
def put(a, ind, v, mode=None, *, inplace: bool = True):
    """``a`` with the flat positions ``ind`` set to ``v`` (repeated as needed);
    xjit arrays are immutable, so ``inplace=False`` is required, as in JAX."""
    _refuse_inplace("put", inplace)
    util.check_arraylike("put", a, ind, v)
    a = jnp.asarray(a)
    ind = jnp.ravel(ind)
    v = jnp.ravel(jnp.asarray(v, a.dtype))
    if ind.shape[0] == 0 or v.shape[0] == 0:
        return a
    v = jnp.tile(v, -(-ind.shape[0] // v.shape[0]))[:ind.shape[0]]
    n = a.size
    if mode is None or mode == "fill":
        scatter_mode = "drop"
    elif mode == "clip":
        ind, scatter_mode = jnp.clip(ind, 0, n - 1), None
    elif mode == "wrap":
        ind, scatter_mode = ind % n, None
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    flat = jnp.ravel(a)
    flat = flat.at[ind].set(v, mode=scatter_mode) if scatter_mode else flat.at[ind].set(v)
    return flat.reshape(a.shape)


@api_boundary
def place(arr, mask, vals, *, inplace: bool = True):
    """``arr`` with the positions where ``mask`` is true set to ``vals`` in
    order (repeated); ``inplace=False`` is required, as in JAX."""
    _refuse_inplace("place", inplace)
    util.check_arraylike("place", arr, mask, vals)
    a = jnp.asarray(arr)
    m = jnp.ravel(jnp.asarray(mask)).astype(bool)
    v = jnp.ravel(jnp.asarray(vals, a.dtype))
    if m.shape[0] != a.size:
        raise ValueError("place: mask and data must be the same size")
    if v.shape[0] == 0:
        return a
    # The k-th true position takes vals[k % len(vals)].
    k = jnp.cumsum(m) - 1
    filled = jnp.take(v, k % v.shape[0])
    return jnp.where(m, filled, jnp.ravel(a)).reshape(a.shape)


@api_boundary
def extract(condition, arr, *, size=None, fill_value=0):
    """The elements of ``arr`` where ``condition`` is true, flattened (``compress`` on both)."""
    util.check_arraylike("extract", condition, arr)
    return compress(jnp.ravel(condition), jnp.ravel(arr), size=size, fill_value=fill_value)


@api_boundary
def sort_complex(a):
    """``a`` sorted by real part, then imaginary part, as complex."""
    util.check_arraylike("sort_complex", a)
    a = jnp.asarray(a)
    order = jnp.lexsort((jnp.imag(a), jnp.real(a)), axis=-1)
    out = jnp.take_along_axis(a, order, axis=-1)
    return out.astype(jnp.result_type(out.dtype, jnp.complex64))


@api_boundary
def trim_zeros(filt, trim: str = "fb"):
    """``filt`` without its leading (``"f"``) and/or trailing (``"b"``) zeros
    (concrete input: the result's length depends on the values)."""
    util.check_arraylike("trim_zeros", filt)
    if util.is_tracer(filt):
        raise ConcretizationTypeError(filt, "in trim_zeros: the result size depends on values")
    f = np.asarray(filt)
    if f.ndim != 1:
        raise ValueError("trim_zeros requires a 1-d array")
    nz = np.nonzero(f)[0]
    if nz.size == 0:
        return jnp.asarray(f[:0])
    start = nz[0] if "f" in trim.lower() else 0
    stop = nz[-1] + 1 if "b" in trim.lower() else f.shape[0]
    return jnp.asarray(filt)[start:stop]


@api_boundary
def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied for each axis in turn, keeping the reduced dims."""
    util.check_arraylike("apply_over_axes", a)
    a = jnp.asarray(a)
    for axis in axes:
        b = func(a, axis)
        if b.ndim == a.ndim - 1:
            b = jnp.expand_dims(b, axis)
        elif b.ndim != a.ndim:
            raise ValueError("function is not returning an array of the correct shape")
        a = b
    return a
