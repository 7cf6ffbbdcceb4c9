"""lax sort/sort_key_val/top_k/reduce_precision/bitcast_convert_type and the
numpy sorting, searching, unique, nonzero, quantile and interp functions,
against numpy and (when importable) JAX, eagerly and under jit, with their
bad inputs."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import errors, lax

try:
    import jax
    import jax.numpy as jjnp
    jax.config.update("jax_platforms", "cpu")
except ImportError:  # pragma: no cover
    jax = jjnp = None

needs_jax = pytest.mark.skipif(jax is None, reason="jax is not importable")

RNG = np.random.default_rng(0)
DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32, np.float16,
          jnp.bfloat16, np.float32]


def _random(shape, dtype, rng=RNG):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else -5
        return rng.integers(lo, 6, shape).astype(dt)
    x = rng.integers(-4, 5, shape).astype(np.float32) / 2
    flat = x.reshape(-1)
    if flat.size > 8:
        flat[:: 7] = np.nan
        flat[1:: 11] = -0.0
        flat[2:: 13] = np.inf
        flat[3:: 17] = -np.inf
    return x.astype(dt)


def _bits_equal(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.dtype, want.dtype,
                                                                 got.shape, want.shape)
    if got.dtype.kind == "f" or got.dtype == jnp.bfloat16:
        gn, wn = np.isnan(got.astype(np.float32)), np.isnan(want.astype(np.float32))
        assert (gn == wn).all(), (got, want)
        g, w = got[~gn], want[~wn]
        assert (g.view(np.uint8) == w.view(np.uint8)).all() if g.size else True, (got, want)
    else:
        np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------------ lax.sort

@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_matches_numpy_every_dtype(dtype):
    x = _random((4, 37), dtype)
    want = np.sort(x.astype(np.float32) if np.dtype(dtype) == jnp.bfloat16 else x, axis=-1,
                   kind="stable").astype(x.dtype)
    got = lax.sort(x)
    # numpy puts NaN last and keeps the float order; -0.0/0.0 ties may differ in
    # sign bits, so compare values (with NaN) here and bits against JAX below.
    np.testing.assert_array_equal(np.asarray(got).astype(np.float32),
                                  want.astype(np.float32))
    np.testing.assert_array_equal(np.asarray(xjit.jit(lax.sort)(x)).astype(np.float32),
                                  want.astype(np.float32))


@needs_jax
@pytest.mark.parametrize("dtype", DTYPES + [np.complex64])
@pytest.mark.parametrize("dimension", [0, 1, -1])
def test_sort_and_argsort_bitwise_as_jax(dtype, dimension):
    if np.dtype(dtype).kind == "c":
        with np.errstate(invalid="ignore"):
            x = (_random((5, 9, 4), np.float32)
                 + 1j * _random((5, 9, 4), np.float32)).astype(dtype)
    else:
        x = _random((5, 9, 4), dtype)
    _bits_equal(lax.sort(x, dimension=dimension), jax.lax.sort(x, dimension=dimension))
    _bits_equal(jnp.argsort(x, axis=dimension), jjnp.argsort(x, axis=dimension))
    for stable in (True, False):
        _bits_equal(jnp.argsort(x, axis=dimension, descending=True, stable=stable),
                    jjnp.argsort(x, axis=dimension, descending=True, stable=stable))
    _bits_equal(jnp.sort(x, axis=dimension, descending=True),
                jjnp.sort(x, axis=dimension, descending=True))


@needs_jax
def test_sort_nan_and_signed_zero_as_jax():
    x = np.array([0.0, -0.0, np.nan, -np.nan, 1.0, -1.0, -np.inf, 0.0, np.inf], np.float32)
    _bits_equal(jnp.sort(x), jjnp.sort(x))
    _bits_equal(jnp.argsort(x), jjnp.argsort(x))
    np.testing.assert_array_equal(np.asarray(jnp.argsort(x)), [6, 5, 0, 1, 7, 4, 8, 2, 3])
    _bits_equal(xjit.jit(jnp.sort)(x), jjnp.sort(x))


def test_sort_multiple_operands_and_num_keys():
    a = np.array([2, 1, 2, 1, 0], np.int32)
    b = np.array([5., 4., 3., 9., 1.], np.float32)
    c = np.arange(5, dtype=np.int32)
    k, v = lax.sort((a, c))
    np.testing.assert_array_equal(k, [0, 1, 1, 2, 2])
    np.testing.assert_array_equal(v, [4, 1, 3, 0, 2])          # stable
    k1, k2, v = lax.sort((a, b, c), num_keys=2)
    np.testing.assert_array_equal(v, [4, 1, 3, 2, 0])
    k, v = lax.sort_key_val(a, b)
    np.testing.assert_array_equal(v, [1., 4., 9., 5., 3.])
    out = xjit.jit(lambda a, b, c: lax.sort((a, b, c), num_keys=2))(a, b, c)
    np.testing.assert_array_equal(out[2], [4, 1, 3, 2, 0])
    if jax is not None:
        for got, want in zip(lax.sort((b, a, c), num_keys=2), jax.lax.sort((b, a, c), num_keys=2)):
            _bits_equal(got, want)


def test_sort_bad_inputs():
    with pytest.raises(TypeError, match="same shape"):
        lax.sort((np.zeros(3), np.zeros(4)))
    with pytest.raises(ValueError, match="num_keys"):
        lax.sort((np.zeros(3),), num_keys=2)
    with pytest.raises(ValueError, match="out of bounds"):
        lax.sort(np.zeros((2, 3)), dimension=2)
    with pytest.raises(TypeError, match="rank >= 1"):
        lax.sort(np.float32(1))
    with pytest.raises(TypeError):
        lax.sort("abc")


# ---------------------------------------------------------------- top_k

@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.float16])
def test_top_k(dtype):
    x = _random((3, 20), dtype)
    vals, idx = lax.top_k(x, 5)
    assert vals.shape == (3, 5) and idx.dtype == np.int32
    if jax is not None:
        jv, ji = jax.lax.top_k(x, 5)
        _bits_equal(vals, jv)
        _bits_equal(idx, ji)
    xs = np.asarray(x).astype(np.float32)
    np.testing.assert_array_equal(np.take_along_axis(xs, np.asarray(idx), 1),
                                  np.asarray(vals).astype(np.float32))
    jv, ji = xjit.jit(lambda x: lax.top_k(x, 3))(x)
    np.testing.assert_array_equal(np.asarray(ji), np.asarray(idx)[:, :3])


def test_top_k_bad_inputs():
    with pytest.raises(TypeError, match="no larger"):
        lax.top_k(np.zeros(3), 4)
    with pytest.raises(ValueError, match="nonnegative"):
        lax.top_k(np.zeros(3), -1)
    with pytest.raises(TypeError, match=">= 1 dimension"):
        lax.top_k(np.float32(0), 1)
    with pytest.raises(TypeError, match="static int"):
        lax.top_k(np.zeros(3), 1.5)


# --------------------------------------------------- reduce_precision, bitcast

def test_reduce_precision():
    x = np.array([1.0009765625, 65519., 65520., 1e-8, np.nan, -np.inf, 3.14159], np.float32)
    got = lax.reduce_precision(x, 5, 10)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(np.asarray(got), x.astype(np.float16).astype(np.float32))
    assert np.asarray(lax.reduce_precision(np.float32(1.0009765625), 5, 2)) == 1.0
    if jax is not None:
        for e, m in [(1, 0), (2, 3), (8, 7), (11, 52), (4, 1)]:
            _bits_equal(lax.reduce_precision(x, e, m), jax.lax.reduce_precision(x, e, m))
            _bits_equal(xjit.jit(lambda v: lax.reduce_precision(v, e, m))(x),
                        jax.lax.reduce_precision(x, e, m))
    with pytest.raises(TypeError, match="floating"):
        lax.reduce_precision(np.int32(1), 5, 10)
    with pytest.raises(ValueError, match="exponent_bits must be >= 1"):
        lax.reduce_precision(np.float32(1), 0, 10)
    with pytest.raises(ValueError, match="mantissa_bits must be >= 0"):
        lax.reduce_precision(np.float32(1), 5, -1)


def test_bitcast_convert_type():
    x = np.array([1.0, -2.5, 0.0], np.float32)
    np.testing.assert_array_equal(lax.bitcast_convert_type(x, np.int32), x.view(np.int32))
    narrow = lax.bitcast_convert_type(x, np.uint8)
    assert narrow.shape == (3, 4)
    np.testing.assert_array_equal(narrow, x.view(np.uint8).reshape(3, 4))
    back = xjit.jit(lambda v: lax.bitcast_convert_type(v, np.float32))(narrow)
    np.testing.assert_array_equal(back, x)
    assert lax.bitcast_convert_type(np.int16(-1), np.uint16) == 65535
    if jax is not None:
        _bits_equal(lax.bitcast_convert_type(x, np.uint16), jax.lax.bitcast_convert_type(x, np.uint16))
    with pytest.raises(ValueError, match="last dimension of 4"):
        lax.bitcast_convert_type(np.zeros((3, 2), np.uint8), np.float32)
    with pytest.raises(TypeError, match="complex"):
        lax.bitcast_convert_type(np.zeros(2, np.complex64), np.float64)
    with pytest.raises(TypeError, match="bool"):
        lax.bitcast_convert_type(np.zeros(2, np.bool_), np.uint8)


# ---------------------------------------------------------- numpy sort family

@pytest.mark.parametrize("axis", [None, 0, -1])
def test_numpy_sort_argsort(axis):
    x = _random((6, 7), np.float32)
    np.testing.assert_array_equal(jnp.sort(x, axis=axis), np.sort(x, axis=axis))
    got = np.asarray(jnp.argsort(x, axis=axis))
    want = np.argsort(x, axis=axis, kind="stable")
    if axis is None:
        np.testing.assert_array_equal(x.ravel()[got], x.ravel()[want])
    else:
        np.testing.assert_array_equal(np.take_along_axis(x, got, axis),
                                      np.take_along_axis(x, want, axis))
    assert jnp.argsort(x, axis=axis).dtype == np.int32
    xi = RNG.integers(0, 4, (30,)).astype(np.int32)
    np.testing.assert_array_equal(jnp.argsort(xi), np.argsort(xi, kind="stable"))
    np.testing.assert_array_equal(jnp.sort(xi, descending=True), np.sort(xi)[::-1])
    np.testing.assert_array_equal(jnp.asarray(xi).sort(), np.sort(xi))
    np.testing.assert_array_equal(jnp.asarray(xi).argsort(), np.argsort(xi, kind="stable"))
    with pytest.raises(TypeError, match="'kind' argument"):
        jnp.sort(x, kind="quicksort")
    with pytest.raises(TypeError, match="'order' argument"):
        jnp.argsort(x, order="a")


def test_lexsort():
    a = RNG.integers(0, 3, 20)
    b = RNG.integers(0, 3, 20)
    c = RNG.normal(size=20).astype(np.float32)
    np.testing.assert_array_equal(jnp.lexsort((c, b, a)), np.lexsort((c, b, a)))
    np.testing.assert_array_equal(xjit.jit(jnp.lexsort)((c, b, a)), np.lexsort((c, b, a)))
    m = RNG.integers(0, 3, (2, 4, 5))
    np.testing.assert_array_equal(jnp.lexsort(m, axis=0), np.lexsort(m, axis=0))
    with pytest.raises(TypeError, match="len > 0"):
        jnp.lexsort(())
    with pytest.raises(ValueError, match="same shape"):
        jnp.lexsort((np.zeros(3), np.zeros(4)))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8])
@pytest.mark.parametrize("kth", [0, 3, 9])
def test_partition_argpartition(dtype, kth):
    x = _random((3, 10), dtype) if dtype != np.float32 else RNG.normal(size=(3, 10)).astype(dtype)
    p = np.asarray(jnp.partition(x, kth, axis=1))
    s = np.sort(x, axis=1)
    np.testing.assert_array_equal(p[:, kth], s[:, kth])
    assert (p[:, :kth] <= p[:, kth:kth + 1]).all() and (p[:, kth + 1:] >= p[:, kth:kth + 1]).all()
    ap = np.asarray(jnp.argpartition(x, kth, axis=1))
    np.testing.assert_array_equal(np.take_along_axis(x, ap, 1)[:, kth], s[:, kth])
    assert sorted(ap[0].tolist()) == list(range(10))
    if jax is not None:
        _bits_equal(jnp.partition(x, kth, axis=1), jjnp.partition(x, kth, axis=1))
        _bits_equal(jnp.argpartition(x, kth, axis=1), jjnp.argpartition(x, kth, axis=1))
        _bits_equal(jnp.partition(x.T, kth, axis=0), jjnp.partition(x.T, kth, axis=0))
    with pytest.raises(ValueError):
        jnp.partition(x, 10, axis=1)


def test_partition_bad_inputs():
    with pytest.raises(NotImplementedError, match="complex"):
        jnp.partition(np.zeros(3, np.complex64), 1)
    with pytest.raises(errors.ConcretizationTypeError):
        xjit.jit(lambda x, k: jnp.partition(x, k))(np.zeros(3), 1)


# --------------------------------------------------------------- searchsorted

@pytest.mark.parametrize("method", ["scan", "scan_unrolled", "sort", "compare_all"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(method, side):
    a = np.sort(RNG.integers(0, 10, 25)).astype(np.float32)
    v = RNG.integers(-2, 12, (3, 7)).astype(np.float32)
    want = np.searchsorted(a, v, side=side)
    np.testing.assert_array_equal(jnp.searchsorted(a, v, side=side, method=method), want)
    f = xjit.jit(lambda a, v: jnp.searchsorted(a, v, side=side, method=method))
    np.testing.assert_array_equal(f(a, v), want)
    assert jnp.searchsorted(a, v, method=method).dtype == np.int32
    an = np.array([1., 2., np.nan], np.float32)
    vn = np.array([np.nan, 2., 0.], np.float32)
    np.testing.assert_array_equal(jnp.searchsorted(an, vn, side=side, method=method),
                                  np.searchsorted(an, vn, side=side))
    assert int(jnp.searchsorted(a, 5.0, side=side, method=method)) == np.searchsorted(a, 5.0,
                                                                                         side=side)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 9, 255, 256, 1000])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.int8])
def test_searchsorted_binary_search_lengths(n, dtype):
    """'scan' is a binary search of ceil(log2(n + 1)) levels: every length,
    queries before, between, on and after the entries, with duplicates."""
    rng = np.random.default_rng(n)
    a = np.sort(rng.integers(0, 50, n)).astype(dtype)
    v = np.arange(-2, 53).astype(dtype) if dtype != np.uint8 else np.arange(0, 53).astype(dtype)
    for side in ("left", "right"):
        want = np.searchsorted(a, v, side=side)
        for method in ("scan", "scan_unrolled"):
            got = xjit.jit(lambda a, v: jnp.searchsorted(a, v, side=side, method=method))(a, v)
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{side} {method}")


def test_searchsorted_sorter_and_errors():
    a = np.array([3, 1, 2], np.int32)
    np.testing.assert_array_equal(jnp.searchsorted(a, np.array([2, 3]), sorter=np.argsort(a)),
                                  np.searchsorted(a, [2, 3], sorter=np.argsort(a)))
    with pytest.raises(ValueError, match="1-dimensional"):
        jnp.searchsorted(np.zeros((2, 2)), 1.0)
    with pytest.raises(ValueError, match="side"):
        jnp.searchsorted(a, 1, side="middle")
    with pytest.raises(ValueError, match="method"):
        jnp.searchsorted(a, 1, method="bisect")


# ------------------------------------------------------------------- nonzero

def test_nonzero_argwhere_flatnonzero():
    a = np.array([[0, 1, 0, 2], [3, 0, 0, 4]], np.int32)
    for got, want in zip(jnp.nonzero(a), np.nonzero(a)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(jnp.argwhere(a), np.argwhere(a))
    np.testing.assert_array_equal(jnp.flatnonzero(a), np.flatnonzero(a))
    f = xjit.jit(lambda a: jnp.nonzero(a, size=6, fill_value=-1))
    r, c = f(a)
    np.testing.assert_array_equal(r, [0, 0, 1, 1, -1, -1])
    np.testing.assert_array_equal(c, [1, 3, 0, 3, -1, -1])
    r, c = jnp.nonzero(a, size=2)
    np.testing.assert_array_equal(r, [0, 0]) and np.testing.assert_array_equal(c, [1, 3])
    r, c = jnp.nonzero(a, size=5, fill_value=(7, 8))
    np.testing.assert_array_equal(r, [0, 0, 1, 1, 7])
    np.testing.assert_array_equal(c, [1, 3, 0, 3, 8])
    np.testing.assert_array_equal(xjit.jit(lambda a: jnp.argwhere(a, size=5))(a),
                                  np.concatenate([np.argwhere(a), [[0, 0]]]))
    np.testing.assert_array_equal(xjit.jit(lambda a: jnp.flatnonzero(a, size=3))(a), [1, 3, 4])
    b = RNG.integers(0, 2, (5, 6, 7)).astype(bool)
    for got, want in zip(jnp.nonzero(b, size=b.size), np.nonzero(b)):
        np.testing.assert_array_equal(np.asarray(got)[:len(want)], want)
    assert jnp.argwhere(np.float32(3.0)).shape == (1, 0)
    if jax is not None:
        for got, want in zip(jnp.nonzero(b, size=50, fill_value=-2),
                             jjnp.nonzero(b, size=50, fill_value=-2)):
            _bits_equal(got, want)


def test_nonzero_errors():
    with pytest.raises(errors.ConcretizationTypeError, match="size argument"):
        xjit.jit(jnp.nonzero)(np.ones(3))
    with pytest.raises(errors.ConcretizationTypeError):
        xjit.jit(jnp.argwhere)(np.ones(3))
    with pytest.raises(ValueError, match="0d arrays"):
        jnp.nonzero(np.float32(1))
    with pytest.raises(ValueError, match="fill_value"):
        jnp.nonzero(np.ones((2, 2)), size=3, fill_value=(1, 2, 3))


# -------------------------------------------------------------------- unique

@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.bool_, np.uint8])
def test_unique_matches_numpy(dtype):
    x = _random((40,), dtype)
    want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    got = jnp.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)
    np.testing.assert_array_equal(jnp.unique(x), np.unique(x))


def test_unique_nan_and_size_under_jit():
    x = np.array([3., np.nan, 1., 3., np.nan, -0.0, 0.0, 2.], np.float32)
    np.testing.assert_array_equal(jnp.unique(x), np.unique(x))
    assert np.isnan(np.asarray(jnp.unique(x, equal_nan=False))).sum() == 2
    f = xjit.jit(lambda x: jnp.unique(x, size=7, fill_value=-1, return_index=True,
                                      return_inverse=True, return_counts=True))
    vals, idx, inv, cnt = f(x)
    u, ui, uinv, uc = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    k = len(u)
    np.testing.assert_array_equal(np.asarray(vals)[:k], u)
    np.testing.assert_array_equal(np.asarray(vals)[k:], -1)
    np.testing.assert_array_equal(np.asarray(idx)[:k], ui)
    np.testing.assert_array_equal(np.asarray(inv), uinv.reshape(x.shape))
    np.testing.assert_array_equal(np.asarray(cnt)[:k], uc)
    np.testing.assert_array_equal(np.asarray(cnt)[k:], 0)
    small = jnp.unique(x, size=2)
    np.testing.assert_array_equal(small, u[:2])
    if jax is not None:
        for g, w in zip(f(x), jjnp.unique(x, size=7, fill_value=-1, return_index=True,
                                          return_inverse=True, return_counts=True)):
            _bits_equal(g, w)
        for g, w in zip(jnp.unique(x, size=9, return_index=True, return_counts=True),
                        jjnp.unique(x, size=9, return_index=True, return_counts=True)):
            _bits_equal(g, w)


def test_unique_axis():
    m = np.array([[1, 2], [3, 4], [1, 2], [0, 9], [3, 4]], np.int32)
    for axis in (0, 1):
        want = np.unique(m, axis=axis, return_index=True, return_inverse=True,
                         return_counts=True)
        got = jnp.unique(m, axis=axis, return_index=True, return_inverse=True,
                         return_counts=True)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), w.reshape(np.asarray(g).shape))
    f = xjit.jit(lambda m: jnp.unique(m, axis=0, size=4, fill_value=0))
    np.testing.assert_array_equal(f(m), [[0, 9], [1, 2], [3, 4], [0, 0]])


def test_unique_errors():
    with pytest.raises(errors.ConcretizationTypeError, match="size argument must be specified"):
        xjit.jit(jnp.unique)(np.ones(3))
    with pytest.raises(ValueError, match="fill_value must be specified"):
        jnp.unique(np.zeros(0), size=2)
    with pytest.raises(ValueError):
        jnp.unique(np.zeros((2, 2)), axis=2)


# ----------------------------------------------------------------- quantiles

@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2)])
def test_quantile_percentile(method, axis):
    x = RNG.normal(size=(4, 5, 6)).astype(np.float32)
    q = np.array([0.0, 0.25, 0.5, 0.9, 1.0])
    got = jnp.quantile(x, q, axis=axis, method=method)
    want = np.quantile(x, q, axis=axis, method=method)
    if method != "nearest":  # numpy rounds .5 to even, JAX takes the lower
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    if jax is not None:
        np.testing.assert_allclose(got, jjnp.quantile(x, q, axis=axis, method=method),
                                   rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(jnp.percentile(x, 100 * q, axis=axis, method=method), got,
                               rtol=1e-6)
    kd = jnp.quantile(x, 0.3, axis=axis, method=method, keepdims=True)
    assert kd.shape == np.quantile(x, 0.3, axis=axis, keepdims=True).shape


def test_median_nan_versions_and_traced_q():
    x = RNG.normal(size=(5, 8)).astype(np.float32)
    np.testing.assert_allclose(jnp.median(x, axis=1), np.median(x, axis=1), rtol=1e-6)
    np.testing.assert_allclose(jnp.median(x), np.median(x), rtol=1e-6)
    xn = x.copy()
    xn[1, 3] = np.nan
    xn[2, :] = np.nan
    got = np.asarray(jnp.median(xn, axis=1))
    assert np.isnan(got[1]) and np.isnan(got[2])
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.testing.assert_allclose(jnp.nanmedian(xn, axis=1), np.nanmedian(xn, axis=1),
                                       rtol=1e-6)
            np.testing.assert_allclose(jnp.nanpercentile(xn, 30, axis=1),
                                       np.nanpercentile(xn, 30, axis=1), rtol=1e-5)
            np.testing.assert_allclose(jnp.nanquantile(xn, np.array([0.1, 0.7]), axis=1),
                                       np.nanquantile(xn, [0.1, 0.7], axis=1), rtol=1e-5)
    f = xjit.jit(lambda x, q: jnp.quantile(x, q, axis=1))
    np.testing.assert_allclose(f(x, np.float32(0.3)), np.quantile(x, 0.3, axis=1), rtol=1e-5)
    assert jnp.median(np.arange(5)).dtype == np.float32


def test_quantile_errors():
    with pytest.raises(ValueError, match="method"):
        jnp.quantile(np.ones(3), 0.5, method="inverted_cdf")
    with pytest.raises(ValueError, match="range"):
        jnp.quantile(np.ones(3), 1.5)
    with pytest.raises(ValueError, match="range"):
        jnp.percentile(np.ones(3), 101)
    with pytest.raises(NotImplementedError):
        jnp.median(np.ones(3), out=np.ones(1))


# -------------------------------------------------------------------- interp

def test_interp():
    xp = np.array([0., 1., 2.5, 4.], np.float32)
    fp = np.array([1., 3., -1., 0.5], np.float32)
    x = np.linspace(-1, 5, 23).astype(np.float32)
    np.testing.assert_allclose(jnp.interp(x, xp, fp), np.interp(x, xp, fp), rtol=1e-6)
    np.testing.assert_allclose(jnp.interp(x, xp, fp, left=-9, right=9),
                               np.interp(x, xp, fp, left=-9, right=9), rtol=1e-6)
    np.testing.assert_allclose(jnp.interp(x, xp, fp, period=3),
                               np.interp(x, xp, fp, period=3), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xjit.jit(jnp.interp)(x, xp, fp), np.interp(x, xp, fp), rtol=1e-6)
    if jax is not None:
        np.testing.assert_allclose(jnp.interp(x, xp, fp, left="extrapolate",
                                              right="extrapolate"),
                                   jjnp.interp(x, xp, fp, left="extrapolate",
                                               right="extrapolate"), rtol=1e-6)
    with pytest.raises(ValueError, match="equal size"):
        jnp.interp(x, xp, fp[:3])
    with pytest.raises(ValueError, match="extrapolate"):
        jnp.interp(x, xp, fp, left="nope")
    with pytest.raises(ValueError, match="complex"):
        jnp.interp(x.astype(np.complex64), xp, fp)
