"""Element-wise xjit.numpy functions: arithmetic, math, comparison, logic, bitwise.

All broadcast with numpy's rules and promote with JAX's (weak types included).

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.add(jnp.ones(3, jnp.float16), 1.0).dtype
    dtype('float16')
"""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.eager_fast_path import via_jit
from xjit._src.lax import elementwise as lax_ew
from xjit._src.numpy import util


_kind = dtypes.kind  # 'b', 'i', 'u', 'f' (incl. ml_dtypes' floats) or 'c'


def _named(op, name, summary, doc_example):
    """``op`` under numpy's function ``name``, documented by ``summary`` and an
    example; eager calls go through jit's C++ fast path (eager_fast_path.py)."""
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{summary}\n\nExample:\n{doc_example}"
    return via_jit(op)


def _binary(name, fn, doc_example, *, inexact=False, accepted=None, summary=None):
    """numpy binary function ``name``: promote and broadcast (to the default float
    when ``inexact``), check the dtype kind is ``accepted`` (b/i/u), then ``fn(a, b)``."""
    promote = util.promote_args_inexact if inexact else util.promote_args

    def op(x1, x2, /):
        a, b = promote(name, x1, x2)
        if accepted is not None and _kind(a.dtype) not in accepted:
            raise TypeError(f"{name} requires integer or boolean arguments, got {a.dtype}")
        return fn(a, b)
    if summary is None:
        summary = (f"numpy's ``{name}``; integer inputs promote to the default float."
                   if inexact else f"numpy's ``{name}`` with JAX promotion and broadcasting.")
    return _named(op, name, summary, doc_example)


def _binary_inexact(name, fn, doc_example):
    return _binary(name, fn, doc_example, inexact=True)


def _lax_fn(fn_name):
    """The element-wise lax function ``fn_name``."""
    return getattr(lax_ew, fn_name)


def _unary(name, fn, doc_example, inexact=False, allowed="biufc"):
    def op(x, /):
        util.check_arraylike(name, x)
        if inexact:
            (x,) = util.promote_args_inexact(name, x)
        else:
            x = util.asarray_any(x)
        if _kind(x.dtype) not in allowed:
            raise TypeError(f"{name} does not accept dtype {x.dtype}.")
        return fn(x)
    return _named(op, name, f"numpy's ``{name}``, element-wise.", doc_example)


def _const_like(x, value):
    """A scalar constant of x's dtype and weak flag, broadcast to x's shape."""
    c = util.convert(value, x.dtype, bool(getattr(x, "weak_type", False)))
    return util.broadcast_to(c, x.shape)


def _zeros_like(x):
    return _const_like(x, 0)


# ----------------------------------------------------------------------- arithmetic

add = _binary("add", lambda a, b: lax_ew.add(a, b) if _kind(a.dtype) != "b" else lax_ew.or_(a, b),
              "    >>> jnp.add(jnp.int8(1), 2).dtype\n    dtype('int8')")
subtract = _binary("subtract", lambda a, b: _subtract(a, b),
                   "    >>> jnp.subtract(3, jnp.arange(3))\n    Array([3, 2, 1], dtype=int32)")
multiply = _binary("multiply",
                   lambda a, b: lax_ew.mul(a, b) if _kind(a.dtype) != "b" else lax_ew.and_(a, b),
                   "    >>> jnp.multiply(2, 3.5)\n    Array(7., dtype=float32, weak_type=True)")
true_divide = _binary_inexact("true_divide", lambda a, b: lax_ew.div(a, b),
                              "    >>> jnp.true_divide(1, 2)\n    Array(0.5, dtype=float32, weak_type=True)")
divide = _binary_inexact("divide", lambda a, b: lax_ew.div(a, b),
                         "    >>> jnp.divide(jnp.arange(3), 2).dtype\n    dtype('float32')")


def _subtract(a, b):
    if _kind(a.dtype) == "b":
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, "
                        "use the bitwise_xor, the `^` operator, or the logical_xor function instead.")
    return lax_ew.sub(a, b)


def _as_int_if_bool(a, b):
    if _kind(a.dtype) == "b":
        return util.convert(a, np.int8), util.convert(b, np.int8), True
    return a, b, False


