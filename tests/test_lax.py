"""lax ops against numpy, eagerly and under jit, on the "cpu" and "reference" devices."""
import math

import numpy as np
import pytest

import xjit
from xjit import lax

PLATFORMS = ["cpu", "reference"]
rng = np.random.default_rng(0)


@pytest.fixture(params=PLATFORMS)
def put(request):
    """Puts numpy inputs on the parametrized platform's first device."""
    try:
        device = xjit.devices(request.param)[0]
    except RuntimeError:
        pytest.skip(f"platform {request.param} not built")
    return lambda x: xjit.device_put(x, device)


def check(lax_fn, np_fn, *args, put, rtol=1e-6, atol=1e-6, jit=True):
    want = np_fn(*args)
    got = lax_fn(*[put(a) for a in args])
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    if jit:
        got_jit = xjit.jit(lax_fn)(*args)
        np.testing.assert_allclose(np.asarray(got_jit), want, rtol=rtol, atol=atol)


F32 = rng.standard_normal((3, 4)).astype(np.float32)
POS = (rng.random((3, 4)) + 0.5).astype(np.float32)
I32 = rng.integers(-20, 20, (3, 4)).astype(np.int32)
NZ_I32 = np.where(I32 == 0, 3, I32).astype(np.int32)

UNARY = [
    (lax.neg, np.negative, F32), (lax.abs, np.abs, F32), (lax.abs, np.abs, I32),
    (lax.sign, np.sign, F32), (lax.floor, np.floor, F32), (lax.ceil, np.ceil, F32),
    (lax.exp, np.exp, F32), (lax.expm1, np.expm1, F32), (lax.log, np.log, POS),
    (lax.log1p, np.log1p, POS), (lax.tanh, np.tanh, F32), (lax.sin, np.sin, F32),
    (lax.cos, np.cos, F32), (lax.tan, np.tan, F32 * 0.5), (lax.sqrt, np.sqrt, POS),
    (lax.rsqrt, lambda x: 1 / np.sqrt(x), POS), (lax.cbrt, np.cbrt, F32),
    (lax.logistic, lambda x: 1 / (1 + np.exp(-x)), F32),
    (lax.is_finite, np.isfinite, np.array([1.0, np.inf, np.nan], np.float32)),
    (lax.erf, np.vectorize(math.erf, otypes=[np.float32]), F32),
    (lax.square, np.square, F32), (lax.reciprocal, np.reciprocal, POS),
    (lax.bitwise_not, np.invert, I32), (lax.population_count,
                                         lambda x: np.array([bin(v).count("1") for v in
                                                             x.ravel()], np.int32).reshape(
                                             x.shape), np.abs(I32)),
    (lax.asin, np.arcsin, POS - 0.5), (lax.acos, np.arccos, POS - 0.5),
    (lax.atan, np.arctan, F32), (lax.sinh, np.sinh, F32), (lax.cosh, np.cosh, F32),
    (lax.asinh, np.arcsinh, F32), (lax.acosh, np.arccosh, POS + 1),
    (lax.atanh, np.arctanh, (POS - 1) * 0.9), (lax.exp2, np.exp2, F32),
]


@pytest.mark.parametrize("lax_fn,np_fn,x", UNARY, ids=lambda v: getattr(v, "__name__", ""))
def test_unary(lax_fn, np_fn, x, put):
    check(lax_fn, np_fn, x, put=put, rtol=2e-5, atol=2e-6)


BINARY = [
    (lax.add, np.add, F32, F32 * 2), (lax.sub, np.subtract, I32, I32 * 3),
    (lax.mul, np.multiply, F32, F32), (lax.div, np.divide, F32, POS),
    (lax.div, lambda a, b: np.trunc(a / b).astype(np.int32), I32, NZ_I32),
    (lax.rem, np.fmod, I32, NZ_I32), (lax.rem, np.fmod, F32, POS),
    (lax.pow, np.power, POS, F32), (lax.max, np.maximum, F32, F32.T.reshape(3, 4)),
    (lax.min, np.minimum, I32, NZ_I32), (lax.atan2, np.arctan2, F32, POS),
    (lax.bitwise_and, np.bitwise_and, I32, NZ_I32), (lax.bitwise_or, np.bitwise_or, I32, NZ_I32),
    (lax.bitwise_xor, np.bitwise_xor, I32, NZ_I32),
    (lax.shift_left, np.left_shift, np.abs(I32), np.abs(I32) % 8),
    (lax.shift_right_arithmetic, np.right_shift, I32, np.abs(I32) % 8),
    (lax.eq, np.equal, I32, NZ_I32), (lax.ne, np.not_equal, I32, NZ_I32),
    (lax.lt, np.less, F32, POS), (lax.le, np.less_equal, I32, NZ_I32),
    (lax.gt, np.greater, F32, POS), (lax.ge, np.greater_equal, I32, NZ_I32),
]


