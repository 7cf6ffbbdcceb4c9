"""Element-wise lax ops: arithmetic, transcendental, bitwise, comparisons,
select, clamp and dtype conversion, with JAX's dtype checks.

Example:
    >>> from xjit import lax
    >>> lax.add(np.float32(1), 2.0)
    Array(3., dtype=float32)
"""
from __future__ import annotations

import math

import numpy as np

from xjit._src import core, dispatch
from xjit._src.dtypes import SUPPORTED_DTYPES
from xjit._src.lax import operands as ops
from xjit._src.traceback_util import api_boundary

bind = dispatch.bind
_NUM = ("iufc", "integer, floating, complexfloating")
_ANY = ("biufc", "bool, integer, floating, complexfloating")
_INEXACT = ("fc", "floating, complexfloating")
_FLOAT = ("f", "floating")
_INT = ("iu", "integer")
_BOOL_INT = ("biu", "bool, integer")
_SIGNED_INEXACT = ("ifc", "signed integer, floating, complexfloating")
_ORDERED = ("biuf", "bool, integer, floating")
_COMPLEX = ("c", "complexfloating")


def _unary(name: str, op: str, x, accepted, result_dtype=None, weak=None):
    ops.check_arraylike(name, x)
    dt = ops.dtype_of(x)
    ops.check_dtype(name, dt, *accepted)
    weak = ops.is_weak(x) if weak is None else weak
    return bind(op, [ops.as_operand(x, dt)], weak_type=weak)


def _binary(name: str, op: str, x, y, accepted, attrs=None, weak=None):
    # Fast path: two xjit values of one dtype and shape need no conversion.
    if (isinstance(x, ops.VALUE_TYPES) and isinstance(y, ops.VALUE_TYPES)
            and x.dtype == y.dtype and x.shape == y.shape):
        if ops.kind(x.dtype) not in accepted[0]:
            ops.check_dtype(name, x.dtype, *accepted)
        if weak is None:
            weak = x.weak_type and y.weak_type
        return bind(op, [x, y], attrs, weak_type=weak)
    ops.check_arraylike(name, x, y)
    dt = ops.resolve_dtypes(name, (x, y))
    ops.check_dtype(name, dt, *accepted)
    shape = ops.broadcast_shapes(name, (ops.shape_of(x), ops.shape_of(y)))
    weak = (ops.is_weak(x) and ops.is_weak(y)) if weak is None else weak
    xo = ops.broadcast_to(ops.as_operand(x, dt), shape)
    yo = ops.broadcast_to(ops.as_operand(y, dt), shape)
    return bind(op, [xo, yo], attrs, weak_type=weak)


def _make_binary(fn_name, name, op, accepted, doc, attrs=None, weak=None):
    """Public binary lax function ``fn_name`` (``doc``): ``_binary`` on StableHLO ``op``,
    reporting errors as ``name``. ``attrs`` is shared by every call (never mutated)."""
    def f(x, y):
        return _binary(name, op, x, y, accepted, attrs, weak)
    f.__name__ = f.__qualname__ = fn_name
    f.__doc__ = doc
    return api_boundary(f)


# ---------------------------------------------------------------- binary arithmetic

add = _make_binary("add", "add", "add", _NUM,
                   "Element-wise ``x + y``. Example: ``lax.add(x, 1.0)``.")
sub = _make_binary("sub", "sub", "subtract", _NUM,
                   "Element-wise ``x - y``. Example: ``lax.sub(x, y)``.")
mul = _make_binary("mul", "mul", "multiply", _NUM,
                   "Element-wise ``x * y``. Example: ``lax.mul(x, 2.0)``.")
div = _make_binary("div", "div", "divide", _NUM,
                   "Element-wise division; integers round toward zero. Example: ``lax.div(x, y)``.")
rem = _make_binary("rem", "rem", "remainder", _NUM,
                   "Element-wise remainder with the sign of ``x`` (C fmod)."
                   " Example: ``lax.rem(x, 3)``.")
pow = _make_binary("pow", "pow", "power", _INEXACT,
                   "Element-wise ``x ** y`` for floating/complex operands."
                   " Example: ``lax.pow(x, 2.0)``.")
