"""Set functions on 1-d arrays built on ``unique`` and ``isin``:
``intersect1d``, ``union1d``, ``setdiff1d``, ``setxor1d`` (traced inputs
need ``size``, as in JAX) and the array API's ``unique_values``,
``unique_counts``, ``unique_inverse``, ``unique_all``.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.setdiff1d(jnp.array([1, 2, 3, 4]), jnp.array([2, 4]))
    Array([1, 3], dtype=int32)
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from xjit._src.numpy import util
from xjit._src.numpy.array_edits import isin
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary


def _concrete_or_sized(name, size, *arrays):
    if size is None and any(util.is_tracer(a) for a in arrays):
        from xjit._src.errors import ConcretizationTypeError
        raise ConcretizationTypeError(
            next(a for a in arrays if util.is_tracer(a)),
            f"The size argument of jnp.{name} must be specified when used inside a trace.")


def _select(values, keep, size, fill_value):
    """The elements of sorted ``values`` where ``keep`` holds (``size`` of
    them, then ``fill_value``: by default the smallest kept one, as JAX)."""
    if size is None:
        return values[np.asarray(keep)]
    (idx,) = jnp.nonzero(keep, size=size, fill_value=values.shape[0])
    if fill_value is None:
        fill_value = jnp.min(jnp.where(keep, values, jnp.max(values))) if values.shape[0] else 0
    out = jnp.take(values, idx, mode="fill", fill_value=0)
    return jnp.where(idx < values.shape[0], out, jnp.asarray(fill_value, values.dtype))


def _sorted_firsts(x):
    """``x`` flattened and sorted, and where each distinct value first occurs in it."""
    s = jnp.sort(jnp.ravel(x))
    first = jnp.concatenate([jnp.ones(min(s.shape[0], 1), bool), s[1:] != s[:-1]])
    return s, first


@api_boundary
def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted unique elements of either array."""
    util.check_arraylike("union1d", ar1, ar2)
    _concrete_or_sized("union1d", size, ar1, ar2)
    s, first = _sorted_firsts(jnp.concatenate([jnp.ravel(ar1), jnp.ravel(ar2)]))
    return _select(s, first, size, fill_value)


@api_boundary
def setdiff1d(ar1, ar2, assume_unique: bool = False, *, size=None, fill_value=None):
    """The sorted unique elements of ``ar1`` not in ``ar2``."""
    del assume_unique
    util.check_arraylike("setdiff1d", ar1, ar2)
    _concrete_or_sized("setdiff1d", size, ar1, ar2)
    s, first = _sorted_firsts(ar1)
    return _select(s, first & ~isin(s, ar2), size, fill_value)


@api_boundary
def intersect1d(ar1, ar2, assume_unique: bool = False, return_indices: bool = False, *,
                size=None, fill_value=None):
    """The sorted unique elements in both arrays (with their first indices in
    each when ``return_indices``: concrete input)."""
    del assume_unique
    util.check_arraylike("intersect1d", ar1, ar2)
    _concrete_or_sized("intersect1d", size, ar1, ar2)
    if not return_indices:
        s, first = _sorted_firsts(ar1)
        return _select(s, first & isin(s, ar2), size, fill_value)
    if size is not None:
        raise NotImplementedError("intersect1d: return_indices with size= is not supported")
    a1, a2 = jnp.ravel(ar1), jnp.ravel(ar2)
    u1, i1 = jnp.unique(a1, return_index=True)
    u2, i2 = jnp.unique(a2, return_index=True)
    keep1 = np.asarray(isin(u1, u2))
    keep2 = np.asarray(isin(u2, u1))
    return u1[keep1], i1[keep1], i2[keep2]


@api_boundary
def setxor1d(ar1, ar2, assume_unique: bool = False, *, size=None, fill_value=None):
    """The sorted unique elements in exactly one of the arrays."""
    del assume_unique
    util.check_arraylike("setxor1d", ar1, ar2)
    _concrete_or_sized("setxor1d", size, ar1, ar2)
    s, first = _sorted_firsts(jnp.concatenate([jnp.ravel(ar1), jnp.ravel(ar2)]))
    return _select(s, first & (isin(s, ar1) != isin(s, ar2)), size, fill_value)


class UniqueAllResult(NamedTuple):
    values: object
    indices: object
    inverse_indices: object
    counts: object


class UniqueCountsResult(NamedTuple):
    values: object
    counts: object


class UniqueInverseResult(NamedTuple):
    values: object
    inverse_indices: object


@api_boundary
def unique_values(x, /, *, size=None, fill_value=None):
    """The array API's ``unique_values``: ``unique(x)``."""
    return jnp.unique(x, size=size, fill_value=fill_value)


@api_boundary
def unique_counts(x, /, *, size=None, fill_value=None):
    """The array API's ``unique_counts``: values and their counts."""
    v, c = jnp.unique(x, return_counts=True, size=size, fill_value=fill_value)
    return UniqueCountsResult(v, c)


@api_boundary
def unique_inverse(x, /, *, size=None, fill_value=None):
    """The array API's ``unique_inverse``: values and where each element of ``x`` went."""
    v, inv = jnp.unique(x, return_inverse=True, size=size, fill_value=fill_value)
    return UniqueInverseResult(v, jnp.reshape(inv, jnp.shape(x)))


@api_boundary
def unique_all(x, /, *, size=None, fill_value=None):
    """The array API's ``unique_all``: values, first indices, inverse, counts."""
    v, idx, inv, c = jnp.unique(x, return_index=True, return_inverse=True, return_counts=True,
                                size=size, fill_value=fill_value)
    return UniqueAllResult(v, idx, jnp.reshape(inv, jnp.shape(x)), c)