@pytest.mark.parametrize("lax_fn,np_fn,x,y", BINARY, ids=lambda v: getattr(v, "__name__", ""))
def test_binary(lax_fn, np_fn, x, y, put):
    check(lax_fn, np_fn, x, y, put=put, rtol=2e-5, atol=2e-6)


def test_shift_right_logical_and_clz(put):
    x = np.array([-8, 8, 1, 0], np.int32)
    got = lax.shift_right_logical(put(x), put(np.array([1, 1, 0, 3], np.int32)))
    np.testing.assert_array_equal(np.asarray(got),
                                  (x.view(np.uint32) >> np.array([1, 1, 0, 3], np.uint32))
                                  .view(np.int32))
    np.testing.assert_array_equal(np.asarray(lax.clz(put(np.array([1, 0, -1, 256], np.int32)))),
                                  [31, 32, 0, 23])


def test_python_scalar_takes_operand_dtype(put):
    x = put(np.array([1, 2], np.int8))
    out = lax.add(x, 3)
    assert out.dtype == np.int8 and not out.weak_type
    np.testing.assert_array_equal(np.asarray(out), [4, 5])
    h = lax.mul(put(np.ones(2, np.float16)), 2.5)
    assert h.dtype == np.float16
    s = lax.add(1.0, 2.0)
    assert s.dtype == np.float32 and s.weak_type and s.shape == ()
    assert lax.add(np.float32(1), np.float32(2)).shape == ()  # 0-d stays 0-d


def test_dtype_mismatch_is_type_error():
    with pytest.raises(TypeError, match=r"lax.add requires arguments to have the same "
                                        r"dtypes, got float32, int32"):
        lax.add(np.ones(2, np.float32), np.ones(2, np.int32))
    with pytest.raises(TypeError, match="sin does not accept dtype int32"):
        lax.sin(np.ones(2, np.int32))


def test_round_methods(put):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.7], np.float32)
    np.testing.assert_array_equal(np.asarray(lax.round(put(x))), [1, 2, 3, -1, -2])
    np.testing.assert_array_equal(
        np.asarray(lax.round(put(x), lax.RoundingMethod.TO_NEAREST_EVEN)), np.round(x))


def test_integer_pow(put):
    x = np.array([1.5, -2.0, 3.0], np.float32)
    for n in (0, 1, 2, 3, 5, -2):
        np.testing.assert_allclose(np.asarray(lax.integer_pow(put(x), n)), x ** float(n),
                                   rtol=1e-6)


def test_complex_ops(put):
    re, im = np.array([1.0, -2.0], np.float32), np.array([0.5, 3.0], np.float32)
    z = lax.complex(put(re), put(im))
    assert z.dtype == np.complex64
    np.testing.assert_allclose(np.asarray(z), re + 1j * im)
    np.testing.assert_allclose(np.asarray(lax.real(z)), re)
    np.testing.assert_allclose(np.asarray(lax.imag(z)), im)
    np.testing.assert_allclose(np.asarray(lax.conj(z)), re - 1j * im)
    np.testing.assert_allclose(np.asarray(lax.abs(z)), np.abs(re + 1j * im), rtol=1e-6)


def test_select_and_clamp(put):
    p = np.array([True, False, True])
    a, b = np.arange(3, dtype=np.float32), -np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(lax.select(put(p), put(a), put(b))),
                                  np.where(p, a, b))
    x = np.array([-2.0, 0.5, 3.0], np.float32)
    np.testing.assert_array_equal(np.asarray(lax.clamp(0.0, put(x), 1.0)), np.clip(x, 0, 1))