max = _make_binary("max", "max", "maximum", _ANY,
                   "Element-wise maximum (NaN propagates). Example: ``lax.max(x, 0.0)``.")
min = _make_binary("min", "min", "minimum", _ANY,
                   "Element-wise minimum (NaN propagates). Example: ``lax.min(x, 0.0)``.")
atan2 = _make_binary("atan2", "atan2", "atan2", _FLOAT,
                     "Element-wise ``atan2(x, y)``. Example: ``lax.atan2(y, x)``.")


@api_boundary
def complex(x, y):
    """``x + 1j * y`` from float32/float64 parts. Example: ``lax.complex(re, im)``."""
    ops.check_arraylike("complex", x, y)
    dt = ops.resolve_dtypes("complex", (x, y))
    if dt.name not in ("float32", "float64"):
        raise TypeError(f"complex does not accept dtype {dt.name}. Accepted dtypes are "
                        f"float32, float64.")
    return _binary("complex", "complex", x, y, _FLOAT)


# -------------------------------------------------------------------------- bitwise

bitwise_and = _make_binary("bitwise_and", "and", "and", _BOOL_INT,
                           "Element-wise and of booleans/integers."
                           " Example: ``lax.bitwise_and(a, b)``.")
bitwise_or = _make_binary("bitwise_or", "or", "or", _BOOL_INT,
                          "Element-wise or. Example: ``lax.bitwise_or(a, b)``.")
bitwise_xor = _make_binary("bitwise_xor", "xor", "xor", _BOOL_INT,
                           "Element-wise xor. Example: ``lax.bitwise_xor(a, b)``.")


@api_boundary
def bitwise_not(x):
    """Element-wise not of booleans/integers. Example: ``lax.bitwise_not(a)``."""
    return _unary("not", "not", x, _BOOL_INT)


and_, or_, xor, not_ = bitwise_and, bitwise_or, bitwise_xor, bitwise_not


shift_left = _make_binary("shift_left", "shift_left", "shift_left", _INT,
                          "``x << y``; shifts >= the bit width give 0."
                          " Example: ``lax.shift_left(a, 2)``.")
shift_right_arithmetic = _make_binary("shift_right_arithmetic", "shift_right_arithmetic",
                                      "shift_right_arithmetic", _INT,
                                      "Sign-extending ``x >> y``."
                                      " Example: ``lax.shift_right_arithmetic(a, 1)``.")
shift_right_logical = _make_binary("shift_right_logical", "shift_right_logical",
                                   "shift_right_logical", _INT,
                                   "Zero-filling ``x >> y``."
                                   " Example: ``lax.shift_right_logical(a, 1)``.")


@api_boundary
def population_count(x):
    """Number of set bits per element. Example: ``lax.population_count(a)``."""
    return _unary("population_count", "popcnt", x, _INT)


@api_boundary
def clz(x):
    """Number of leading zero bits per element. Example: ``lax.clz(a)``."""
    return _unary("clz", "count_leading_zeros", x, _INT)


# ----------------------------------------------------------------------- comparison

def _make_compare(name, direction, accepted, doc):
    """Public comparison ``name``: a bool (never weak) ``compare`` in ``direction``."""
    return _make_binary(name, name, "compare", accepted, doc,
                        {"comparison_direction": direction}, weak=False)


eq = _make_compare("eq", "EQ", _ANY,
                   "Element-wise ``x == y`` (bool result). Example: ``lax.eq(x, 0)``.")
ne = _make_compare("ne", "NE", _ANY,
                   "Element-wise ``x != y``. Example: ``lax.ne(x, x)`` is True at NaNs.")
lt = _make_compare("lt", "LT", _ORDERED, "Element-wise ``x < y``. Example: ``lax.lt(x, 0.0)``.")
le = _make_compare("le", "LE", _ORDERED, "Element-wise ``x <= y``. Example: ``lax.le(x, 0.0)``.")
gt = _make_compare("gt", "GT", _ORDERED, "Element-wise ``x > y``. Example: ``lax.gt(x, 0.0)``.")
ge = _make_compare("ge", "GE", _ORDERED, "Element-wise ``x >= y``. Example: ``lax.ge(x, 0.0)``.")


# ---------------------------------------------------------------------------- unary