def _int_floor_divide(a, b):
    if _kind(a.dtype) == "u":
        return lax_ew.div(a, b)
    q = lax_ew.div(a, b)
    zero = _zeros_like(a)
    r = lax_ew.rem(a, b)
    # JAX's rule, signs compared with sign(): x // 0 is -2 for x != 0 (lax.div's -1
    # minus one), -1 for 0 // 0 (docs/semantics.md, "numpy level").
    signs_differ = lax_ew.ne(lax_ew.sign(a), lax_ew.sign(b))
    fix = lax_ew.and_(signs_differ, lax_ew.ne(r, zero))
    return lax_ew.select(fix, lax_ew.sub(q, _const_like(q, 1)), q)


def _nonzero_divisor(b):
    """Integer divisor ``b`` with zeros replaced by ones (JAX's remainder/fmod)."""
    return lax_ew.select(lax_ew.eq(b, _zeros_like(b)), _const_like(b, 1), b)


def _float_divmod(a, b):
    """numpy's float floor-divide and modulo (as JAX's _float_divmod)."""
    mod = lax_ew.rem(a, b)
    div = lax_ew.div(lax_ew.sub(a, mod), b)
    zero = _zeros_like(a)
    ind = lax_ew.and_(lax_ew.ne(mod, zero), lax_ew.ne(lax_ew.sign(b), lax_ew.sign(mod)))
    mod = lax_ew.select(ind, lax_ew.add(mod, b), mod)
    div = lax_ew.select(ind, lax_ew.sub(div, _const_like(div, 1)), div)
    return _round_half_even(div), mod


def floor_divide(x1, x2, /):
    """numpy's ``floor_divide``: rounds toward negative infinity for ints and floats.

    Example:
        >>> jnp.floor_divide(jnp.array([-7, 7]), 2)
        Array([-4,  3], dtype=int32)
    """
    a, b = util.promote_args("floor_divide", x1, x2)
    a, b, was_bool = _as_int_if_bool(a, b)
    k = _kind(a.dtype)
    if k == "c":
        raise TypeError("floor_divide does not support complex-valued inputs")
    out = _int_floor_divide(a, b) if k in "iu" else _float_divmod(a, b)[0]
    return util.convert(out, np.bool_) if was_bool else out


def remainder(x1, x2, /):
    """numpy's ``remainder``: the result has the sign of the divisor.

    Example:
        >>> jnp.remainder(jnp.array([-7, 7]), 3)
        Array([2, 1], dtype=int32)
    """
    a, b = util.promote_args("remainder", x1, x2)
    a, b, was_bool = _as_int_if_bool(a, b)
    k = _kind(a.dtype)
    if k == "c":
        raise TypeError("remainder does not support complex-valued inputs")
    if k in "iu":  # as JAX and numpy: x % 0 is 0 (lax.rem keeps x)
        b = _nonzero_divisor(b)
    if k == "u":
        out = lax_ew.rem(a, b)
    elif k == "i":
        r = lax_ew.rem(a, b)
        zero = _zeros_like(a)
        fix = lax_ew.and_(lax_ew.ne(lax_ew.lt(r, zero), lax_ew.lt(b, zero)), lax_ew.ne(r, zero))
        out = lax_ew.select(fix, lax_ew.add(r, b), r)
    else:
        out = _float_divmod(a, b)[1]
    return util.convert(out, np.bool_) if was_bool else out


mod = remainder


def divmod(x1, x2, /):  # noqa: A001  (numpy's name)
    """numpy's ``divmod``: ``(floor_divide(x1, x2), remainder(x1, x2))``.

    Example:
        >>> jnp.divmod(7, 2)
        (Array(3, dtype=int32, weak_type=True), Array(1, dtype=int32, weak_type=True))
    """
    return floor_divide(x1, x2), remainder(x1, x2)


def fmod(x1, x2, /):
    """C's fmod: the remainder has the sign of the dividend.

    Example:
        >>> jnp.fmod(-7, 3)
        Array(-1, dtype=int32, weak_type=True)
    """
    a, b = util.promote_args("fmod", x1, x2)
    if _kind(a.dtype) in "iu":  # as JAX and numpy: fmod(x, 0) is 0 for integers
        b = _nonzero_divisor(b)
    return lax_ew.rem(a, b)