def test_convert_element_type(put):
    x = np.array([-1.7, 0.0, 2.9], np.float32)
    np.testing.assert_array_equal(np.asarray(lax.convert_element_type(put(x), np.int32)),
                                  [-1, 0, 2])
    b = lax.convert_element_type(put(x), np.bool_)
    np.testing.assert_array_equal(np.asarray(b), [True, False, True])
    f = lax.convert_element_type(b, np.float32)
    np.testing.assert_array_equal(np.asarray(f), [1.0, 0.0, 1.0])
    w = lax.convert_element_type(2.0, np.float32)
    assert not w.weak_type


def test_shape_ops(put):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    check(lambda a: lax.reshape(a, (6, 4)), lambda a: a.reshape(6, 4), x, put=put)
    check(lambda a: lax.reshape(a, (4, 6), (2, 1, 0)),
          lambda a: a.transpose(2, 1, 0).reshape(4, 6), x, put=put)
    check(lambda a: lax.transpose(a, (2, 0, 1)), lambda a: a.transpose(2, 0, 1), x, put=put)
    check(lambda a: lax.broadcast_in_dim(a, (5, 2, 3, 4), (1, 2, 3)),
          lambda a: np.broadcast_to(a, (5, 2, 3, 4)), x, put=put)
    check(lambda a: lax.broadcast(a, (2,)), lambda a: np.broadcast_to(a, (2, 2, 3, 4)), x,
          put=put)
    check(lambda a: lax.slice(a, (0, 1, 0), (2, 3, 4), (1, 1, 2)),
          lambda a: a[0:2, 1:3, 0:4:2], x, put=put)
    check(lambda a: lax.slice_in_dim(a, -3, None, 2, axis=2), lambda a: a[:, :, -3::2], x,
          put=put)
    check(lambda a: lax.index_in_dim(a, -1, 1, keepdims=False), lambda a: a[:, -1], x,
          put=put)
    check(lambda a: lax.rev(a, (0, 2)), lambda a: a[::-1, :, ::-1], x, put=put)
    check(lambda a: lax.squeeze(lax.expand_dims(a, (0, -1)), (0, 4)), lambda a: a, x,
          put=put)
    check(lambda a: lax.concatenate([a, a * 2], 1), lambda a: np.concatenate([a, a * 2], 1),
          x, put=put)
    check(lambda a: lax.pad(a, 0.0, [(1, 0, 0), (0, 2, 1), (-1, 1, 0)]),
          lambda a: _np_pad(a), x, put=put)


def _np_pad(a):
    inter = np.zeros((2, 5, 4), a.dtype)
    inter[:, ::2, :] = a
    out = np.zeros((3, 7, 4), a.dtype)
    out[1:, :5, :3] = inter[:, :, 1:]
    return out


def test_iota_and_full(put):
    np.testing.assert_array_equal(np.asarray(lax.iota(np.int32, 4)), np.arange(4))
    np.testing.assert_array_equal(np.asarray(lax.broadcasted_iota(np.float32, (2, 3), 0)),
                                  [[0, 0, 0], [1, 1, 1]])
    f = lax.full((2, 2), 1.5)
    assert f.weak_type and f.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(f), np.full((2, 2), 1.5))
    like = lax.full_like(put(np.ones(3, np.int8)), 7)
    assert like.dtype == np.int8 and np.asarray(like).tolist() == [7, 7, 7]
    inside = xjit.jit(lambda x: lax.add(x, lax.full(x.shape, 2.0, x.dtype)))(
        np.ones(3, np.float32))
    np.testing.assert_array_equal(np.asarray(inside), [3.0, 3.0, 3.0])


def test_dot_general(put):
    a = rng.standard_normal((4, 2, 3)).astype(np.float32)
    b = rng.standard_normal((4, 3, 5)).astype(np.float32)
    check(lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
          lambda x, y: np.einsum("bij,bjk->bik", x, y), a, b, put=put, rtol=1e-5, atol=1e-5)
    m = rng.standard_normal((3, 5)).astype(np.float32)
    v = rng.standard_normal(5).astype(np.float32)
    check(lax.dot, np.dot, m, v, put=put, rtol=1e-5, atol=1e-5)
    check(lax.dot, np.dot, v, v, put=put, rtol=1e-5, atol=1e-5)
    i8 = np.arange(6, dtype=np.int8).reshape(2, 3)
    out = lax.dot_general(put(i8), put(i8.T.copy()), (((1,), (0,)), ((), ())),
                          preferred_element_type=np.int32)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), i8.astype(np.int32) @ i8.T)