def _make_unary(name, op, accepted, doc):
    def f(x):
        return _unary(name, op, x, accepted)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"{doc}\n\n    Example:\n        >>> lax.{name}(np.float32(0.5))  # doctest: +SKIP\n    "
    return api_boundary(f)


neg = _make_unary("neg", "negate", _NUM, "Element-wise negation.")
sign = _make_unary("sign", "sign", _SIGNED_INEXACT, "Element-wise sign (-1, 0, 1; NaN stays).")
floor = _make_unary("floor", "floor", _FLOAT, "Element-wise floor.")
ceil = _make_unary("ceil", "ceil", _FLOAT, "Element-wise ceiling.")
exp = _make_unary("exp", "exponential", _INEXACT, "Element-wise e**x.")
expm1 = _make_unary("expm1", "exponential_minus_one", _INEXACT, "Element-wise e**x - 1.")
log = _make_unary("log", "log", _INEXACT, "Element-wise natural logarithm.")
log1p = _make_unary("log1p", "log_plus_one", _INEXACT, "Element-wise log(1 + x).")
logistic = _make_unary("logistic", "logistic", _INEXACT, "Element-wise 1 / (1 + e**-x).")
tanh = _make_unary("tanh", "tanh", _INEXACT, "Element-wise hyperbolic tangent.")
sin = _make_unary("sin", "sine", _INEXACT, "Element-wise sine.")
cos = _make_unary("cos", "cosine", _INEXACT, "Element-wise cosine.")
tan = _make_unary("tan", "tan", _INEXACT, "Element-wise tangent.")
sqrt = _make_unary("sqrt", "sqrt", _INEXACT, "Element-wise square root.")
rsqrt = _make_unary("rsqrt", "rsqrt", _INEXACT, "Element-wise 1 / sqrt(x).")
cbrt = _make_unary("cbrt", "cbrt", _FLOAT, "Element-wise cube root.")
erf = _make_unary("erf", "erf", _FLOAT, "Element-wise error function.")


@api_boundary
def abs(x):
    """Element-wise absolute value; |complex| is real. Example: ``lax.abs(x)``."""
    return _unary("abs", "abs", x, _SIGNED_INEXACT)


@api_boundary
def is_finite(x):
    """True where ``x`` is neither infinite nor NaN. Example: ``lax.is_finite(x)``."""
    return _unary("is_finite", "is_finite", x, _FLOAT, weak=False)


@api_boundary
def real(x):
    """Real part of a complex array. Example: ``lax.real(z)``."""
    return _unary("real", "real", x, _COMPLEX)


@api_boundary
def imag(x):
    """Imaginary part of a complex array. Example: ``lax.imag(z)``."""
    return _unary("imag", "imag", x, _COMPLEX)


@api_boundary
def conj(x):
    """Complex conjugate; a real input gives a complex result as in JAX.

    Example:
        >>> lax.conj(np.complex64(1 + 2j))  # doctest: +SKIP
        Array(1.-2.j, dtype=complex64)
    """
    ops.check_arraylike("conj", x)
    dt = ops.dtype_of(x)
    ops.check_dtype("conj", dt, *_INEXACT)
    if ops.kind(dt) == "f":
        cdt = np.complex128 if dt == np.float64 else np.complex64
        return convert_element_type(x, cdt)
    return complex(real(x), neg(imag(x)))


