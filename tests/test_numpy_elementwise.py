"""xjit.numpy element-wise functions against numpy (eager and jit), promotion, errors."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from numpy_checks import BF16, assert_close, check, eager_and_jit, random_array, x64

rng = np.random.default_rng(0)

FLOATS = [np.float32, np.float16, BF16]
INTS = [np.int32, np.int8, np.uint8, np.int16, np.uint32]


BINARY_ARITH = [
    (jnp.add, np.add), (jnp.subtract, np.subtract), (jnp.multiply, np.multiply),
    (jnp.maximum, np.maximum), (jnp.minimum, np.minimum),
]


@pytest.mark.parametrize("dtype", FLOATS + INTS + [np.complex64])
@pytest.mark.parametrize("fn,np_fn", BINARY_ARITH, ids=lambda f: getattr(f, "__name__", ""))
def test_binary_arith_same_dtype(fn, np_fn, dtype):
    if np.dtype(dtype).kind == "c" and fn in (jnp.maximum, jnp.minimum):
        pytest.skip("numpy orders complex lexicographically")
    a = random_array(rng, (3, 4), dtype)
    b = random_array(rng, (3, 4), dtype)
    check(fn, np_fn, [a, b], dtype=dtype)


@pytest.mark.parametrize("fn,np_fn", [(jnp.add, np.logical_or), (jnp.multiply, np.logical_and),
                                      (jnp.maximum, np.maximum), (jnp.minimum, np.minimum)])
def test_binary_on_bool(fn, np_fn):
    a = random_array(rng, (5,), np.bool_)
    b = random_array(rng, (5,), np.bool_)
    check(fn, np_fn, [a, b], dtype=np.bool_)


def test_bool_subtract_and_negative_raise_type_error():
    b = jnp.asarray(np.array([True, False]))
    with pytest.raises(TypeError):
        jnp.subtract(b, b)
    with pytest.raises(TypeError):
        jnp.negative(b)


@pytest.mark.parametrize("shapes", [((2, 3), (3,)), ((4, 1), (1, 5)), ((), (2, 2)),
                                    ((2, 1, 3), (4, 1)), ((0, 3), (1, 3))])
def test_broadcasting(shapes):
    a = random_array(rng, shapes[0], np.float32)
    b = random_array(rng, shapes[1], np.float32)
    check(jnp.add, np.add, [a, b], dtype=np.float32)
    check(jnp.multiply, np.multiply, [b, a], dtype=np.float32)


def test_broadcasting_mismatch_raises_value_error():
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        jnp.add(jnp.zeros((2, 3)), jnp.zeros((4,)))


def test_non_array_argument_raises_type_error():
    with pytest.raises(TypeError):
        jnp.add([1, 2], jnp.zeros(2))
    with pytest.raises(TypeError):
        jnp.sin("a")


@pytest.mark.parametrize("a_dtype,b,want,weak", [
    (np.int8, 1, np.int8, False),
    (np.float16, 1.0, np.float16, False),
    (np.int32, 1.0, np.float32, True),
    (np.uint8, 3, np.uint8, False),
    (BF16, 2, BF16, False),
    (np.float32, 1j, np.complex64, False),
    (np.bool_, 1, np.int32, True),
])
def test_weak_scalar_promotion(a_dtype, b, want, weak):
    x = jnp.asarray(random_array(rng, (3,), a_dtype))
    for out in eager_and_jit(jnp.add, x, b):
        assert out.dtype == np.dtype(want)
        assert out.weak_type == weak


@pytest.mark.parametrize("a_dtype,b_dtype,want", [
    (np.uint8, np.int8, np.int16), (BF16, np.float16, np.float32),
    (np.int32, np.float16, np.float16), (np.uint32, np.int32, np.int32),
    (np.int64, np.uint64, np.int32),   # canonicalized to int32 + uint32 first (x64 off)
    (np.float32, np.complex64, np.complex64),
])
def test_strong_promotion(a_dtype, b_dtype, want):
    x = jnp.asarray(random_array(rng, (3,), a_dtype))
    y = jnp.asarray(random_array(rng, (3,), b_dtype))
    for out in eager_and_jit(jnp.multiply, x, y):
        assert out.dtype == np.dtype(want)
        assert not out.weak_type


def test_weak_results_of_python_scalars():
    out = jnp.add(1, 2.0)
    assert out.dtype == np.float32 and out.weak_type
    assert float(out) == 3.0
    f16 = jnp.ones(3, jnp.float16)
    assert jnp.add(f16, jnp.asarray(1.0)).dtype == np.float16   # weak array operand
    assert jnp.add(f16, 1.0).dtype == np.float16


def test_x64_promotion():
    with x64(True):
        x = jnp.asarray(np.arange(3, dtype=np.int64))
        assert x.dtype == np.int64
        assert jnp.add(x, 1).dtype == np.int64
        assert jnp.add(x, 1.5).dtype == np.float64
        y = jnp.asarray(np.arange(3, dtype=np.uint64))
        assert jnp.add(x, y).dtype == np.float64
    assert jnp.asarray(np.arange(3, dtype=np.int64)).dtype == np.int32


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8, np.float32, np.float16])
def test_true_divide(dtype):
    a = random_array(rng, (6,), dtype)
    b = random_array(rng, (6,), dtype, low=1, high=5)
    want = dtype if np.dtype(dtype).kind == "f" else np.float32
    check(jnp.true_divide, np.true_divide, [a, b], dtype=want)
    check(jnp.divide, np.divide, [a, b], dtype=want)


def test_int_divide_by_python_int_is_weak_float():
    out = jnp.divide(jnp.arange(4), 2)
    assert out.dtype == np.float32 and not out.weak_type
    np.testing.assert_allclose(np.asarray(out), np.arange(4) / 2)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8, np.float32, np.float16])
@pytest.mark.parametrize("fn,np_fn", [(jnp.floor_divide, np.floor_divide),
                                      (jnp.remainder, np.remainder), (jnp.mod, np.mod),
                                      (jnp.fmod, np.fmod)])
def test_floor_divide_and_remainder_signs(fn, np_fn, dtype):
    if np.dtype(dtype).kind == "u":
        a = np.array([7, 0, 9, 255, 3], dtype)
        b = np.array([2, 3, 9, 7, 5], dtype)
    else:
        a = np.array([7, -7, 7, -7, 0, 6, -6, 5], dtype)
        b = np.array([2, 2, -2, -2, 3, -3, 3, 5], dtype)
    check(fn, np_fn, [a, b], dtype=dtype)


def test_floor_divide_floats_with_fractions():
    a = np.array([-7.5, 7.5, -0.5, 2.25], np.float32)
    b = np.array([2.0, -2.0, 0.25, -0.5], np.float32)
    check(jnp.floor_divide, np.floor_divide, [a, b], dtype=np.float32)
    check(jnp.remainder, np.remainder, [a, b], dtype=np.float32)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8, np.float32, np.float16])
def test_power(dtype):
    a = random_array(rng, (6,), dtype, low=0, high=4)
    b = random_array(rng, (6,), dtype, low=0, high=4)
    check(jnp.power, np.power, [a, b], dtype=dtype)


def test_power_int_large_and_python_exponent():
    a = np.array([2, -3, 5, 1, 0], np.int32)
    check(jnp.power, np.power, [a, np.array([30, 5, 3, 100, 0], np.int32)], dtype=np.int32)
    out = jnp.power(jnp.asarray(a), 2)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), a ** 2)
    f = jnp.power(jnp.asarray(np.array([4.0, 9.0], np.float32)), 0.5)
    np.testing.assert_allclose(np.asarray(f), [2.0, 3.0], rtol=1e-6)


UNARY_FLOAT = [
    (jnp.exp, np.exp, (-3, 3)), (jnp.exp2, np.exp2, (-3, 3)), (jnp.expm1, np.expm1, (-3, 3)),
    (jnp.log, np.log, (0.1, 5)), (jnp.log2, np.log2, (0.1, 5)), (jnp.log10, np.log10, (0.1, 5)),
    (jnp.log1p, np.log1p, (-0.5, 5)), (jnp.sqrt, np.sqrt, (0, 5)), (jnp.cbrt, np.cbrt, (-5, 5)),
    (jnp.sin, np.sin, (-3, 3)), (jnp.cos, np.cos, (-3, 3)), (jnp.tan, np.tan, (-1, 1)),
    (jnp.tanh, np.tanh, (-3, 3)), (jnp.sinh, np.sinh, (-3, 3)), (jnp.cosh, np.cosh, (-3, 3)),
    (jnp.arctan, np.arctan, (-3, 3)), (jnp.arcsin, np.arcsin, (-0.9, 0.9)),
    (jnp.arccos, np.arccos, (-0.9, 0.9)), (jnp.square, np.square, (-3, 3)),
    (jnp.reciprocal, np.reciprocal, (0.5, 3)), (jnp.negative, np.negative, (-3, 3)),
    (jnp.positive, np.positive, (-3, 3)), (jnp.abs, np.abs, (-3, 3)),
    (jnp.absolute, np.absolute, (-3, 3)), (jnp.sign, np.sign, (-3, 3)),
    (jnp.floor, np.floor, (-3, 3)), (jnp.ceil, np.ceil, (-3, 3)), (jnp.trunc, np.trunc, (-3, 3)),
    (jnp.rint, np.rint, (-3, 3)),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("fn,np_fn,rng_range", UNARY_FLOAT, ids=lambda f: getattr(f, "__name__", ""))
def test_unary_float(fn, np_fn, rng_range, dtype):
    a = rng.uniform(*rng_range, size=(3, 5)).astype(np.float32).astype(dtype)
    rtol = {np.dtype(np.float32): 2e-5}.get(np.dtype(dtype))
    check(fn, np_fn, [a], dtype=dtype, rtol=rtol, atol=1e-5 if rtol else None)


@pytest.mark.parametrize("fn,np_fn", [(jnp.exp, np.exp), (jnp.sqrt, np.sqrt), (jnp.sin, np.sin),
                                      (jnp.log1p, np.log1p)])
def test_unary_float_of_ints_gives_default_float(fn, np_fn):
    a = np.array([0, 1, 2, 3], np.int32)
    check(fn, np_fn, [a], dtype=np.float32, rtol=1e-6)
    a8 = np.array([0, 1, 2, 3], np.int8)   # numpy would give float16; JAX gives float32
    check(fn, lambda x: np_fn(x.astype(np.float32)), [a8], dtype=np.float32, rtol=1e-6)


@pytest.mark.parametrize("fn,np_fn", [(jnp.floor, np.floor), (jnp.ceil, np.ceil),
                                      (jnp.trunc, np.trunc), (jnp.round, np.round)])
def test_rounding_of_ints_is_identity(fn, np_fn):
    a = np.array([-3, 0, 7], np.int32)
    check(fn, np_fn, [a], dtype=np.int32)


@pytest.mark.parametrize("dtype", INTS + [np.bool_])
@pytest.mark.parametrize("fn,np_fn", [(jnp.negative, np.negative), (jnp.abs, np.abs),
                                      (jnp.sign, np.sign), (jnp.square, np.square)])
def test_unary_int(fn, np_fn, dtype):
    if dtype == np.bool_ and fn in (jnp.negative, jnp.sign, jnp.abs):
        pytest.skip("numpy rejects or differs on bool")
    a = random_array(rng, (7,), dtype)
    check(fn, np_fn, [a], dtype=dtype)


def test_round_half_even_and_decimals():
    a = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.567, -2.567, 3.4], np.float32)
    check(jnp.round, np.round, [a], dtype=np.float32)
    check(lambda x: jnp.round(x, 2), lambda x: np.round(x, 2), [a], dtype=np.float32, rtol=1e-6)
    check(jnp.around, np.around, [a], dtype=np.float32)


@pytest.mark.parametrize("dtype", [np.complex64])
@pytest.mark.parametrize("fn,np_fn", [(jnp.real, np.real), (jnp.imag, np.imag),
                                      (jnp.conj, np.conj), (jnp.conjugate, np.conjugate),
                                      (jnp.abs, np.abs), (jnp.exp, np.exp),
                                      (jnp.negative, np.negative)])
def test_complex_unary(fn, np_fn, dtype):
    a = random_array(rng, (4,), dtype, low=-2, high=2)
    check(fn, np_fn, [a], rtol=2e-5, atol=1e-5)


def test_real_imag_of_real_inputs():
    a = np.array([1.5, -2.0], np.float32)
    check(jnp.real, np.real, [a], dtype=np.float32)
    check(jnp.imag, np.imag, [a], dtype=np.float32)
    check(jnp.conj, np.conj, [a], dtype=np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.float16])
@pytest.mark.parametrize("fn,np_fn", [(jnp.equal, np.equal), (jnp.not_equal, np.not_equal),
                                      (jnp.less, np.less), (jnp.less_equal, np.less_equal),
                                      (jnp.greater, np.greater),
                                      (jnp.greater_equal, np.greater_equal)])
def test_comparisons(fn, np_fn, dtype):
    a = random_array(rng, (3, 4), dtype, low=0, high=3)
    b = random_array(rng, (4,), dtype, low=0, high=3)
    check(fn, np_fn, [a, b], dtype=np.bool_)


def test_comparison_with_python_scalar():
    a = np.array([1, 2, 3], np.int8)
    check(lambda x: jnp.less(x, 2), lambda x: np.less(x, 2), [a], dtype=np.bool_)


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.float32])
@pytest.mark.parametrize("fn,np_fn", [(jnp.logical_and, np.logical_and),
                                      (jnp.logical_or, np.logical_or),
                                      (jnp.logical_xor, np.logical_xor)])
def test_logical(fn, np_fn, dtype):
    a = random_array(rng, (6,), dtype, low=0, high=2)
    b = random_array(rng, (6,), dtype, low=0, high=2)
    check(fn, np_fn, [a, b], dtype=np.bool_)
    check(jnp.logical_not, np.logical_not, [a], dtype=np.bool_)


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.uint8, np.int8])
@pytest.mark.parametrize("fn,np_fn", [(jnp.bitwise_and, np.bitwise_and),
                                      (jnp.bitwise_or, np.bitwise_or),
                                      (jnp.bitwise_xor, np.bitwise_xor)])
def test_bitwise(fn, np_fn, dtype):
    a = random_array(rng, (6,), dtype, low=-50, high=50)
    b = random_array(rng, (6,), dtype, low=-50, high=50)
    check(fn, np_fn, [a, b], dtype=dtype)
    check(jnp.invert, np.invert, [a], dtype=dtype)


def test_bitwise_on_float_raises():
    with pytest.raises(TypeError):
        jnp.bitwise_and(jnp.zeros(2), jnp.zeros(2))
    with pytest.raises(TypeError):
        jnp.invert(jnp.zeros(2))


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int8])
def test_shifts(dtype):
    a = random_array(rng, (6,), dtype, low=-50, high=50)
    s = np.array([0, 1, 2, 3, 1, 4], dtype)
    check(jnp.left_shift, np.left_shift, [a, s], dtype=dtype)
    check(jnp.right_shift, np.right_shift, [a, s], dtype=dtype)


def test_nan_inf_predicates():
    a = np.array([1.0, np.nan, np.inf, -np.inf, 0.0, -2.0], np.float32)
    for fn, np_fn in [(jnp.isnan, np.isnan), (jnp.isinf, np.isinf), (jnp.isfinite, np.isfinite),
                      (jnp.isposinf, np.isposinf), (jnp.isneginf, np.isneginf),
                      (jnp.signbit, np.signbit)]:
        check(fn, np_fn, [a], dtype=np.bool_)
    i = np.array([1, 2], np.int32)
    check(jnp.isnan, np.isnan, [i], dtype=np.bool_)
    check(jnp.isfinite, np.isfinite, [i], dtype=np.bool_)


def test_nan_propagation_in_maximum_and_fmax():
    a = np.array([1.0, np.nan, 3.0, np.nan], np.float32)
    b = np.array([np.nan, 2.0, 1.0, np.nan], np.float32)
    check(jnp.maximum, np.maximum, [a, b], dtype=np.float32)
    check(jnp.minimum, np.minimum, [a, b], dtype=np.float32)
    check(jnp.fmax, np.fmax, [a, b], dtype=np.float32)
    check(jnp.fmin, np.fmin, [a, b], dtype=np.float32)


def test_arctan2_and_hypot():
    a = random_array(rng, (5,), np.float32)
    b = random_array(rng, (5,), np.float32)
    check(jnp.arctan2, np.arctan2, [a, b], dtype=np.float32, rtol=1e-5)
    check(jnp.hypot, np.hypot, [a, b], dtype=np.float32, rtol=1e-6)


def test_clip():
    a = np.arange(-5, 5).astype(np.int32)
    check(lambda x: jnp.clip(x, -2, 3), lambda x: np.clip(x, -2, 3), [a], dtype=np.int32)
    check(lambda x: jnp.clip(x, max=1), lambda x: np.clip(x, None, 1), [a], dtype=np.int32)
    check(lambda x: jnp.clip(x, a_min=0), lambda x: np.clip(x, 0, None), [a], dtype=np.int32)
    f = np.linspace(-2, 2, 7).astype(np.float32)
    check(lambda x: jnp.clip(x, -1.0, 1.0), lambda x: np.clip(x, -1.0, 1.0), [f], dtype=np.float32)


def test_where():
    c = np.array([[True, False, True]])
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.float32(-1)
    check(jnp.where, np.where, [c, a, b], dtype=np.float32)
    out = jnp.where(jnp.arange(3) > 0, 1, 0)
    assert out.dtype == np.int32 and out.weak_type
    with pytest.raises(ValueError):
        jnp.where(c, a)
    (idx,) = jnp.where(jnp.asarray(np.array([0, 2, 0, 1])))
    np.testing.assert_array_equal(np.asarray(idx), [1, 3])


def test_divmod_and_angle():
    q, r = jnp.divmod(jnp.asarray(np.array([-7, 7], np.int32)), 2)
    np.testing.assert_array_equal(np.asarray(q), [-4, 3])
    np.testing.assert_array_equal(np.asarray(r), [1, 1])
    z = np.array([1 + 1j, -1j], np.complex64)
    check(jnp.angle, np.angle, [z], dtype=np.float32, rtol=1e-6)


def test_array_operators_delegate():
    x = jnp.asarray(np.array([1.0, -2.0, 3.0], np.float32))
    np.testing.assert_allclose(np.asarray(x * 2 + 1), [3.0, -3.0, 7.0])
    np.testing.assert_allclose(np.asarray(-x), [-1.0, 2.0, -3.0])
    assert (x + 1).dtype == np.float32
    out = xjit.jit(lambda v: v / 2 - v ** 2)(x)
    assert_close(out, np.array([1.0, -2.0, 3.0], np.float32) / 2 - np.array([1.0, -2.0, 3.0], np.float32) ** 2,
                 dtype=np.float32)
