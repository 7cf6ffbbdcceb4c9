"""Counting into bins with JAX's semantics: ``bincount``, ``digitize``,
``histogram_bin_edges``, ``histogram``, ``histogram2d``, ``histogramdd``.

Everything is a ``searchsorted`` (which bin) and a scatter-add (``.at[].add``)
into a zero array, so it runs under jit once the number of bins is static.
As in JAX: ``bincount`` clips negative values into bin 0 and drops values at
or past ``length``; without ``length`` it needs a concrete input; ``bins`` as
a string is not supported.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.bincount(jnp.array([1, 1, 3]))
    Array([0, 2, 0, 1], dtype=int32)
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from xjit._src import core, dtypes
from xjit._src.errors import ConcretizationTypeError
from xjit._src.numpy import creation, differences, elementwise, reductions, shape_ops, util
from xjit._src.numpy.index_tricks import ravel_multi_index
from xjit._src.numpy.sorting import searchsorted


def _static_index(value, what: str, fun: str) -> int:
    """``operator.index(value)``; JAX's ConcretizationTypeError for a traced one."""
    if isinstance(value, core.Tracer):
        known = value._known()
        if known is None:
            raise ConcretizationTypeError(
                value, f"The error occurred because of argument '{what}' of jnp.{fun}.")
        value = known
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"jnp.{fun}: {what} must be an integer, got {value!r}") from None


def _inexact(fun: str, *args):
    """``args`` as arrays promoted together to an inexact dtype (not broadcast)."""
    util.check_arraylike(fun, *args)
    promoted = util.promote_dtypes(*(util.asarray_any(a) for a in args))
    dt = util.to_inexact(promoted[0].dtype)
    return [util.convert(a, dt) for a in promoted]


def bincount(x, weights=None, minlength=0, *, length=None):
    """Number of occurrences (or summed ``weights``) of each value of the 1-d
    integer array ``x``. Negative values count in bin 0; with a static
    ``length`` (needed under jit) values at or past it are dropped.

    Example:
        >>> jnp.bincount(jnp.array([-1, 1, 3, 10]), length=4)
        Array([1, 1, 0, 1], dtype=int32)
    """
    util.check_arraylike("bincount", x)
    x = util.asarray_any(x)
    if x.dtype == np.bool_:
        x = util.convert(x, np.int32)
    if not dtypes.issubdtype(x.dtype, np.integer):
        raise TypeError(f"x argument to bincount must have an integer type; got {x.dtype}")
    if x.ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = _static_index(minlength, "minlength", "bincount")
    if minlength < 0:
        raise ValueError(f"bincount: minlength must be non-negative, got {minlength}")
    if length is None:
        known = x._known() if isinstance(x, core.Tracer) else np.asarray(x)
        if known is None:
            raise ConcretizationTypeError(
                x, "The error occurred because of argument 'x' of jnp.bincount. "
                   "To avoid this error, pass a static `length` argument.")
        length = max(minlength, int(max(0, known.max())) + 1 if known.size else 0)
    else:
        length = _static_index(length, "length", "bincount")
        if length < 0:
            raise ValueError(f"bincount: length must be non-negative, got {length}")
    if weights is None:
        weights = np.array(1, dtype=dtypes.default_int_dtype())
        dtype = weights.dtype
    else:
        util.check_arraylike("bincount", weights)
        weights = util.asarray_any(weights)
        if tuple(weights.shape) != tuple(x.shape):
            raise ValueError(f"bincount: weights must have the shape of x {tuple(x.shape)}, "
                             f"got {tuple(weights.shape)}")
        dtype = weights.dtype
    bins = elementwise.clip(x, 0)
    return creation.zeros(length, dtype).at[bins].add(weights, mode="drop")


