"""``vectorize`` and ``apply_along_axis`` as JAX defines them: the function
is mapped with ``vmap`` over the broadcast loop dimensions (the leading
ones, or all but the core dimensions of a gufunc ``signature``).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.vectorize(lambda a, b: a + b)(jnp.ones((2, 3)), jnp.arange(3.0)).shape
    (2, 3)
"""
from __future__ import annotations

import functools
import re

from xjit._src.numpy import util
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary

_DIM = r"\w+"
_CORE = rf"(?:{_DIM}(?:,{_DIM})*)?"
_ARGS = rf"\({_CORE}\)(?:,\({_CORE}\))*"
_SIGNATURE = re.compile(rf"^{_ARGS}->{_ARGS}$")


def _parse_signature(signature: str):
    sig = signature.replace(" ", "")
    if not _SIGNATURE.match(sig):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = sig.split("->")

    def parse(part):
        return [tuple(d for d in arg.split(",") if d) for arg in re.findall(r"\(([^)]*)\)", part)]
    return parse(ins), parse(outs)


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """``pyfunc`` applied element-wise (or over core dimensions of
    ``signature``) by ``vmap`` over the broadcast loop dimensions;
    ``excluded``: positions or names of arguments passed through unmapped."""
    from xjit._src.api_transforms import vmap

    @functools.wraps(pyfunc)
    @api_boundary
    def wrapped(*args, **kwargs):
        fixed_kw = {k: v for k, v in kwargs.items() if k in excluded}
        mapped_kw = {k: v for k, v in kwargs.items() if k not in excluded}
        names = list(mapped_kw)
        positions = [i for i in range(len(args)) if i not in excluded]
        values = [jnp.asarray(args[i]) for i in positions] + [jnp.asarray(mapped_kw[k])
                                                             for k in names]
        if signature is None:
            cores = [()] * len(values)
        else:
            cores, _ = _parse_signature(signature)
            if len(cores) != len(values):
                raise TypeError(f"wrong number of positional arguments: expected {len(cores)}, "
                                f"got {len(values)}")
        loops = []
        for v, core in zip(values, cores):
            if v.ndim < len(core):
                raise ValueError(f"input with shape {v.shape} does not have enough dimensions "
                                 f"for its core dimensions {core}")
            loops.append(v.shape[:v.ndim - len(core)])
        loop_shape = util.broadcast_shapes(*loops) if loops else ()
        values = [jnp.broadcast_to(v, loop_shape + v.shape[v.ndim - len(c):])
                  for v, c in zip(values, cores)]

        def call(*vals):
            full = list(args)
            for i, v in zip(positions, vals[:len(positions)]):
                full[i] = v
            kw = dict(fixed_kw)
            kw.update(zip(names, vals[len(positions):]))
            return pyfunc(*full, **kw)

        f = call
        for _ in loop_shape:
            f = vmap(f)
        return f(*values)
    return wrapped


@api_boundary
def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
    """``func1d`` applied to the 1-d slices of ``arr`` along ``axis``."""
    from xjit._src.api_transforms import vmap
    util.check_arraylike("apply_along_axis", arr)
    arr = jnp.asarray(arr)
    axis = util.canonicalize_axis(axis, arr.ndim)
    f = lambda x: func1d(x, *args, **kwargs)  # noqa: E731
    # vmap the other axes away, the ones after `axis` innermost.
    for i in range(1, arr.ndim - axis):
        f = vmap(f, in_axes=-1, out_axes=-1)
    for i in range(axis):
        f = vmap(f, in_axes=0, out_axes=0)
    return f(arr)