def _int_pow(base, exponent):
    """Integer power by squaring over the exponent's bits (negative exponents as numpy's
    limit: 1 and -1 keep their powers, everything else gives 0)."""
    one = _const_like(base, 1)
    zero = _zeros_like(base)
    bits = dtypes.iinfo(base.dtype).bits
    neg = lax_ew.lt(exponent, zero)
    e = lax_ew.select(neg, zero, exponent)
    acc, sq = one, base
    for _ in range(bits - (1 if _kind(base.dtype) == "i" else 0)):
        bit = lax_ew.ne(lax_ew.and_(e, one), zero)
        acc = lax_ew.select(bit, lax_ew.mul(acc, sq), acc)
        sq = lax_ew.mul(sq, sq)
        e = lax_ew.shift_right_logical(e, one)
    # Negative exponent: base**e == 1/base**|e|, truncated toward zero.
    odd = lax_ew.ne(lax_ew.and_(exponent, one), zero)
    neg_result = lax_ew.select(lax_ew.eq(base, one), one,
                             lax_ew.select(lax_ew.eq(base, lax_ew.neg(one)) if _kind(base.dtype) == "i"
                                         else lax_ew.ne(base, base),
                                         lax_ew.select(odd, lax_ew.neg(one), one), zero))
    return lax_ew.select(neg, neg_result, acc)


def power(x1, x2, /):
    """numpy's ``power``. Integer powers are exact (computed by squaring).

    Example:
        >>> jnp.power(jnp.arange(4), 2)
        Array([0, 1, 4, 9], dtype=int32)
    """
    if isinstance(x2, int) and not isinstance(x2, bool):
        # A concrete integer exponent: exact repeated multiplication, as JAX does.
        util.check_arraylike("power", x1)
        (a,) = util.promote_dtypes(x1)
        if _kind(a.dtype) == "b":
            raise TypeError("power does not support boolean inputs")
        return lax_ew.integer_pow(a, x2)
    a, b = util.promote_args("power", x1, x2)
    k = _kind(a.dtype)
    if k == "b":
        raise TypeError("power does not support boolean inputs")
    if k in "iu":
        return _int_pow(a, b)
    return lax_ew.pow(a, b)


pow = power  # noqa: A001  (numpy 2 alias)


def float_power(x1, x2, /):
    """``power`` computed in the default float (float64 with x64).

    Example:
        >>> jnp.float_power(2, 3)
        Array(8., dtype=float32, weak_type=True)
    """
    a, b = util.promote_args_inexact("float_power", x1, x2)
    return lax_ew.pow(a, b)


def negative(x, /):
    """numpy's ``negative``.

    Example:
        >>> jnp.negative(jnp.array([1, -2]))
        Array([-1,  2], dtype=int32)
    """
    util.check_arraylike("negative", x)
    x = util.asarray_any(x)
    if _kind(x.dtype) == "b":
        raise TypeError("The numpy boolean negative, the `-` operator, is not supported, "
                        "use the `~` operator or the logical_not function instead.")
    return lax_ew.neg(x)


def positive(x, /):
    """numpy's ``positive`` (returns the input's value).

    Example:
        >>> jnp.positive(jnp.array([1, -2]))
        Array([ 1, -2], dtype=int32)
    """
    util.check_arraylike("positive", x)
    return util.asarray_any(x)


def absolute(x, /):
    """numpy's ``absolute``; complex inputs give their real-typed modulus.

    Example:
        >>> jnp.absolute(jnp.array([-1.5, 2.0]))
        Array([1.5, 2. ], dtype=float32)
    """
    util.check_arraylike("absolute", x)
    x = util.asarray_any(x)
    k = _kind(x.dtype)
    if k in "bu":
        return x
    return lax_ew.abs(x)


abs = absolute  # noqa: A001


def sign(x, /):
    """numpy's ``sign`` (-1, 0 or 1; NaN for NaN).

    Example:
        >>> jnp.sign(jnp.array([-2, 0, 3]))
        Array([-1,  0,  1], dtype=int32)
    """
    util.check_arraylike("sign", x)
    x = util.asarray_any(x)
    if _kind(x.dtype) == "b":
        return x
    if _kind(x.dtype) == "u":
        return util.convert(lax_ew.ne(x, _zeros_like(x)), x.dtype, bool(x.weak_type))
    return lax_ew.sign(x)


def square(x, /):
    """``x * x``.

    Example:
        >>> jnp.square(jnp.array([2, -3]))
        Array([4, 9], dtype=int32)
    """
    util.check_arraylike("square", x)
    x = util.asarray_any(x)
    if _kind(x.dtype) == "b":
        return lax_ew.and_(x, x)
    return lax_ew.mul(x, x)


