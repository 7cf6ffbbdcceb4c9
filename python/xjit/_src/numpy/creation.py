"""Array creation in xjit.numpy: array, asarray, zeros, ones, full, arange, linspace, eye.

Default dtypes follow JAX: float32 for floats and int32 for integers (64-bit with x64).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.arange(3).dtype, jnp.zeros(2).dtype
    (dtype('int32'), dtype('float32'))
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import dtypes
from xjit._src.errors import ConcretizationTypeError
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import elementwise
from xjit._src.numpy import shape_ops
from xjit._src.numpy import util


def _leaves(obj, out):
    if isinstance(obj, (list, tuple)):
        for o in obj:
            _leaves(o, out)
    else:
        out.append(obj)
    return out


def array(object, dtype=None, copy=True, order="K", ndmin=0):  # noqa: A002
    """Create an array (JAX's dtype rules: Python ints -> int32, floats -> float32).

    A bare Python scalar gives a weakly typed array; lists give strong arrays whose
    dtype is the JAX promotion of their elements.

    Example:
        >>> jnp.array([1, 2.5])
        Array([1. , 2.5], dtype=float32)
    """
    want = util.requested_dtype(dtype)
    if util.is_xjit_value(object):
        out = object if want is None else util.convert(object, want, False)
    elif isinstance(object, (list, tuple)):
        leaves = _leaves(object, [])
        for leaf in leaves:
            if not util.is_arraylike(leaf):
                raise TypeError(f"Unexpected input type for array: {type(leaf)}")
        if any(util.is_tracer(leaf) for leaf in leaves):
            out = _stack_nested(object, want)
        else:
            if want is None:
                want = (dtypes.result_type(*leaves) if leaves
                        else dtypes.default_float_dtype())
            np_leaves_obj = _to_numpy_nested(object)
            out = util.convert(np.array(np_leaves_obj, dtype=_np_compute_dtype(want)).astype(want),
                               want, False)
    elif isinstance(object, (bool, int, float, complex)):
        if want is None:
            want, weak = dtypes.result_type(object, return_weak_type_flag=True)
        else:
            weak = False
        out = util.convert(object, want, weak)
    elif isinstance(object, (np.ndarray, np.generic)) or hasattr(object, "__array__"):
        arr = np.asarray(object)
        if arr.dtype == np.object_:
            raise TypeError(f"Unexpected input type for array: {type(object)}")
        if want is None:
            want = dtypes.canonicalize_dtype(dtypes.dtype(arr))
        out = util.convert(arr, want, False)
    else:
        raise TypeError(f"Unexpected input type for array: {type(object)}")
    if ndmin > out.ndim:
        out = lax_shapes.reshape(out, (1,) * (ndmin - out.ndim) + tuple(out.shape))
    return out


def _np_compute_dtype(dt):
    return np.float32 if dt == np.dtype(dtypes.bfloat16) else dt


def _to_numpy_nested(obj):
    if isinstance(obj, (list, tuple)):
        return [_to_numpy_nested(o) for o in obj]
    if util.is_xjit_value(obj):
        return np.asarray(obj)
    return obj


def _stack_nested(obj, want):
    if isinstance(obj, (list, tuple)):
        parts = [_stack_nested(o, want) for o in obj]
        if not parts:
            raise ValueError("cannot create an array from an empty sequence inside jit")
        out = shape_ops.stack(parts)
    else:
        out = util.asarray_any(obj)
    return out if want is None else util.convert(out, want, False)


def asarray(a, dtype=None, order=None, *, copy=None, device=None):
    """Convert to an array without copying xjit arrays of the right dtype.

    Example:
        >>> jnp.asarray(np.float64(1.5)).dtype
        dtype('float32')
    """
    if copy is False and not util.is_xjit_value(a):
        raise ValueError("jnp.asarray(..., copy=False) cannot avoid a copy of a host value")
    return array(a, dtype=dtype)


def _fill(shape, fill_value, dtype):
    shape = util.canonical_shape(shape)
    want = util.requested_dtype(dtype)
    if util.is_xjit_value(fill_value):
        if fill_value.ndim:
            v = fill_value if want is None else util.convert(fill_value, want, False)
            return util.broadcast_to(v, shape)
    util.check_arraylike("full", fill_value)
    if want is None:
        want, weak = dtypes.result_type(fill_value, return_weak_type_flag=True)
    else:
        weak = False
    if util.shape_of(fill_value) != ():
        return util.broadcast_to(util.convert(fill_value, want, weak), shape)
    return util.broadcast_to(util.convert(fill_value, want, weak), shape)


def zeros(shape, dtype=None, *, device=None):
    """An array of zeros (float32 by default).

    Example:
        >>> jnp.zeros((2, 2), jnp.int32)
        Array([[0, 0],
               [0, 0]], dtype=int32)
    """
    return _fill(shape, 0, dtype if dtype is not None else dtypes.default_float_dtype())


def ones(shape, dtype=None, *, device=None):
    """An array of ones (float32 by default).

    Example:
        >>> jnp.ones(3)
        Array([1., 1., 1.], dtype=float32)
    """
    return _fill(shape, 1, dtype if dtype is not None else dtypes.default_float_dtype())


def empty(shape, dtype=None, *, device=None):
    """Same as ``zeros`` (xjit arrays are immutable, so contents are defined).

    Example:
        >>> jnp.empty(2).shape
        (2,)
    """
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None, *, device=None):
    """An array filled with ``fill_value`` (broadcast if it is an array).

    A Python scalar fill without ``dtype`` gives a weakly typed array, as in JAX.

    Example:
        >>> jnp.full((2,), 7)
        Array([7, 7], dtype=int32, weak_type=True)
    """
    return _fill(shape, fill_value, dtype)


def _like(name, a, fill_value, dtype, shape):
    util.check_arraylike(name, a)
    want = util.requested_dtype(dtype)
    weak = False
    if want is None:
        want = util.dtype_of(a)
        weak = util.is_weak(a)
    shp = util.shape_of(a) if shape is None else util.canonical_shape(shape)
    if util.is_xjit_value(fill_value) and fill_value.ndim:
        return util.broadcast_to(util.convert(fill_value, want, weak), shp)
    return util.broadcast_to(util.convert(fill_value, want, weak), shp)


def zeros_like(a, dtype=None, shape=None, *, device=None):
    """Zeros with the shape and dtype (and weak type) of ``a``.

    Example:
        >>> jnp.zeros_like(jnp.arange(3))
        Array([0, 0, 0], dtype=int32)
    """
    return _like("zeros_like", a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None, *, device=None):
    """Ones with the shape and dtype of ``a``.

    Example:
        >>> jnp.ones_like(jnp.zeros(2, jnp.int8))
        Array([1, 1], dtype=int8)
    """
    return _like("ones_like", a, 1, dtype, shape)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    """Same as ``zeros_like``.

    Example:
        >>> jnp.empty_like(jnp.zeros(2)).shape
        (2,)
    """
    return _like("empty_like", prototype, 0, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    """``fill_value`` with the shape and dtype of ``a``.

    Example:
        >>> jnp.full_like(jnp.zeros(2), 3)
        Array([3., 3.], dtype=float32)
    """
    return _like("full_like", a, fill_value, dtype, shape)


def _concrete_scalar(name, v):
    if util.is_tracer(v):
        raise ConcretizationTypeError(
            f"jnp.{name} requires concrete (non-traced) arguments; got a traced value. "
            "Mark it static with static_argnums.")
    if util.is_xjit_value(v) or isinstance(v, (np.ndarray, np.generic)):
        arr = np.asarray(v)
        if arr.ndim:
            raise ValueError(f"jnp.{name}: arguments must be scalars, got shape {arr.shape}")
        return arr[()]
    if not isinstance(v, (bool, int, float, complex)):
        raise TypeError(f"jnp.{name}: expected a scalar, got {type(v)}")
    return v


def arange(start, stop=None, step=None, dtype=None, *, device=None):
    """Evenly spaced values in [start, stop) (int32 for ints, float32 for floats).

    Example:
        >>> jnp.arange(1, 7, 2)
        Array([1, 3, 5], dtype=int32)
    """
    args = [_concrete_scalar("arange", v) for v in (start, stop, step) if v is not None]
    want = util.requested_dtype(dtype)
    if want is None:
        want = dtypes.result_type(*[(start if not util.is_xjit_value(start) else start),
                                    *[v for v in (stop, step) if v is not None]])
    if step is not None and args[-1] == 0:
        raise ValueError("arange: step must not be zero")
    compute = np.int64 if dtypes.issubdtype(want, np.integer) else np.float64
    if dtypes.issubdtype(want, np.complexfloating):
        compute = np.complex128
    if all(isinstance(v, (int, np.integer)) for v in args):
        compute = np.int64
    values = np.arange(*args, dtype=compute)
    return util.convert(values.astype(want), want, False)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """``num`` evenly spaced samples from ``start`` to ``stop`` (float32 default).

    Example:
        >>> jnp.linspace(0, 1, 5)
        Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    util.check_arraylike("linspace", start, stop)
    want = util.requested_dtype(dtype)
    if want is None:
        want = util.to_inexact(dtypes.result_type(start, stop, float))
    div = (num - 1) if endpoint else num
    if not util.is_tracer(start) and not util.is_tracer(stop):
        s, e = np.asarray(start, np.float64), np.asarray(stop, np.float64)
        if dtypes.issubdtype(want, np.complexfloating):
            s, e = np.asarray(start, np.complex128), np.asarray(stop, np.complex128)
        values, step = np.linspace(s, e, num, endpoint=endpoint, retstep=True, axis=axis)
        if dtypes.issubdtype(want, np.integer):
            values = np.floor(values)
        out = util.convert(values.astype(want), want, False)
        if retstep:
            return out, util.convert(np.asarray(step).astype(util.to_inexact(want)),
                                     util.to_inexact(want), False)
        return out
    return _linspace_traced(start, stop, num, endpoint, retstep, want, axis, div)


def _linspace_traced(start, stop, num, endpoint, retstep, want, axis, div):
    compute = util.to_inexact(want)
    s = util.convert(start, compute)
    e = util.convert(stop, compute)
    bshape = util.broadcast_shapes(s.shape, e.shape)
    s, e = util.broadcast_to(s, bshape), util.broadcast_to(e, bshape)
    step = elementwise.divide(elementwise.subtract(e, s), div) if div > 0 else \
        elementwise.subtract(e, s)
    out_shape = (num,) + bshape
    iota = lax_shapes.broadcasted_iota(compute, out_shape, 0)
    sb = util.broadcast_to(s, out_shape)
    out = lax_ew.add(sb, lax_ew.mul(iota, util.broadcast_to(step, out_shape)))
    if endpoint and num > 1:
        last = lax_shapes.broadcasted_iota(dtypes.default_int_dtype(), out_shape, 0)
        is_last = lax_ew.eq(last, util.broadcast_to(util.convert(num - 1, last.dtype), out_shape))
        out = lax_ew.select(is_last, util.broadcast_to(e, out_shape), out)
    if dtypes.issubdtype(want, np.integer):
        out = elementwise.floor(out)
    out = util.convert(out, want, False)
    if axis != 0:
        out = shape_ops.moveaxis(out, 0, axis)
    return (out, step) if retstep else out


def eye(N, M=None, k=0, dtype=None, *, device=None):
    """A 2-D array with ones on the ``k``-th diagonal.

    Example:
        >>> jnp.eye(2, 3, k=1)
        Array([[0., 1., 0.],
               [0., 0., 1.]], dtype=float32)
    """
    want = util.requested_dtype(dtype) or dtypes.default_float_dtype()
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    if N < 0 or M < 0:
        raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
    k = operator.index(k)
    idx = dtypes.default_int_dtype()
    rows = lax_shapes.broadcasted_iota(idx, (N, M), 0)
    cols = lax_shapes.broadcasted_iota(idx, (N, M), 1)
    diag = lax_ew.eq(lax_ew.add(rows, util.broadcast_to(util.convert(k, idx), (N, M))), cols)
    return util.convert(diag, want, False)


def identity(n, dtype=None):
    """The ``n`` x ``n`` identity matrix.

    Example:
        >>> jnp.identity(2, jnp.int32)
        Array([[1, 0],
               [0, 1]], dtype=int32)
    """
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    """Ones at and below the ``k``-th diagonal.

    Example:
        >>> jnp.tri(2)
        Array([[1., 0.],
               [1., 1.]], dtype=float32)
    """
    want = util.requested_dtype(dtype) or dtypes.default_float_dtype()
    M = N if M is None else M
    idx = dtypes.default_int_dtype()
    rows = lax_shapes.broadcasted_iota(idx, (N, M), 0)
    cols = lax_shapes.broadcasted_iota(idx, (N, M), 1)
    mask = lax_ew.ge(lax_ew.add(rows, util.broadcast_to(util.convert(k, idx), (N, M))), cols)
    return util.convert(mask, want, False)


def _triangle(m, k, lower: bool):
    """``m`` with the elements above (``lower``) or below diagonal ``k`` zeroed."""
    util.check_arraylike("tril" if lower else "triu", m)
    x = util.asarray_any(m)
    if x.ndim < 2:
        raise ValueError(f"Argument to jax.numpy.{'tril' if lower else 'triu'} must be at "
                         f"least 2D")
    mask = tri(x.shape[-2], x.shape[-1], k if lower else k - 1, dtype=np.bool_)
    zero = np.zeros((), x.dtype)  # of x's type: a bool matrix stays bool (a weak 0 made it int32)
    return elementwise.where(mask, x, zero) if lower else elementwise.where(mask, zero, x)


def tril(m, k=0):
    """Lower triangle of the last two axes.

    Example:
        >>> jnp.tril(jnp.ones((2, 2)))
        Array([[1., 0.],
               [1., 1.]], dtype=float32)
    """
    return _triangle(m, k, lower=True)


def triu(m, k=0):
    """Upper triangle of the last two axes.

    Example:
        >>> jnp.triu(jnp.ones((2, 2)))
        Array([[1., 1.],
               [0., 1.]], dtype=float32)
    """
    return _triangle(m, k, lower=False)
