"""select and piecewise: choose element-wise among several values by conditions.

Example:
    >>> import xjit.numpy as jnp
    >>> x = jnp.arange(5)
    >>> jnp.select([x < 2, x > 3], [x, x * 10], default=-1)
    Array([ 0,  1, -1, -1, 40], dtype=int32)
"""
from __future__ import annotations

from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import elementwise
from xjit._src.numpy import util


def select(condlist, choicelist, default=0):
    """The choice of the first true condition, element-wise (``default`` where none is).

    Example:
        >>> jnp.select([jnp.array([True, False])], [jnp.array([1, 2])], 9)
        Array([1, 9], dtype=int32)
    """
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist "
                         f"({len(condlist)} vs {len(choicelist)})")
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    util.check_arraylike("select", *condlist, *choicelist, default)
    choices = util.promote_dtypes(default, *choicelist)
    conds = [elementwise._to_bool(util.asarray_any(c)) for c in condlist]
    shape = util.broadcast_shapes(*(util.shape_of(v) for v in conds + choices))
    out = util.broadcast_to(choices[0], shape)
    # The first true condition wins: apply them from the last one.
    for cond, choice in reversed(list(zip(conds, choices[1:]))):
        out = lax_ew.select(util.broadcast_to(cond, shape), util.broadcast_to(choice, shape),
                            out)
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i](x)`` (or the constant ``funclist[i]``) where ``condlist[i]``
    holds, the last true condition winning; one extra function (or constant) is the
    value where no condition holds (0 by default). The functions are evaluated on
    all of ``x``, as in JAX, so they must be element-wise.

    Example:
        >>> x = jnp.array([-2.0, 0.5, 3.0])
        >>> jnp.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v * 2, 0.0])
        Array([2., 0., 6.], dtype=float32)
    """
    util.check_arraylike("piecewise", x)
    x_arr = util.asarray_any(x)
    if isinstance(condlist, (list, tuple)):
        util.check_arraylike("piecewise", *condlist)
        conds = [elementwise._to_bool(util.asarray_any(c)) for c in condlist]
    else:
        util.check_arraylike("piecewise", condlist)
        stacked = util.asarray_any(condlist)
        if stacked.ndim == 0:
            raise ValueError("piecewise: condlist must be a sequence of conditions")
        conds = [elementwise._to_bool(lax_shapes.index_in_dim(stacked, i, 0, False))
                 for i in range(stacked.shape[0])]
    nc, nf = len(conds), len(funclist)
    if nf == nc + 1:
        funclist = list(funclist[-1:]) + list(funclist[:-1])
    elif nf == nc:
        funclist = [0] + list(funclist)
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are "
                         f"expected; got {nf}")
    dt = x_arr.dtype

    def value(f):
        v = f(x_arr, *args, **kw) if callable(f) else f
        return util.broadcast_to(util.convert(v, dt, False), x_arr.shape)

    # The last true condition wins: apply them in order.
    out = value(funclist[0])
    for cond, f in zip(conds, funclist[1:]):
        out = lax_ew.select(util.broadcast_to(cond, x_arr.shape), value(f), out)
    return out
