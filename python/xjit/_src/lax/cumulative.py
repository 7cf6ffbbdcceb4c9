"""Cumulative lax reductions (cumsum, cumprod, cummax, cummin, cumlogsumexp):
real and integer cumsum as a reduce_window over the whole axis, the others
as log-step prefix scans.

Each of the ceil(log2(n)) steps combines the array with a copy of itself shifted
by 2**k along the axis (``pad`` with the combiner's identity, which also drops
the elements pushed off the end), so the graph stays small (O(log n) ops), every
step is one element-wise pass over the array and integer results are exact.
``reverse=True`` shifts the other way instead of reversing the array twice.

Example:
    >>> from xjit import lax
    >>> lax.cumsum(np.array([1, 2, 3, 4], np.int32))
    Array([ 1,  3,  6, 10], dtype=int32)
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from xjit._src.lax import elementwise as ew
from xjit._src.lax import operands as ops
from xjit._src.lax import reductions
from xjit._src.lax import shapes
from xjit._src.traceback_util import api_boundary

_NUMBER = ("iufc", "number")
_ORDERED = ("iufc", "number")
_FLOATING = ("fc", "inexact")


def prefix_scan(x, axis: int, combine: Callable, identity, reverse: bool = False):
    """Inclusive scan of ``combine`` (associative) along ``axis`` of xjit value ``x``.

    ``identity`` is a numpy scalar of ``x``'s dtype with ``combine(v, identity) == v``.
    Element i of the result combines elements 0..i (``reverse``: i..n-1), grouped
    as a balanced tree, not left to right.
    """
    n = x.shape[axis]
    pad_value = np.asarray(identity, x.dtype)
    shift = 1
    while shift < n:
        config = [(0, 0, 0)] * x.ndim
        config[axis] = (-shift, shift, 0) if reverse else (shift, -shift, 0)
        x = combine(x, shapes.pad(x, pad_value, config))
        shift *= 2
    return x


def _wrap_between(x, a: float):
    """``x`` wrapped into [-a, a)."""
    two_a = 2 * a
    rem = ew.rem(ew.add(x, a), two_a)
    rem = ew.select(ew.lt(rem, ew._full_like(rem, 0)), ew.add(rem, two_a), rem)
    return ew.sub(rem, a)


def _logaddexp(a, b):
    """log(exp(a) + exp(b)) without overflow (JAX's logaddexp). Real: equal
    infinities (or NaN) take a + b; complex: the imaginary part wrapped to [-pi, pi)."""
    amax = ew.max(a, b)
    if ops.kind(a.dtype) == "c":
        delta = ew.sub(ew.add(a, b), ew.mul(amax, 2))
        out = ew.add(amax, ew.log1p(ew.exp(delta)))
        return ew.complex(ew.real(out), _wrap_between(ew.imag(out), np.pi))
    delta = ew.sub(a, b)
    stable = ew.add(amax, ew.log1p(ew.exp(ew.neg(ew.abs(delta)))))
    return ew.select(ew.ne(delta, delta), ew.add(a, b), stable)


def _scan_identity(monoid: str, dt: np.dtype):
    if monoid == "logaddexp":
        return np.array(-np.inf).astype(dt)
    if ops.kind(dt) == "c" and monoid in ("maximum", "minimum"):  # lexicographic order: -inf + 0j is below every finite value
        return np.array(-np.inf if monoid == "maximum" else np.inf).astype(dt)
    return reductions._identity(monoid, dt)


def _cumulative(name: str, operand, axis, reverse, accepted, combine, monoid):
    ops.check_arraylike(name, operand)
    x = ops.as_operand(operand)
    if not isinstance(x, ops.VALUE_TYPES):
        x = ops.concrete_value(x, ops.is_weak(operand))
    dt = np.dtype(x.dtype)
    if dt == np.bool_ or ops.kind(dt) not in accepted[0]:
        raise TypeError(f"{name} does not accept dtype {dt.name}. Accepted dtypes are "
                        f"subtypes of {accepted[1]}.")
    try:
        axis = int(axis)
    except TypeError:
        raise TypeError(f"{name}: axis must be a static Python int, got {axis!r}") from None
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of shape {tuple(x.shape)}")
    axis = axis + x.ndim if axis < 0 else axis
    n = x.shape[axis]
    if monoid == "add" and ops.kind(dt) in "iuf" and n >= 2:
        # A window over the whole axis, padded on one side (JAX's TPU
        # lowering): backends run it as one pass adding left to right, as
        # numpy does (cpu/cumulative_sum.h), where the log-step scan below
        # makes ceil(log2(n)) passes.
        from xjit._src.lax import windowed
        window = [1] * x.ndim
        window[axis] = n
        padding = [(0, 0)] * x.ndim
        padding[axis] = (0, n - 1) if reverse else (n - 1, 0)
        return windowed.reduce_window_sum(x, window, [1] * x.ndim, padding)
    identity = _scan_identity(monoid, dt)
    return prefix_scan(x, axis, combine, identity, bool(reverse))


@api_boundary
def cumsum(operand, axis: int = 0, reverse: bool = False):
    """Cumulative sum along ``axis`` (from the end when ``reverse``).

    Example:
        >>> lax.cumsum(np.ones(3, np.float32), reverse=True)
        Array([3., 2., 1.], dtype=float32)
    """
    return _cumulative("cumsum", operand, axis, reverse, _NUMBER, ew.add, "add")


@api_boundary
def cumprod(operand, axis: int = 0, reverse: bool = False):
    """Cumulative product along ``axis``.

    Example:
        >>> lax.cumprod(np.array([1, 2, 3], np.int32))
        Array([1, 2, 6], dtype=int32)
    """
    return _cumulative("cumprod", operand, axis, reverse, _NUMBER, ew.mul, "multiply")


@api_boundary
def cummax(operand, axis: int = 0, reverse: bool = False):
    """Cumulative maximum along ``axis`` (NaN propagates, as ``lax.max``).

    Example:
        >>> lax.cummax(np.array([1, 3, 2], np.int32))
        Array([1, 3, 3], dtype=int32)
    """
    return _cumulative("cummax", operand, axis, reverse, _ORDERED, ew.max, "maximum")


@api_boundary
def cummin(operand, axis: int = 0, reverse: bool = False):
    """Cumulative minimum along ``axis`` (NaN propagates, as ``lax.min``).

    Example:
        >>> lax.cummin(np.array([3, 1, 2], np.int32))
        Array([3, 1, 1], dtype=int32)
    """
    return _cumulative("cummin", operand, axis, reverse, _ORDERED, ew.min, "minimum")


@api_boundary
def cumlogsumexp(operand, axis: int = 0, reverse: bool = False):
    """Cumulative ``log(sum(exp(x)))`` along ``axis``, computed without overflow.

    Example:
        >>> lax.cumlogsumexp(np.zeros(2, np.float32))
        Array([0.       , 0.6931472], dtype=float32)
    """
    return _cumulative("cumlogsumexp", operand, axis, reverse, _FLOATING, _logaddexp,
                       "logaddexp")