def digitize(x, bins, right=False, *, method=None):
    """Index of the bin of each value of ``x`` for monotonic 1-d ``bins``
    (increasing or decreasing), as ``numpy.digitize``.

    Example:
        >>> jnp.digitize(jnp.array([1.0, 2.5, 3.5]), jnp.array([1, 2, 3]))
        Array([1, 2, 3], dtype=int32)
    """
    util.check_arraylike("digitize", x, bins)
    x, edges = util.asarray_any(x), util.asarray_any(bins)
    if isinstance(right, core.Tracer):
        raise ConcretizationTypeError(right, "The right argument of jnp.digitize() must be static.")
    if edges.ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins!r}")
    n = edges.shape[0]
    if n == 0:
        return creation.zeros_like(x, dtype=np.int32)
    side = "left" if right else "right"
    kw = {} if method is None else {"method": method}
    rising = searchsorted(edges, x, side=side, **kw)
    falling = n - searchsorted(edges[::-1], x, side=side, **kw)
    return elementwise.where(edges[-1] >= edges[0], rising, falling)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """The ``bins + 1`` edges ``histogram`` uses: evenly spaced over ``range``
    (the data's min and max when None, widened by 0.5 each way when they are
    equal), or ``bins`` itself when it is a 1-d array of edges.

    Example:
        >>> jnp.histogram_bin_edges(jnp.array([1., 5.]), bins=4)
        Array([1., 2., 3., 4., 5.], dtype=float32)
    """
    del weights  # only string bins would use them, which are not supported
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    util.check_arraylike("histogram_bin_edges", a)
    arr = util.asarray_any(a)
    dtype = util.to_inexact(arr.dtype)
    if np.ndim(bins) == 1:
        return creation.asarray(bins, dtype=dtype)
    count = _static_index(bins, "bins", "histogram_bin_edges")
    if count < 1:
        raise ValueError(f"histogram_bin_edges: bins must be positive, got {count}")
    lohi = creation.asarray([reductions.min(arr), reductions.max(arr)] if range is None
                            else range, dtype=dtype)
    if tuple(lohi.shape) != (2,):
        raise ValueError(f"`range` must be either None or a sequence of scalars, got {range}")
    flat = reductions.ptp(lohi) == 0
    lo = elementwise.where(flat, lohi[0] - 0.5, lohi[0])
    hi = elementwise.where(flat, lohi[1] + 0.5, lohi[1])
    return creation.linspace(lo, hi, count + 1, dtype=dtype)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """``(counts, edges)`` of ``a`` (flattened) over ``bins``; the last bin
    includes its right edge; values outside the edges are not counted.

    Example:
        >>> jnp.histogram(jnp.array([1., 2., 2., 4.]), bins=3)[0]
        Array([1., 2., 1.], dtype=float32)
    """
    if weights is None:
        (arr,) = _inexact("histogram", a)
        weights = creation.ones_like(arr)
    else:
        if np.shape(a) != np.shape(weights):
            raise ValueError("weights should have the same shape as a.")
        arr, weights = _inexact("histogram", a, weights)
    edges = histogram_bin_edges(arr, bins, range, weights)
    n_edges = edges.shape[0]
    idx = searchsorted(edges, arr, side="right")
    idx = elementwise.where(arr == edges[-1], n_edges - 1, idx)
    counts = creation.zeros(n_edges, weights.dtype).at[idx].add(weights)[1:]
    if density:
        counts = counts / differences.diff(edges) / reductions.sum(counts)
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """``(hist, [edges per dimension])`` of ``N`` points of shape ``(N, D)``.

    Example:
        >>> h, _ = jnp.histogramdd(jnp.array([[0., 0.], [1., 1.]]), bins=2)
        >>> h
        Array([[1, 0],
               [0, 1]], dtype=int32)
    """
    if weights is None:
        (pts,) = _inexact("histogramdd", sample)
    else:
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        pts, weights = _inexact("histogramdd", sample, weights)
    if pts.ndim != 2:
        raise ValueError(f"histogramdd: sample must have shape (N, D), got {tuple(pts.shape)}")
    n, d = pts.shape
    if range is not None and (len(range) != d or any(
            r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence "
                         f"of {d} pairs or Nones; got range={range}")
    try:
        per_dim = list(bins)
    except TypeError:
        per_dim = d * [bins]
    else:
        if len(per_dim) != d:
            raise ValueError("should be a bin for each dimension.")
    indices, edges = [], []
    for i in builtins.range(d):
        col = pts[:, i]
        e = histogram_bin_edges(col, per_dim[i], None if range is None else range[i], weights)
        idx = searchsorted(e, col, side="right")
        indices.append(elementwise.where(col == e[-1], idx - 1, idx))
        edges.append(e)
    # Bin 0 and bin len(e) hold the values outside the edges; cut them off.
    nbins = tuple(e.shape[0] + 1 for e in edges)
    flat = ravel_multi_index(tuple(indices), nbins, mode="clip")
    hist = shape_ops.reshape(bincount(flat, weights, length=math.prod(nbins)), nbins)
    hist = hist[d * (slice(1, -1),)]
    if density:
        hist = hist.astype(pts.dtype)
        hist = hist / reductions.sum(hist)
        for i, e in enumerate(edges):
            shape = [1] * d
            shape[i] = nbins[i] - 2
            hist = hist / shape_ops.reshape(differences.diff(e), shape)
    return hist, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """``(hist, x_edges, y_edges)`` of the points ``(x[i], y[i])``.

    Example:
        >>> h, _, _ = jnp.histogram2d(jnp.array([0., 1.]), jnp.array([0., 1.]), bins=2)
        >>> h
        Array([[1, 0],
               [0, 1]], dtype=int32)
    """
    util.check_arraylike("histogram2d", x, y)
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):
        bins = [creation.asarray(bins)] * 2
    pts = shape_ops.stack(util.promote_args("histogram2d", x, y), axis=1)
    hist, edges = histogramdd(pts, bins, range, weights, density)
    return hist, edges[0], edges[1]