class RoundingMethod:
    """How ``lax.round`` breaks ties: away from zero (0) or to nearest even (1)."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


@api_boundary
def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
    """Round to the nearest integer value, ties per ``rounding_method``.

    Example:
        >>> lax.round(np.float32(2.5), lax.RoundingMethod.TO_NEAREST_EVEN)  # doctest: +SKIP
        Array(2., dtype=float32)
    """
    method = int(rounding_method)
    if method not in (0, 1):
        raise ValueError(f"round: unknown rounding_method {rounding_method!r}")
    op = "round_nearest_afz" if method == 0 else "round_nearest_even"
    return _unary("round", op, x, _FLOAT)


# ------------------------------------------------------------- composite unary ops

def _full_scalar(value, like):
    return ops.as_operand(value, ops.dtype_of(like))


@api_boundary
def integer_pow(x, y: int):
    """``x ** y`` for a static Python int ``y``, as a chain of multiplies.

    Example:
        >>> lax.integer_pow(np.float32(3), 2)  # doctest: +SKIP
        Array(9., dtype=float32)
    """
    if not isinstance(y, (int, np.integer)) or isinstance(y, bool):
        raise TypeError(f"integer_pow: exponent must be a Python int, got {type(y)}")
    ops.check_arraylike("integer_pow", x)
    ops.check_dtype("integer_pow", ops.dtype_of(x), *_NUM)
    y = int(y)
    if y < 0 and ops.kind(ops.dtype_of(x)) in "iu":
        raise TypeError("Integers cannot be raised to negative powers.")
    if y == 0:
        return _full_like(x, 1)
    acc = None
    base = x
    n = -y if y < 0 else y
    while n:
        if n & 1:
            acc = base if acc is None else mul(acc, base)
        n >>= 1
        if n:
            base = mul(base, base)
    if y < 0:
        acc = div(1, acc)
    return acc


@api_boundary
def square(x):
    """Element-wise ``x * x``. Example: ``lax.square(x)``."""
    return integer_pow(x, 2)


@api_boundary
def reciprocal(x):
    """Element-wise ``1 / x``. Example: ``lax.reciprocal(x)``."""
    return integer_pow(x, -1)


@api_boundary
def exp2(x):
    """Element-wise ``2 ** x``. Example: ``lax.exp2(x)``."""
    return exp(mul(x, math.log(2.0)))


@api_boundary
def atan(x):
    """Element-wise arctangent. Example: ``lax.atan(x)``."""
    return atan2(x, 1.0)


@api_boundary
def asin(x):
    """Element-wise arcsine: 2 atan2(x, 1 + sqrt(1 - x^2)). Example: ``lax.asin(x)``."""
    return mul(2.0, atan2(x, add(1.0, sqrt(sub(1.0, mul(x, x))))))


@api_boundary
def acos(x):
    """Element-wise arccosine. Example: ``lax.acos(x)``."""
    r = mul(2.0, atan2(sqrt(sub(1.0, mul(x, x))), add(1.0, x)))
    return select(ne(x, -1.0), r, _full_like(r, math.pi))


@api_boundary
def sinh(x):
    """Element-wise hyperbolic sine (accurate near 0 through expm1). Example: ``lax.sinh(x)``."""
    e = expm1(x)
    return mul(0.5, add(e, div(e, add(e, 1.0))))


@api_boundary
def cosh(x):
    """Element-wise hyperbolic cosine. Example: ``lax.cosh(x)``."""
    return mul(0.5, add(exp(x), exp(neg(x))))


@api_boundary
def asinh(x):
    """Element-wise inverse hyperbolic sine. Example: ``lax.asinh(x)``."""
    a = abs(x)
    big = gt(a, 1e18 if ops.dtype_of(x) == np.float64 else 1e9)
    small = log1p(add(a, div(mul(a, a), add(1.0, sqrt(add(1.0, mul(a, a)))))))
    large = add(log(a), math.log(2.0))
    return mul(sign(x), select(big, large, small))


@api_boundary
def acosh(x):
    """Element-wise inverse hyperbolic cosine. Example: ``lax.acosh(x)``."""
    return log(add(x, mul(sqrt(add(x, 1.0)), sqrt(sub(x, 1.0)))))


@api_boundary
def atanh(x):
    """Element-wise inverse hyperbolic tangent. Example: ``lax.atanh(x)``."""
    return mul(0.5, log1p(div(mul(2.0, x), sub(1.0, x))))


# ------------------------------------------------------------- select, clamp, convert

@api_boundary
def select(pred, on_true, on_false):
    """Element-wise ``on_true if pred else on_false``; ``pred`` is bool.

    Example:
        >>> lax.select(np.array([True, False]), np.ones(2, np.float32), np.zeros(2, np.float32))
        Array([1., 0.], dtype=float32)
    """
    ops.check_arraylike("select", pred, on_true, on_false)
    if ops.dtype_of(pred) != np.bool_:
        raise TypeError(f"select_n selector must be boolean, got {ops.dtype_of(pred).name}")
    dt = ops.resolve_dtypes("select", (on_true, on_false))
    ts, fs, ps = ops.shape_of(on_true), ops.shape_of(on_false), ops.shape_of(pred)
    if ts != fs and not (ops.is_python_scalar(on_true) or ops.is_python_scalar(on_false)):
        raise TypeError(f"select cases must have the same shapes, got [{ts}, {fs}].")
    shape = ts if not ops.is_python_scalar(on_true) else fs
    if ps and ps != shape:
        raise TypeError(f"select_n selector must be scalar or have the same shape as "
                        f"cases, got selector shape {ps} and case shape {shape}.")
    weak = ops.is_weak(on_true) and ops.is_weak(on_false)
    t = ops.broadcast_to(ops.as_operand(on_true, dt), shape)
    f = ops.broadcast_to(ops.as_operand(on_false, dt), shape)
    return bind("select", [ops.as_operand(pred), t, f], weak_type=weak)


@api_boundary
def clamp(min, x, max):
    """``min(max(x, min), max)`` with scalar or same-shaped bounds.

    Example:
        >>> lax.clamp(0.0, np.array([-1., 2.], np.float32), 1.0)
        Array([0., 1.], dtype=float32)
    """
    ops.check_arraylike("clamp", min, x, max)
    dt = ops.resolve_dtypes("clamp", (min, x, max))
    shape = ops.shape_of(x)
    for b in (min, max):
        bs = ops.shape_of(b)
        if bs and bs != shape:
            raise TypeError(f"clamp requires min.shape == operand.shape or min.shape == (), "
                            f"got {ops.shape_of(min)}, {shape}, {ops.shape_of(max)}.")
    return bind("clamp", [ops.as_operand(min, dt), ops.as_operand(x, dt),
                          ops.as_operand(max, dt)], weak_type=ops.is_weak(x))


@api_boundary
def convert_element_type(operand, new_dtype):
    """``operand`` converted to ``new_dtype`` (a strongly typed result).

    Floats convert to integers by truncation toward zero; complex to real
    keeps the real part; anything to bool is ``x != 0``.

    Example:
        >>> lax.convert_element_type(np.float32(2.7), np.int32)
        Array(2, dtype=int32)
    """
    if new_dtype is None:
        raise ValueError("dtype must be specified.")
    return _convert_element_type(operand, new_dtype, False)


def _convert_element_type(operand, new_dtype, weak_type: bool = False):
    """convert_element_type that also sets the result's weak-type flag."""
    ops.check_arraylike("convert_element_type", operand)
    new = dispatch.canonicalize_dtype(new_dtype if new_dtype is not None
                                      else ops.dtype_of(operand))
    if new not in SUPPORTED_DTYPES:
        raise TypeError(f"convert_element_type: dtype {new} is not a valid xjit array type; "
                        "only bool and numeric dtypes are supported.")
    if not isinstance(operand, (ops.Array, ops.Tracer)):
        # A numpy value or scalar: put on the device as it is (canonicalized) and
        # converted by the convert op, so eager gives jit's values (NaN -> 0, saturation).
        value = ops.as_operand(operand)
        if value.dtype == new:
            return ops.concrete_value(value, weak_type)
        operand = ops.concrete_value(value, ops.is_weak(operand))
    old = operand.dtype
    if old == new and bool(operand.weak_type) == bool(weak_type):
        return operand
    if new == np.bool_ and ops.kind(old) == "c":
        return ne(operand, _full_scalar(0, operand))
    if ops.kind(old) == "c" and ops.kind(new) != "c":
        operand = real(operand)
    return bind("convert", [operand], {"dtype": core.dtype_name(new)}, weak_type=weak_type)


def _full_like(x, value):
    """``lax.full_like(x, value)`` for a Python scalar ``value``: the dtype, shape and
    weak type of ``x``. (shapes.full_like is built on this module, so it is not used.)"""
    dt = ops.dtype_of(x)
    weak = ops.is_weak(x)
    shape = ops.shape_of(x)
    scalar = np.asarray(value).astype(dt)
    if core.current_trace() is None:
        return ops.concrete_value(np.full(shape, scalar, dt), weak)
    return ops.broadcast_to(ops.concrete_value(scalar, weak), shape)
