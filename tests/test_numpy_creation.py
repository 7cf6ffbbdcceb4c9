"""xjit.numpy array creation: values against numpy, dtypes against JAX's defaults."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from numpy_checks import BF16, assert_close, x64


def test_array_default_dtypes_and_weak_types():
    assert_close(jnp.array([1, 2]), np.array([1, 2], np.int32))
    assert_close(jnp.array([1, 2.5]), np.array([1, 2.5], np.float32))
    assert_close(jnp.array([[True, False]]), np.array([[True, False]]))
    assert_close(jnp.array(np.arange(3, dtype=np.float64)), np.arange(3, dtype=np.float32))
    assert_close(jnp.array([1 + 2j]), np.array([1 + 2j], np.complex64))
    assert jnp.array(1.0).weak_type and jnp.array(1.0).dtype == np.float32
    assert not jnp.array([1.0]).weak_type
    assert not jnp.array(np.float32(1)).weak_type
    assert jnp.array([np.int8(1), 2]).dtype == np.int8   # weak 2 does not widen int8


def test_array_dtype_argument_and_ndmin():
    assert_close(jnp.array([1, 2], dtype=jnp.float16), np.array([1, 2], np.float16))
    assert_close(jnp.array([1.5], dtype="bfloat16"), np.array([1.5], BF16), dtype=BF16)
    assert jnp.array(3, ndmin=2).shape == (1, 1)
    x = jnp.array([1, 2])
    assert jnp.asarray(x) is x
    assert jnp.asarray(x, dtype=jnp.float32).dtype == np.float32


def test_array_from_tracers_under_jit():
    f = xjit.jit(lambda a, b: jnp.array([a, b, 3.0]))
    out = f(jnp.float32(1), jnp.float32(2))
    assert_close(out, np.array([1, 2, 3], np.float32))


def test_array_bad_input():
    with pytest.raises(TypeError):
        jnp.array("abc")
    with pytest.raises(TypeError):
        jnp.array([object()])


def test_x64_switch():
    with x64(True):
        assert jnp.array([1, 2]).dtype == np.int64
        assert jnp.zeros(2).dtype == np.float64
        assert jnp.arange(3).dtype == np.int64
    assert jnp.array([1, 2]).dtype == np.int32
    assert jnp.zeros(2).dtype == np.float32


@pytest.mark.parametrize("fn,np_fn", [(jnp.zeros, np.zeros), (jnp.ones, np.ones)])
@pytest.mark.parametrize("dtype", [None, jnp.int8, jnp.bool_, jnp.bfloat16, jnp.complex64])
def test_zeros_ones(fn, np_fn, dtype):
    want = np.float32 if dtype is None else np.dtype(dtype)
    for shape in [(2, 3), 4, (), (0, 2)]:
        out = fn(shape, dtype)
        assert_close(out, np_fn(shape, np.float32).astype(want), dtype=want)
        assert not out.weak_type
    assert jnp.empty((2,)).shape == (2,)


def test_full():
    out = jnp.full((2, 2), 7)
    assert_close(out, np.full((2, 2), 7, np.int32))
    assert out.weak_type          # Python scalar fill without dtype: weak, as in JAX
    assert_close(jnp.full((2,), 1.5, jnp.float16), np.full((2,), 1.5, np.float16))
    assert_close(jnp.full((2, 3), jnp.asarray(np.arange(3, dtype=np.float32))),
                 np.full((2, 3), np.arange(3, dtype=np.float32)))


def test_like_functions():
    x = jnp.asarray(np.arange(6, dtype=np.int8).reshape(2, 3))
    assert_close(jnp.zeros_like(x), np.zeros((2, 3), np.int8))
    assert_close(jnp.ones_like(x), np.ones((2, 3), np.int8))
    assert_close(jnp.full_like(x, 4), np.full((2, 3), 4, np.int8))
    assert_close(jnp.ones_like(x, dtype=jnp.float32, shape=(3,)), np.ones(3, np.float32))
    assert jnp.empty_like(x).shape == (2, 3)
    assert jnp.zeros_like(1.0).weak_type


@pytest.mark.parametrize("args,kw", [((5,), {}), ((1, 7, 2), {}), ((5.0,), {}),
                                     ((0, 1, 0.25), {}), ((3, 0, -1), {}), ((4,), {"dtype": jnp.float32}),
                                     ((2, 5), {"dtype": jnp.int8})])
def test_arange(args, kw):
    out = jnp.arange(*args, **kw)
    expected = np.arange(*args)
    want = np.dtype(kw.get("dtype", np.int32 if expected.dtype.kind == "i" else np.float32))
    assert_close(out, expected.astype(want), dtype=want)


def test_arange_traced_argument_raises():
    with pytest.raises(TypeError):
        xjit.jit(lambda n: jnp.arange(n))(3)


@pytest.mark.parametrize("kw", [{}, {"endpoint": False}, {"num": 1}, {"num": 0},
                                {"dtype": jnp.float16}])
def test_linspace(kw):
    num = kw.get("num", 7)
    out = jnp.linspace(-1, 2, **{"num": num, **kw})
    want = np.dtype(kw.get("dtype", np.float32))
    expected = np.linspace(-1, 2, num, endpoint=kw.get("endpoint", True))
    assert_close(out, expected.astype(want), dtype=want)


def test_linspace_retstep_and_traced():
    out, step = jnp.linspace(0.0, 1.0, 5, retstep=True)
    assert_close(out, np.linspace(0, 1, 5).astype(np.float32))
    assert float(step) == 0.25
    f = xjit.jit(lambda a, b: jnp.linspace(a, b, 5))
    assert_close(f(jnp.float32(0), jnp.float32(2)), np.linspace(0, 2, 5).astype(np.float32))


@pytest.mark.parametrize("N,M,k", [(3, None, 0), (2, 4, 1), (4, 2, -1), (3, 3, 5)])
def test_eye_identity(N, M, k):
    assert_close(jnp.eye(N, M, k), np.eye(N, M, k, dtype=np.float32))
    assert_close(jnp.eye(N, M, k, dtype=jnp.int32), np.eye(N, M, k, dtype=np.int32))
    assert_close(jnp.identity(N, jnp.bool_), np.identity(N, dtype=bool))


def test_tri_tril_triu():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert_close(jnp.tri(3, 4, 1), np.tri(3, 4, 1, dtype=np.float32))
    assert_close(jnp.tril(jnp.asarray(a)), np.tril(a))
    assert_close(jnp.triu(jnp.asarray(a), 1), np.triu(a, 1))
    # Of the input's type, as numpy's and JAX's: a bool matrix stays bool.
    for dtype in (np.bool_, np.int8, np.uint32, np.float16, np.complex64):
        b = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
        for got, want in ((jnp.tril(b, -1), np.tril(b, -1)), (jnp.triu(b), np.triu(b))):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(got), want)


def test_scalar_types_make_strong_arrays():
    x = jnp.float16(1)
    assert x.dtype == np.float16 and not x.weak_type
    assert (x + 1.0).dtype == np.float16
    assert jnp.int8(3).dtype == np.int8
    assert np.dtype(jnp.bfloat16) == BF16
    assert jnp.float32 == np.float32 and jnp.issubdtype(jnp.bfloat16, jnp.floating)
    assert jnp.ndarray is xjit.Array
    assert jnp.pi == np.pi and jnp.newaxis is None and np.isnan(jnp.nan)
    assert jnp.finfo(jnp.float32).eps == np.finfo(np.float32).eps
    assert jnp.iinfo(jnp.int16).max == 32767
