"""Sorting lax ops: ``sort`` (variadic, ``num_keys``), ``sort_key_val`` and
``top_k``, on the StableHLO ``sort`` op with a traced comparator region.

The comparator is JAX's: keys are compared lexicographically; float keys are
canonicalised first (-0.0 becomes 0.0, every NaN the positive quiet NaN) and
compared in total order, so NaNs sort last and -0.0 ties with 0.0 (a stable
sort keeps their order); complex keys compare (real, imag). The cpu backend
recognises the one-key form and sorts with a radix kernel.

Example:
    >>> from xjit import lax
    >>> lax.sort(np.array([3., 1., 2.], np.float32))
    Array([1., 2., 3.], dtype=float32)
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from xjit._src import core, dispatch, tracing
from xjit._src.lax import elementwise as ew
from xjit._src.lax import operands as ops
from xjit._src.lax import shapes
from xjit._src.traceback_util import api_boundary

_region_counter = [0]


def _region_name() -> str:
    _region_counter[0] += 1
    return f"comparator_{_region_counter[0]}"


def _refuse_capture(x) -> None:
    raise NotImplementedError(
        f"sort comparators can't close over Tracers: got {x!r} from an enclosing trace.")


def _compare(x, y, direction: str, dt) -> object:
    """``compare`` of two rank-0 tracers with the compare type ``dt`` requires."""
    k = ops.kind(dt)
    ctype = {"f": "TOTALORDER", "i": "SIGNED", "u": "UNSIGNED", "b": "UNSIGNED"}[k]
    return dispatch.bind("compare", [x, y], {"comparison_direction": direction,
                                             "compare_type": ctype}, weak_type=False)


def _canonical_float(x, dt):
    # JAX's _canonicalize_float_for_sort: -0.0 -> 0.0 and any NaN -> +NaN, so
    # the total order treats them as equal.
    zero = ew._full_like(x, 0)
    result = ew.select(ew.eq(x, zero), zero, x)
    return ew.select(ew.ne(x, x), ew._full_like(x, np.nan), result)


def _keys(x, dt) -> list:
    k = ops.kind(dt)
    if k == "c":
        rdt = np.dtype(np.float32 if dt == np.complex64 else np.float64)
        return [(_canonical_float(ew.real(x), rdt), rdt), (_canonical_float(ew.imag(x), rdt), rdt)]
    if k == "f":
        return [(_canonical_float(x, dt), dt)]
    return [(x, dt)]


def lt_comparator(num_keys: int, dtypes: Sequence[np.dtype], descending: bool = False):
    """JAX's sort comparator on parameters (x0, y0, x1, y1, ...): lexicographic
    ``x < y`` over the first ``num_keys`` operands (``x > y`` when descending)."""
    def comparator(*params):
        xs, ys = params[0::2], params[1::2]
        xk, yk = [], []
        for i in range(num_keys):
            xk += _keys(xs[i], dtypes[i])
            yk += _keys(ys[i], dtypes[i])
        direction = "GT" if descending else "LT"
        p = None
        for (a, dt), (b, _) in zip(reversed(xk), reversed(yk)):
            less = _compare(a, b, direction, dt)
            p = less if p is None else ew.bitwise_or(
                less, ew.bitwise_and(_compare(a, b, "EQ", dt), p))
        return p
    return comparator


def sort_with(operands: Sequence, dimension: int, is_stable: bool, comparator, region_key):
    """The ``sort`` op on lax operands of one shape with a comparator function of
    2N rank-0 tracers; ``region_key`` identifies the comparator for the eager cache."""
    xs = [ops.as_operand(x) for x in operands]
    dtypes = [np.dtype(x.dtype) for x in xs]

    def build_region(mb):
        avals = [core.ShapedArray((), d) for d in dtypes for _ in range(2)]
        return tracing.trace_region(mb, _region_name(), avals, comparator, [np.dtype(np.bool_)],
                                    on_capture=_refuse_capture).computation

    weak = [ops.is_weak(x) for x in operands]
    key = None if region_key is None else (region_key, tuple(d.name for d in dtypes))
    out = dispatch.bind("sort", xs, {"dimension": int(dimension), "is_stable": bool(is_stable)},
                        weak_type=weak, regions=[build_region], region_key=key)
    return out if isinstance(out, list) else [out]


def _check_operands(name: str, operands) -> tuple:
    if not operands:
        raise TypeError(f"{name} requires at least one operand")
    ops.check_arraylike(name, *operands)
    shape = ops.shape_of(operands[0])
    for x in operands:
        if ops.shape_of(x) != shape:
            raise TypeError(f"{name} operands must all have the same shape, got "
                            f"{[ops.shape_of(o) for o in operands]}")
    if not shape:
        raise TypeError(f"{name} requires operands of rank >= 1, got shape ()")
    return shape


def _dimension(name: str, dimension, ndim: int) -> int:
    d = int(dimension)
    if not -ndim <= d < ndim:
        raise ValueError(f"{name}: dimension {d} is out of bounds for arrays of rank {ndim}")
    return d % ndim


@api_boundary
def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """Sort along ``dimension``; a sequence of operands is sorted together by its
    first ``num_keys`` operands (lexicographically), the others permuted alongside.

    Example:
        >>> keys, vals = lax.sort((np.array([2, 1]), np.array([10, 20])))
        >>> vals
        Array([20, 10], dtype=int32)
    """
    single = not isinstance(operand, (tuple, list))
    operands = [operand] if single else list(operand)
    shape = _check_operands("sort", operands)
    num_keys = int(num_keys)
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"sort: num_keys={num_keys} must be at least 1 and at most the number "
                         f"of operands ({len(operands)})")
    d = _dimension("sort", dimension, len(shape))
    dtypes = [ops.dtype_of(x) for x in operands]
    out = sort_with(operands, d, is_stable, lt_comparator(num_keys, dtypes),
                    ("lt", num_keys))
    return out[0] if single else tuple(out)


@api_boundary
def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    """``keys`` sorted along ``dimension`` and ``values`` permuted alongside.

    Example:
        >>> lax.sort_key_val(np.array([3, 1, 2]), np.array([0, 1, 2]))[1]
        Array([1, 2, 0], dtype=int32)
    """
    k, v = sort((keys, values), dimension, is_stable, num_keys=1)
    return k, v


def _top_k_comparator(dt):
    # XLA's TopK order: descending IEEE total order (NaN first, -NaN last,
    # 0.0 before -0.0), ties by lower index (a stable sort).
    def comparator(x, y, ix, iy):
        return _compare(x, y, "GT", dt)
    return comparator


@api_boundary
def top_k(operand, k: int, *, axis: int = -1):
    """The ``k`` largest entries along ``axis`` (last by default), in descending
    order, and their int32 indices; ties go to the lower index.

    Example:
        >>> lax.top_k(np.array([1., 3., 2.], np.float32), 2)
        (Array([3., 2.], dtype=float32), Array([1, 2], dtype=int32))
    """
    ops.check_arraylike("top_k", operand)
    x = ops.as_operand(operand)
    shape = tuple(x.shape)
    if not shape:
        raise TypeError("top_k operand must have >= 1 dimension, got ()")
    d = _dimension("top_k", axis, len(shape))
    if isinstance(k, core.Tracer) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"top_k: k must be a static int, got {k!r}")
    k = int(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if k > shape[d]:
        raise TypeError(f"k argument to top_k must be no larger than size of the reduced "
                        f"axis ({shape[d]}), got {k}")
    dt = np.dtype(x.dtype)
    if ops.kind(dt) == "c":
        raise TypeError("top_k does not accept complex operands")
    iota = shapes.broadcasted_iota(np.int32, shape, d)
    values, indices = sort_with([x, iota], d, True, _top_k_comparator(dt), ("top_k",))
    if k < shape[d]:
        values = shapes.slice_in_dim(values, 0, k, axis=d)
        indices = shapes.slice_in_dim(indices, 0, k, axis=d)
    return values, indices