def reciprocal(x, /):
    """``1 / x`` in x's dtype (integer division truncates, as numpy).

    Example:
        >>> jnp.reciprocal(jnp.array([2.0, 4.0]))
        Array([0.5 , 0.25], dtype=float32)
    """
    util.check_arraylike("reciprocal", x)
    x = util.asarray_any(x)
    return lax_ew.div(_const_like(x, 1), x)


# ------------------------------------------------------------------------ float math

def _log_base(x, base):
    return lax_ew.div(lax_ew.log(x), _const_like(x, np.log(base)))


exp = _unary("exp", lambda x: lax_ew.exp(x), "    >>> jnp.exp(0.0)\n    Array(1., dtype=float32, weak_type=True)", inexact=True)
exp2 = _unary("exp2", lambda x: lax_ew.exp(lax_ew.mul(x, _const_like(x, np.log(2.0)))),
              "    >>> jnp.exp2(3.0)\n    Array(8., dtype=float32, weak_type=True)", inexact=True)
expm1 = _unary("expm1", lambda x: lax_ew.expm1(x), "    >>> jnp.expm1(0.0)\n    Array(0., dtype=float32, weak_type=True)", inexact=True)
log = _unary("log", lambda x: lax_ew.log(x), "    >>> jnp.log(1.0)\n    Array(0., dtype=float32, weak_type=True)", inexact=True)
log2 = _unary("log2", lambda x: _log_base(x, 2.0), "    >>> jnp.log2(8.0)\n    Array(3., dtype=float32, weak_type=True)", inexact=True)
log10 = _unary("log10", lambda x: _log_base(x, 10.0), "    >>> jnp.log10(100.0)\n    Array(2., dtype=float32, weak_type=True)", inexact=True)
log1p = _unary("log1p", lambda x: lax_ew.log1p(x), "    >>> jnp.log1p(0.0)\n    Array(0., dtype=float32, weak_type=True)", inexact=True)
sqrt = _unary("sqrt", lambda x: lax_ew.sqrt(x), "    >>> jnp.sqrt(4)\n    Array(2., dtype=float32, weak_type=True)", inexact=True)
cbrt = _unary("cbrt", lambda x: lax_ew.cbrt(x), "    >>> jnp.cbrt(8.0)\n    Array(2., dtype=float32, weak_type=True)", inexact=True, allowed="f")
sin = _unary("sin", lambda x: lax_ew.sin(x), "    >>> jnp.sin(0.0)\n    Array(0., dtype=float32, weak_type=True)", inexact=True)
cos = _unary("cos", lambda x: lax_ew.cos(x), "    >>> jnp.cos(0.0)\n    Array(1., dtype=float32, weak_type=True)", inexact=True)
tan = _unary("tan", lambda x: lax_ew.tan(x), "    >>> jnp.tan(0.0)\n    Array(0., dtype=float32, weak_type=True)", inexact=True)
tanh = _unary("tanh", lambda x: lax_ew.tanh(x), "    >>> jnp.tanh(0.0)\n    Array(0., dtype=float32, weak_type=True)", inexact=True)


def _sinh(x):
    return lax_ew.mul(lax_ew.sub(lax_ew.expm1(x), lax_ew.expm1(lax_ew.neg(x))), _const_like(x, 0.5))


def _cosh(x):
    return lax_ew.mul(lax_ew.add(lax_ew.exp(x), lax_ew.exp(lax_ew.neg(x))), _const_like(x, 0.5))


def _arcsin(x):
    return lax_ew.atan2(x, lax_ew.sqrt(lax_ew.mul(lax_ew.sub(_const_like(x, 1), x), lax_ew.add(_const_like(x, 1), x))))


def _arccos(x):
    return lax_ew.atan2(lax_ew.sqrt(lax_ew.mul(lax_ew.sub(_const_like(x, 1), x), lax_ew.add(_const_like(x, 1), x))), x)


sinh = _unary("sinh", _sinh, "    >>> jnp.sinh(0.0)\n    Array(0., dtype=float32, weak_type=True)", inexact=True, allowed="f")
cosh = _unary("cosh", _cosh, "    >>> jnp.cosh(0.0)\n    Array(1., dtype=float32, weak_type=True)", inexact=True, allowed="f")
arctan = _unary("arctan", lambda x: lax_ew.atan2(x, _const_like(x, 1)),
                "    >>> jnp.arctan(0.0)\n    Array(0., dtype=float32, weak_type=True)", inexact=True, allowed="f")
