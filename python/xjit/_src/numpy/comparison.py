"""Whole-array comparisons and dtype predicates: ``isclose``, ``allclose``,
``array_equal``, ``array_equiv``, ``isreal``, ``iscomplex``, ``isrealobj``,
``iscomplexobj``, with numpy's (and JAX's) definitions.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.allclose(jnp.array([1.0, 2.0]), jnp.array([1.0, 2.0 + 1e-9]))
    Array(True, dtype=bool)
"""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.numpy import util
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary


@api_boundary
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """``|a - b| <= atol + rtol * |b|`` element-wise; infinities equal only
    themselves, NaNs each other only with ``equal_nan``."""
    a, b = util.promote_args("isclose", a, b)
    if dtypes.kind(a.dtype) in "biu":
        return a == b
    a, b = jnp.asarray(a), jnp.asarray(b)
    rtol = jnp.asarray(rtol, dtype=jnp.real(a).dtype)
    atol = jnp.asarray(atol, dtype=jnp.real(a).dtype)
    finite = jnp.isfinite(a) & jnp.isfinite(b)
    close = jnp.abs(a - b) <= atol + rtol * jnp.abs(b)
    out = jnp.where(finite, close, a == b)
    if equal_nan:
        out = out | (jnp.isnan(a) & jnp.isnan(b))
    return out


@api_boundary
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """Whether every element of ``a`` and ``b`` is close (``isclose``)."""
    return jnp.all(isclose(a, b, rtol, atol, equal_nan))


@api_boundary
def array_equal(a1, a2, equal_nan: bool = False):
    """Whether ``a1`` and ``a2`` have one shape and equal elements."""
    try:
        a1, a2 = jnp.asarray(a1), jnp.asarray(a2)
    except TypeError:
        return False
    if a1.shape != a2.shape:
        return jnp.asarray(False)
    eq = a1 == a2
    if equal_nan and (dtypes.kind(a1.dtype) in "fc" or dtypes.kind(a2.dtype) in "fc"):
        eq = eq | (jnp.isnan(a1) & jnp.isnan(a2))
    return jnp.all(eq)


@api_boundary
def array_equiv(a1, a2):
    """Whether ``a1`` and ``a2`` broadcast together and are equal everywhere."""
    a1, a2 = jnp.asarray(a1), jnp.asarray(a2)
    try:
        util.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return jnp.asarray(False)
    return jnp.all(a1 == a2)


@api_boundary
def iscomplexobj(x) -> bool:
    """Whether ``x``'s dtype is complex (regardless of its values)."""
    if x is None:
        return False
    try:
        return dtypes.kind(util.dtype_of(x)) == "c"
    except (TypeError, ValueError):
        return np.iscomplexobj(x)


@api_boundary
def isrealobj(x) -> bool:
    """Whether ``x``'s dtype is not complex."""
    return not iscomplexobj(x)


@api_boundary
def iscomplex(x):
    """Element-wise: a nonzero imaginary part."""
    x = jnp.asarray(x)
    return jnp.imag(x) != 0 if iscomplexobj(x) else jnp.zeros(x.shape, bool)


@api_boundary
def isreal(x):
    """Element-wise: a zero imaginary part (every element of a real array)."""
    x = jnp.asarray(x)
    return jnp.imag(x) == 0 if iscomplexobj(x) else jnp.ones(x.shape, bool)
