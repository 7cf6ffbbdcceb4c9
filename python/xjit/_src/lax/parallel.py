"""Collectives over named vmap axes, as JAX's: ``psum``, ``pmean``, ``pmax``,
``pmin`` and ``axis_index`` inside ``vmap(..., axis_name=...)``.

``vmap`` binds its axis name while it traces (``axis_env.bound_axis``); a collective
looks the name up (JAX's ``NameError: unbound axis name`` outside) and adds a
call marked ``xjit_collective_<kind>_<axis id>`` (transforms/collectives.h),
which the C++ vmap of that axis turns into a reduction over the batch (or an
iota). psum is linear, so it differentiates (and transposes) as itself.

Example:
    >>> import xjit, xjit.numpy as jnp
    >>> xjit.vmap(lambda x: x / lax.psum(x, "i"), axis_name="i")(jnp.array([1., 3.]))
    Array([0.25, 0.75], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit._src import api_transforms as api
from xjit._src import core, dispatch, dtypes, tracing
from xjit._src.axis_env import lookup as _lookup
from xjit._src.custom_derivatives import _wrapper
from xjit._src.lax import elementwise
from xjit._src.tree_util import tree_map

def _names(axis_name) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _check_groups(axis_index_groups) -> None:
    if axis_index_groups is not None:
        raise NotImplementedError("axis_index_groups is only supported under pmap; vmap does "
                                  "not support it")


def _collective(kind: str, x, axis_id: int):
    trace = core.current_trace()
    if kind == "index":
        comp = _wrapper(trace, f"xjit_collective_index_{axis_id}", [],
                        lambda cb, p: [cb.constant(np.array(0, np.int32))])
        return dispatch.bind("call", [], {}, weak_type=[False], regions=[lambda mb: comp])
    aval = tracing.leaf_aval(x)
    if aval.dtype == np.bool_:
        x, aval = elementwise.convert_element_type(x, np.int32), core.ShapedArray(
            aval.shape, np.dtype(np.int32), False)
    comp = _wrapper(trace, f"xjit_collective_{kind}_{axis_id}", [aval], lambda cb, p: [p[0]])
    return dispatch.bind("call", [api._operand(x, aval)], {}, weak_type=[aval.weak_type],
                         regions=[lambda mb: comp])


def _reduce(kind: str, x, axis_name):
    ids = [_lookup(n)[1] for n in _names(axis_name)]

    def one(leaf):
        for axis_id in ids:
            leaf = _collective(kind, leaf, axis_id)
        return leaf
    return tree_map(one, x)


def psum(x, axis_name, *, axis_index_groups=None):
    """The sum of ``x`` (a pytree) over the named vmap axis (or tuple of axes).

    Example:
        >>> xjit.vmap(lambda x: lax.psum(x, "i"), axis_name="i")(jnp.arange(3.))
        Array([3., 3., 3.], dtype=float32)
    """
    _check_groups(axis_index_groups)
    return _reduce("psum", x, axis_name)


def pmax(x, axis_name, *, axis_index_groups=None):
    """The maximum of ``x`` over the named vmap axis (not differentiable yet)."""
    _check_groups(axis_index_groups)
    return _reduce("pmax", x, axis_name)


def pmin(x, axis_name, *, axis_index_groups=None):
    """The minimum of ``x`` over the named vmap axis (not differentiable yet)."""
    _check_groups(axis_index_groups)
    return _reduce("pmin", x, axis_name)


def pmean(x, axis_name, *, axis_index_groups=None):
    """The mean of ``x`` over the named vmap axis: psum divided by the axis size
    (integers become the default float type, as in JAX).

    Example:
        >>> xjit.vmap(lambda x: lax.pmean(x, "i"), axis_name="i")(jnp.arange(3.))
        Array([1., 1., 1.], dtype=float32)
    """
    _check_groups(axis_index_groups)
    n = 1
    for name in _names(axis_name):
        n *= _lookup(name)[0]
    total = psum(x, axis_name)

    def divide(s):
        a = tracing.leaf_aval(s)
        if not api._is_float(a.dtype):
            s = elementwise.convert_element_type(s, dtypes.default_float_dtype())
        return elementwise.div(s, np.array(n, tracing.leaf_aval(s).dtype))
    return tree_map(divide, total)


def axis_index(axis_name):
    """The position (int32) of the current lane along the named vmap axis.

    Example:
        >>> xjit.vmap(lambda x: x * lax.axis_index("i"), axis_name="i")(jnp.ones(3))
        Array([0., 1., 2.], dtype=float32)
    """
    if isinstance(axis_name, (tuple, list)):
        out, stride = None, 1
        for name in reversed(axis_name):
            size, _ = _lookup(name)
            term = elementwise.mul(axis_index(name), np.int32(stride))
            out = term if out is None else elementwise.add(out, term)
            stride *= size
        return out
    return _collective("index", None, _lookup(axis_name)[1])
