"""``xjit.ops``: JAX's segment reductions, ``segment_sum``/``_prod``/``_max``/
``_min``: ``data`` rows combined by ``segment_ids`` into ``num_segments``
rows with one scatter (ids outside ``[0, num_segments)`` are dropped; empty
segments hold the reduction's identity).

Example:
    >>> from xjit import ops
    >>> ops.segment_sum(jnp.arange(4.0), jnp.array([0, 0, 1, 1]), num_segments=2)
    Array([1., 5.], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import core, dtypes
from xjit._src.errors import ConcretizationTypeError
from xjit._src.numpy import util
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary


def _segment(name, combine, identity, data, segment_ids, num_segments, indices_are_sorted,
             unique_indices, bucket_size, mode):
    del bucket_size
    util.check_arraylike(name, data, segment_ids)
    data, ids = jnp.asarray(data), jnp.asarray(segment_ids)
    if dtypes.kind(ids.dtype) not in "iu":
        raise TypeError(f"{name}: segment_ids must be integers, got {ids.dtype}")
    if ids.ndim != 1 or data.ndim < 1 or ids.shape[0] != data.shape[0]:
        raise ValueError(f"{name}: segment_ids must be 1-d with data's leading length "
                         f"{data.shape[:1]}, got shape {ids.shape}")
    if num_segments is None:
        if isinstance(ids, core.Tracer):
            raise ConcretizationTypeError(ids, f"in {name} without num_segments")
        num_segments = int(np.max(np.asarray(ids))) + 1 if ids.shape[0] else 0
    n = operator.index(num_segments)
    out = jnp.full((n,) + data.shape[1:], identity(data.dtype), data.dtype)
    # Negative ids are out of range too (.at would count them from the end).
    ref = out.at[jnp.where(ids < 0, n, ids)]
    return getattr(ref, combine)(data, indices_are_sorted=indices_are_sorted,
                                 unique_indices=unique_indices,
                                 mode="drop" if mode is None else mode)


def _lowest(dt):
    return dtypes.iinfo(dt).min if dtypes.kind(dt) in "iu" else dtypes.extreme_value(dt, True)


def _highest(dt):
    return dtypes.iinfo(dt).max if dtypes.kind(dt) in "iu" else dtypes.extreme_value(dt, False)


def _make(name, combine, identity):
    @api_boundary
    def reduce(data, segment_ids, num_segments=None, indices_are_sorted=False,
               unique_indices=False, bucket_size=None, mode=None):
        return _segment(name, combine, identity, data, segment_ids, num_segments,
                        indices_are_sorted, unique_indices, bucket_size, mode)
    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = (f"``data`` rows {combine}-combined per segment id into "
                      f"``num_segments`` rows.")
    return reduce


segment_sum = _make("segment_sum", "add", lambda dt: 0)
segment_prod = _make("segment_prod", "multiply", lambda dt: 1)
segment_max = _make("segment_max", "max", _lowest)
segment_min = _make("segment_min", "min", _highest)