arcsin = _unary("arcsin", _arcsin, "    >>> jnp.arcsin(0.0)\n    Array(0., dtype=float32, weak_type=True)", inexact=True, allowed="f")
arccos = _unary("arccos", _arccos, "    >>> jnp.arccos(1.0)\n    Array(0., dtype=float32, weak_type=True)", inexact=True, allowed="f")
arctan2 = _binary_inexact("arctan2", lambda a, b: lax_ew.atan2(a, b),
                          "    >>> jnp.arctan2(0.0, 1.0)\n    Array(0., dtype=float32, weak_type=True)")
atan2, atan, asin, acos = arctan2, arctan, arcsin, arccos


def hypot(x1, x2, /):
    """``sqrt(x1**2 + x2**2)`` computed without undue overflow.

    Example:
        >>> jnp.hypot(3.0, 4.0)
        Array(5., dtype=float32, weak_type=True)
    """
    a, b = util.promote_args_inexact("hypot", x1, x2)
    a, b = lax_ew.abs(a), lax_ew.abs(b)
    big, small = lax_ew.max(a, b), lax_ew.min(a, b)
    zero = _zeros_like(big)
    ratio = lax_ew.div(small, lax_ew.select(lax_ew.eq(big, zero), _const_like(big, 1), big))
    out = lax_ew.mul(big, lax_ew.sqrt(lax_ew.add(_const_like(big, 1), lax_ew.mul(ratio, ratio))))
    return lax_ew.select(lax_ew.eq(big, zero), zero, out)


# ------------------------------------------------------------------------- rounding

def _round_half_even(x):
    """Round floats to the nearest integer, ties to even (numpy's rule)."""
    return lax_ew.round(x, lax_ew.RoundingMethod.TO_NEAREST_EVEN)


def _integer_passthrough(name, float_fn, doc):
    def op(x, /):
        util.check_arraylike(name, x)
        x = util.asarray_any(x)
        k = _kind(x.dtype)
        if k in "biu":
            return x
        if k == "c":
            raise TypeError(f"{name} does not support complex-valued inputs")
        return float_fn(x)
    return _named(op, name, f"numpy's ``{name}``; integers are returned unchanged.", doc)


floor = _integer_passthrough("floor", lambda x: lax_ew.floor(x),
                             "    >>> jnp.floor(jnp.array([-1.5, 1.5]))\n    Array([-2.,  1.], dtype=float32)")
ceil = _integer_passthrough("ceil", lambda x: lax_ew.ceil(x),
                            "    >>> jnp.ceil(jnp.array([-1.5, 1.5]))\n    Array([-1.,  2.], dtype=float32)")


def _trunc(x):
    return lax_ew.select(lax_ew.lt(x, _zeros_like(x)), lax_ew.ceil(x), lax_ew.floor(x))


trunc = _integer_passthrough("trunc", _trunc,
                             "    >>> jnp.trunc(jnp.array([-1.5, 1.5]))\n    Array([-1.,  1.], dtype=float32)")
fix = trunc


