"""numpy's ufunc methods on xjit.numpy's binary functions, as JAX's
``jnp.ufunc`` gives them: ``f.outer``, ``f.reduce``, ``f.accumulate`` and
``f.at`` (``inplace=False``), with ``nin``/``nout``/``identity``; the
reductions and scans use the matching xjit reduction (sum, cumsum, ...)
and any other function folds with ``lax.reduce`` / ``associative_scan``.

Example:
    >>> jnp.multiply.outer(jnp.arange(2), jnp.arange(3))
    Array([[0, 0, 0],
           [0, 1, 2]], dtype=int32)
"""
from __future__ import annotations

from xjit._src.numpy import util
from xjit._src.numpy.namespace import jnp


def _reduction_for(name):
    from xjit._src.numpy import reductions
    return {"add": reductions.sum, "multiply": reductions.prod, "maximum": reductions.max,
            "minimum": reductions.min, "logical_and": reductions.all,
            "logical_or": reductions.any}.get(name)


def _scan_for(name):
    from xjit._src.lax import cumulative
    from xjit._src.numpy import cumulative as np_cumulative
    return {"add": np_cumulative.cumsum, "multiply": np_cumulative.cumprod,
            "maximum": lambda a, axis: cumulative.cummax(a, axis=axis),
            "minimum": lambda a, axis: cumulative.cummin(a, axis=axis)}.get(name)


_AT = {"add": "add", "multiply": "multiply", "maximum": "max", "minimum": "min",
       "divide": "divide", "true_divide": "divide", "power": "power"}
_IDENTITY = {"add": 0, "multiply": 1, "logical_and": True, "logical_or": False,
             "logical_xor": False, "bitwise_and": -1, "bitwise_or": 0, "bitwise_xor": 0}


def attach(fn, name: str):
    """Gives the binary function ``fn`` (numpy's ``name``) its ufunc methods."""
    def outer(a, b, /):
        util.check_arraylike(f"{name}.outer", a, b)
        a, b = jnp.asarray(a), jnp.asarray(b)
        return fn(a.reshape(a.shape + (1,) * b.ndim), b)

    def reduce(a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=None):
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to jnp.{name}.reduce is not "
                                      f"supported.")
        known = _reduction_for(name)
        a = jnp.asarray(a)
        if known is not None:
            kw = {"axis": axis, "keepdims": keepdims, "where": where}
            if initial is not None:
                kw["initial"] = initial
            if dtype is not None and name in ("add", "multiply"):
                kw["dtype"] = dtype
            return known(a, **kw)
        if where is not None or initial is not None:
            raise NotImplementedError(f"jnp.{name}.reduce: where/initial need an identity-based "
                                      f"reduction (add, multiply, maximum, ...)")
        from xjit._src.lax import loops
        if axis is None:
            a, axis = jnp.ravel(a), 0
        axis_ = util.canonicalize_axis(axis, a.ndim)
        moved = jnp.moveaxis(a, axis_, 0)
        # The fold in order (numpy's left-to-right result for non-associative functions).
        out_v = loops.scan(lambda c, x: (fn(c, x), None), moved[0], moved[1:])[0]
        return jnp.expand_dims(out_v, axis_) if keepdims else out_v

    def accumulate(a, axis=0, dtype=None, out=None):
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to jnp.{name}.accumulate is not "
                                      f"supported.")
        a = jnp.asarray(a) if dtype is None else jnp.asarray(a).astype(dtype)
        known = _scan_for(name)
        if known is not None:
            return known(a, axis=axis)
        from xjit._src.lax import loops
        axis_ = util.canonicalize_axis(axis, a.ndim)
        moved = jnp.moveaxis(a, axis_, 0)
        _, ys = loops.scan(lambda c, x: (fn(c, x), fn(c, x)), moved[0], moved[1:])
        return jnp.moveaxis(jnp.concatenate([moved[:1], ys]), 0, axis_)

    def at(a, indices, b=None, /, *, inplace: bool = True):
        if inplace:
            raise NotImplementedError("jax.numpy.ufunc.at: inplace=True is not supported; "
                                      "JAX arrays are immutable (pass inplace=False).")
        if b is None:
            raise TypeError(f"{name}.at needs the second operand b")
        ref = jnp.asarray(a).at[indices]
        if name == "subtract":  # repeated indices subtract repeatedly, as numpy's at
            return ref.add(-jnp.asarray(b))
        method = _AT.get(name)
        if method is None:
            raise NotImplementedError(f"jnp.{name}.at is not supported by xjit (add, subtract, "
                                      f"multiply, divide, power, maximum, minimum are)")
        return getattr(ref, method)(b)

    fn.outer, fn.reduce, fn.accumulate, fn.at = outer, reduce, accumulate, at
    fn.nin, fn.nout, fn.nargs = 2, 1, 2
    fn.identity = _IDENTITY.get(name)
    return fn