REDUCTIONS = [(lax.reduce_sum, np.sum), (lax.reduce_prod, np.prod), (lax.reduce_max, np.max),
              (lax.reduce_min, np.min)]


@pytest.mark.parametrize("lax_fn,np_fn", REDUCTIONS, ids=lambda v: getattr(v, "__name__", ""))
def test_monoid_reductions(lax_fn, np_fn, put):
    check(lambda a: lax_fn(a, (0, 2)), lambda a: np_fn(a, axis=(0, 2)),
          (POS[None] * np.ones((2, 1, 1), np.float32)), put=put, rtol=1e-5)
    check(lambda a: lax_fn(a, (1,)), lambda a: np_fn(a, axis=1).astype(a.dtype), I32 % 4,
          put=put)


def test_reduce_and_or(put):
    m = np.array([[True, False], [True, True]])
    np.testing.assert_array_equal(np.asarray(lax.reduce_and(put(m), (1,))), [False, True])
    np.testing.assert_array_equal(np.asarray(lax.reduce_or(put(m), (0,))), [True, True])


def test_general_reduce_with_python_body(put):
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    out = lax.reduce(put(x), np.float32(0), lambda a, b: lax.add(a, lax.mul(b, b)), (1,))
    np.testing.assert_allclose(np.asarray(out), (x * x).sum(1))
    # variadic: (max, sum) in one pass
    mx, sm = lax.reduce((put(x), put(x)), (np.float32(-np.inf), np.float32(0)),
                        lambda a, b: (lax.max(a[0], b[0]), lax.add(a[1], b[1])), (0,))
    np.testing.assert_allclose(np.asarray(mx), x.max(0))
    np.testing.assert_allclose(np.asarray(sm), x.sum(0))
    jitted = xjit.jit(lambda v: lax.reduce(v, 0.0, lax.add, (0, 1)))
    np.testing.assert_allclose(np.asarray(jitted(x)), x.sum())


def test_argmax_argmin_first_occurrence_and_nan(put):
    x = np.array([[1.0, 3.0, 3.0, 0.0], [np.nan, 2.0, np.nan, 5.0]], np.float32)
    np.testing.assert_array_equal(np.asarray(lax.argmax(put(x), 1, np.int32)), [1, 0])
    np.testing.assert_array_equal(np.asarray(lax.argmin(put(x), 1, np.int32)), [3, 0])
    y = np.array([[2, 7, 7], [1, 1, 0]], np.int32)
    np.testing.assert_array_equal(np.asarray(lax.argmax(put(y), 0, np.int32)), [0, 0, 0])
    np.testing.assert_array_equal(np.asarray(lax.argmax(put(y), 1, np.int32)), [1, 0])
    np.testing.assert_array_equal(np.asarray(lax.argmin(put(y), 1, np.int32)), [0, 2])


def test_control_flow():
    f = xjit.jit(lambda p, x: lax.cond(p, lambda v: lax.mul(v, 2.0), lambda v: lax.neg(v), x))
    assert float(f(True, np.float32(3))) == 6.0
    assert float(f(False, np.float32(3))) == -3.0
    assert int(lax.fori_loop(0, 4, lambda i, s: lax.add(s, i), 0)) == 6
    carry, ys = lax.scan(lambda c, x: (lax.add(c, x), c), np.float32(0),
                         np.arange(4, dtype=np.float32))
    assert float(carry) == 6.0 and np.asarray(ys).tolist() == [0.0, 0.0, 1.0, 3.0]
    assert int(lax.while_loop(lambda x: lax.lt(x, 10), lambda x: lax.mul(x, 2), 1)) == 16


def test_eager_ops_are_cached():
    from xjit._src import dispatch
    x = np.ones(5, np.float32)
    lax.add(x, x)
    n = dispatch.eager_cache_size()
    lax.add(x, x)
    lax.add(x + 1, x)
    assert dispatch.eager_cache_size() == n