def round(a, decimals=0, out=None):  # noqa: A001
    """numpy's ``round``: ties to even, with ``decimals`` digits after the point.

    Example:
        >>> jnp.round(jnp.array([0.5, 1.5, 2.567]), 1)
        Array([0.5, 1.5, 2.6], dtype=float32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
    util.check_arraylike("round", a)
    x = util.asarray_any(a)
    k = _kind(x.dtype)
    if k in "biu":
        if decimals >= 0:
            return x
        factor = _const_like(x, 10 ** (-decimals))
        xf = util.convert(x, dtypes.default_float_dtype())
        q = _round_half_even(lax_ew.div(xf, util.convert(factor, xf.dtype)))
        return util.convert(lax_ew.mul(q, util.convert(factor, xf.dtype)), x.dtype, bool(x.weak_type))
    if k == "c":
        return lax_ew.complex(round(lax_ew.real(x), decimals), round(lax_ew.imag(x), decimals))
    if decimals == 0:
        return _round_half_even(x)
    factor = _const_like(x, 10.0 ** decimals)
    return lax_ew.div(_round_half_even(lax_ew.mul(x, factor)), factor)


around = round
round_ = round


def rint(x, /):
    """Round to the nearest integer, ties to even.

    Example:
        >>> jnp.rint(jnp.array([0.5, 1.5]))
        Array([0., 2.], dtype=float32)
    """
    (x,) = util.promote_args_inexact("rint", x)
    return round(x)


# ------------------------------------------------------------------- max/min, clip

def _max(a, b):
    return lax_ew.max(a, b) if _kind(a.dtype) != "b" else lax_ew.or_(a, b)


def _min(a, b):
    return lax_ew.min(a, b) if _kind(a.dtype) != "b" else lax_ew.and_(a, b)


maximum = _binary("maximum", _max, "    >>> jnp.maximum(jnp.array([1, 5]), 3)\n    Array([3, 5], dtype=int32)")
minimum = _binary("minimum", _min, "    >>> jnp.minimum(jnp.array([1, 5]), 3)\n    Array([1, 3], dtype=int32)")


def _fmax(a, b):
    if _kind(a.dtype) not in "fc":
        return _max(a, b)
    return lax_ew.select(lax_ew.ne(a, a), b, lax_ew.select(lax_ew.ne(b, b), a, lax_ew.max(a, b)))


def _fmin(a, b):
    if _kind(a.dtype) not in "fc":
        return _min(a, b)
    return lax_ew.select(lax_ew.ne(a, a), b, lax_ew.select(lax_ew.ne(b, b), a, lax_ew.min(a, b)))


fmax = _binary("fmax", _fmax, "    >>> jnp.fmax(jnp.array([1.0, jnp.nan]), 0.5)\n    Array([1. , 0.5], dtype=float32)")
fmin = _binary("fmin", _fmin, "    >>> jnp.fmin(jnp.array([1.0, jnp.nan]), 0.5)\n    Array([0.5, 0.5], dtype=float32)")


def clip(arr=None, /, min=None, max=None, *, a=None, a_min=None, a_max=None):  # noqa: A002
    """Clamp values into [min, max] (either bound may be None).

    Accepts JAX's current ``clip(arr, min, max)`` and the older ``a_min``/``a_max`` names.

    Example:
        >>> jnp.clip(jnp.arange(5), 1, 3)
        Array([1, 1, 2, 3, 3], dtype=int32)
    """
    if arr is None:
        arr = a
    if arr is None:
        raise TypeError("clip() missing the array argument")
    min = a_min if min is None else min
    max = a_max if max is None else max
    util.check_arraylike("clip", arr)
    out = util.asarray_any(arr)
    if min is not None:
        out = maximum(min, out)
    if max is not None:
        out = minimum(max, out)
    return out


# --------------------------------------------------------------- tests on values

def isnan(x, /):
    """True where x is NaN.

    Example:
        >>> jnp.isnan(jnp.array([1.0, jnp.nan]))
        Array([False,  True], dtype=bool)
    """
    util.check_arraylike("isnan", x)
    x = util.asarray_any(x)
    if _kind(x.dtype) not in "fc":
        return util.broadcast_to(util.convert(False, np.bool_), x.shape)
    return lax_ew.ne(x, x)


def isfinite(x, /):
    """True where x is neither infinite nor NaN.

    Example:
        >>> jnp.isfinite(jnp.array([1.0, jnp.inf, jnp.nan]))
        Array([ True, False, False], dtype=bool)
    """
    util.check_arraylike("isfinite", x)
    x = util.asarray_any(x)
    k = _kind(x.dtype)
    if k == "c":
        return lax_ew.and_(lax_ew.is_finite(lax_ew.real(x)), lax_ew.is_finite(lax_ew.imag(x)))
    if k != "f":
        return util.broadcast_to(util.convert(True, np.bool_), x.shape)
    return lax_ew.is_finite(x)


def isinf(x, /):
    """True where x is +inf or -inf.

    Example:
        >>> jnp.isinf(jnp.array([1.0, -jnp.inf, jnp.nan]))
        Array([False,  True, False], dtype=bool)
    """
    util.check_arraylike("isinf", x)
    x = util.asarray_any(x)
    k = _kind(x.dtype)
    if k == "c":
        return lax_ew.or_(isinf(lax_ew.real(x)), isinf(lax_ew.imag(x)))
    if k != "f":
        return util.broadcast_to(util.convert(False, np.bool_), x.shape)
    return lax_ew.eq(lax_ew.abs(x), _const_like(x, np.inf))


def _equals_inf(x, inf):
    """True where float ``x`` equals ``inf`` (+inf or -inf); other kinds as ``isinf``."""
    x = util.asarray_any(x)
    if _kind(x.dtype) != "f":
        return isinf(x)
    return lax_ew.eq(x, _const_like(x, inf))


def isposinf(x, /):
    """True where x is +inf.

    Example:
        >>> jnp.isposinf(jnp.array([jnp.inf, -jnp.inf]))
        Array([ True, False], dtype=bool)
    """
    return _equals_inf(x, np.inf)


def isneginf(x, /):
    """True where x is -inf.

    Example:
        >>> jnp.isneginf(jnp.array([jnp.inf, -jnp.inf]))
        Array([False,  True], dtype=bool)
    """
    return _equals_inf(x, -np.inf)


def signbit(x, /):
    """True where the sign bit is set (x < 0, or -0.0).

    Example:
        >>> jnp.signbit(jnp.array([-1.0, 2.0]))
        Array([ True, False], dtype=bool)
    """
    x = util.asarray_any(x)
    if _kind(x.dtype) == "f":
        zero = _zeros_like(x)
        negative_zero = lax_ew.and_(lax_ew.eq(x, zero), lax_ew.lt(lax_ew.div(_const_like(x, 1), x), zero))
        return lax_ew.or_(lax_ew.lt(x, zero), negative_zero)
    if _kind(x.dtype) == "i":
        return lax_ew.lt(x, _zeros_like(x))
    return util.broadcast_to(util.convert(False, np.bool_), x.shape)


# --------------------------------------------------------------------- comparison

def _compare(name, fn_name, doc):
    return _binary(name, _lax_fn(fn_name), doc,
                   summary=f"numpy's ``{name}``: element-wise comparison, a bool array.")


equal = _compare("equal", "eq", "    >>> jnp.equal(jnp.arange(3), 1)\n    Array([False,  True, False], dtype=bool)")
not_equal = _compare("not_equal", "ne", "    >>> jnp.not_equal(jnp.arange(3), 1)\n    Array([ True, False,  True], dtype=bool)")
less = _compare("less", "lt", "    >>> jnp.less(jnp.arange(3), 1)\n    Array([ True, False, False], dtype=bool)")
less_equal = _compare("less_equal", "le", "    >>> jnp.less_equal(jnp.arange(3), 1)\n    Array([ True,  True, False], dtype=bool)")
greater = _compare("greater", "gt", "    >>> jnp.greater(jnp.arange(3), 1)\n    Array([False, False,  True], dtype=bool)")
greater_equal = _compare("greater_equal", "ge", "    >>> jnp.greater_equal(jnp.arange(3), 1)\n    Array([False,  True,  True], dtype=bool)")


# ------------------------------------------------------------------------ logical

def _to_bool(x):
    x = util.asarray_any(x)
    if x.dtype == np.bool_:
        return x
    return lax_ew.ne(x, _zeros_like(x))


def _logical(name, fn_name, doc):
    def op(x1, x2, /):
        util.check_arraylike(name, x1, x2)
        shape = util.broadcast_shapes(util.shape_of(x1), util.shape_of(x2))
        a = util.broadcast_to(_to_bool(x1), shape)
        b = util.broadcast_to(_to_bool(x2), shape)
        return getattr(lax_ew, fn_name)(a, b)
    return _named(op, name, f"numpy's ``{name}``: truth values combined element-wise.", doc)


logical_and = _logical("logical_and", "and_", "    >>> jnp.logical_and(jnp.array([0, 1, 2]), 1)\n    Array([False,  True,  True], dtype=bool)")
logical_or = _logical("logical_or", "or_", "    >>> jnp.logical_or(jnp.array([0, 1]), 0)\n    Array([False,  True], dtype=bool)")
logical_xor = _logical("logical_xor", "xor", "    >>> jnp.logical_xor(jnp.array([0, 1]), 1)\n    Array([ True, False], dtype=bool)")


def logical_not(x, /):
    """True where x is zero.

    Example:
        >>> jnp.logical_not(jnp.array([0, 2]))
        Array([ True, False], dtype=bool)
    """
    util.check_arraylike("logical_not", x)
    return lax_ew.not_(_to_bool(x))


# ------------------------------------------------------------------------ bitwise

def _bitwise(name, fn_name, doc):
    return _binary(name, _lax_fn(fn_name), doc, accepted="biu",
                   summary=f"numpy's ``{name}`` on integers and bools.")


bitwise_and = _bitwise("bitwise_and", "and_", "    >>> jnp.bitwise_and(12, 10)\n    Array(8, dtype=int32, weak_type=True)")
bitwise_or = _bitwise("bitwise_or", "or_", "    >>> jnp.bitwise_or(12, 10)\n    Array(14, dtype=int32, weak_type=True)")
bitwise_xor = _bitwise("bitwise_xor", "xor", "    >>> jnp.bitwise_xor(12, 10)\n    Array(6, dtype=int32, weak_type=True)")


def invert(x, /):
    """Bitwise NOT (logical NOT for bools).

    Example:
        >>> jnp.invert(jnp.array([0, 1], jnp.uint8))
        Array([255, 254], dtype=uint8)
    """
    util.check_arraylike("invert", x)
    x = util.asarray_any(x)
    if _kind(x.dtype) not in "biu":
        raise TypeError(f"invert requires an integer or boolean argument, got {x.dtype}")
    return lax_ew.not_(x)


bitwise_not = bitwise_invert = invert


def left_shift(x1, x2, /):
    """``x1 << x2`` (shifts past the bit width give 0).

    Example:
        >>> jnp.left_shift(1, jnp.arange(3))
        Array([1, 2, 4], dtype=int32)
    """
    a, b = util.promote_args("left_shift", x1, x2)
    if _kind(a.dtype) not in "iu":
        raise TypeError(f"left_shift requires integer arguments, got {a.dtype}")
    return lax_ew.shift_left(a, b)


def right_shift(x1, x2, /):
    """``x1 >> x2``: arithmetic for signed types, logical for unsigned.

    Example:
        >>> jnp.right_shift(-8, 1)
        Array(-4, dtype=int32, weak_type=True)
    """
    a, b = util.promote_args("right_shift", x1, x2)
    k = _kind(a.dtype)
    if k not in "iu":
        raise TypeError(f"right_shift requires integer arguments, got {a.dtype}")
    return lax_ew.shift_right_arithmetic(a, b) if k == "i" else lax_ew.shift_right_logical(a, b)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


# ------------------------------------------------------------------------ complex

def real(x, /):
    """Real part (x itself for real inputs).

    Example:
        >>> jnp.real(jnp.array([1 + 2j]))
        Array([1.], dtype=float32)
    """
    util.check_arraylike("real", x)
    x = util.asarray_any(x)
    return lax_ew.real(x) if _kind(x.dtype) == "c" else x


def imag(x, /):
    """Imaginary part (zeros for real inputs).

    Example:
        >>> jnp.imag(jnp.array([1 + 2j]))
        Array([2.], dtype=float32)
    """
    util.check_arraylike("imag", x)
    x = util.asarray_any(x)
    return lax_ew.imag(x) if _kind(x.dtype) == "c" else _zeros_like(x)


def conjugate(x, /):
    """Complex conjugate (x itself for real inputs).

    Example:
        >>> jnp.conj(jnp.array([1 + 2j]))
        Array([1.-2.j], dtype=complex64)
    """
    util.check_arraylike("conjugate", x)
    x = util.asarray_any(x)
    return lax_ew.conj(x) if _kind(x.dtype) == "c" else x


conj = conjugate


def angle(z, deg=False):
    """Argument of complex numbers (radians, or degrees with ``deg``).

    Example:
        >>> jnp.angle(1j)
        Array(1.5707964, dtype=float32, weak_type=True)
    """
    (z,) = util.promote_args_inexact("angle", z)
    if _kind(z.dtype) == "c":
        re, im = lax_ew.real(z), lax_ew.imag(z)
    else:
        re, im = z, _zeros_like(z)
    out = lax_ew.atan2(im, re)
    return lax_ew.mul(out, _const_like(out, 180.0 / np.pi)) if deg else out


# -------------------------------------------------------------------------- where

def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """Choose from ``x`` where ``condition`` holds, else from ``y`` (all broadcast).

    The one-argument form is ``nonzero(condition, size=, fill_value=)``: it
    needs concrete values unless ``size`` is given.

    Example:
        >>> jnp.where(jnp.arange(4) > 1, 1.0, 0)
        Array([0., 0., 1., 1.], dtype=float32, weak_type=True)
    """
    if x is None and y is None:
        from xjit._src.numpy import sorting  # (imports this module's neighbours)
        return sorting.nonzero(condition, size=size, fill_value=fill_value)
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in three-term where "
                         "function.")
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided "
                         "to jax.numpy.where, got x={} and y={}.".format(x, y))
    util.check_arraylike("where", condition, x, y)
    x, y = util.promote_dtypes(x, y)
    shape = util.broadcast_shapes(util.shape_of(condition), x.shape, y.shape)
    cond = util.broadcast_to(_to_bool(condition), shape)
    return lax_ew.select(cond, util.broadcast_to(x, shape), util.broadcast_to(y, shape))
