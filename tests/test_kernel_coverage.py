"""Shapes and types the generated kernels now take (backends/cpu/jit_*):
rows that are not a multiple of 32 (a masked tail: softmax over 1000
classes, layer norm over 100 features, L1 distances of 100-d points), bool
inputs of where and of jnp.take's fill along an axis (a column mask spread
over rows), and rows of a few elements read through broadcasts (3-d points).
Against numpy, and bit for bit against the interpreter where the kernels
promise it (the reference backend)."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from numpy_checks import same_as_reference

RNG = np.random.default_rng(29)


def softmax_np(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("cols", [64, 65, 80, 81, 100, 127, 784, 1000])
def test_softmax_and_layer_norm_rows_with_a_tail(cols):
    x = (RNG.standard_normal((37, cols)) * 3).astype(np.float32)
    x[3, 5] = -np.inf
    got = np.asarray(xjit.jit(lambda a: xjit.nn.softmax(a, axis=-1))(x))
    np.testing.assert_allclose(got, softmax_np(x.astype(np.float64)), rtol=2e-6, atol=1e-7)

    def layer_norm(a):
        m = a.mean(-1, keepdims=True)
        v = ((a - m) ** 2).mean(-1, keepdims=True)
        return (a - m) / jnp.sqrt(v + 1e-5), a.max(-1), jnp.abs(a).min(-1)

    got = xjit.jit(layer_norm)(x)
    xd = x.astype(np.float64)
    with np.errstate(invalid="ignore"):  # the row holding -inf: NaN on both sides
        m = xd.mean(-1, keepdims=True)
        want = (xd - m) / np.sqrt(((xd - m) ** 2).mean(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(np.asarray(got[0]), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(np.asarray(got[1]), x.max(-1))
    np.testing.assert_array_equal(np.asarray(got[2]), np.abs(x).min(-1))


@pytest.mark.parametrize("d", [3, 16, 100])
def test_pairwise_distances(d):
    x = RNG.standard_normal((70, d)).astype(np.float32)
    y = RNG.standard_normal((90, d)).astype(np.float32)
    l2 = np.asarray(xjit.jit(lambda a, b: ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1))(x, y))
    l1 = np.asarray(xjit.jit(lambda a, b: jnp.abs(a[:, None, :] - b[None, :, :]).sum(-1))(x, y))
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    np.testing.assert_allclose(l2, ((xd[:, None] - yd[None]) ** 2).sum(-1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(l1, np.abs(xd[:, None] - yd[None]).sum(-1), rtol=1e-5, atol=1e-5)


def test_where_on_bool_inputs():
    x, y = RNG.standard_normal((2, 300, 280)).astype(np.float32)
    m = RNG.random((300, 280)) < 0.5
    c, r = RNG.random(280) < 0.5, RNG.random(300) < 0.5
    cases = {
        "whole": (lambda a, b, m, c, r: jnp.where(m, a, b), np.where(m, x, y)),
        "columns": (lambda a, b, m, c, r: jnp.where(c[None, :], a, b), np.where(c[None, :], x, y)),
        "rows": (lambda a, b, m, c, r: jnp.where(r[:, None], a, b), np.where(r[:, None], x, y)),
        "combined": (lambda a, b, m, c, r: jnp.where(m & c[None, :] | ~r[:, None], a * 2, b),
                     np.where(m & c[None, :] | ~r[:, None], x * 2, y)),
        "as_float": (lambda a, b, m, c, r: c.astype(jnp.float32) * a + b, c * x + y),
    }
    for name, (f, want) in cases.items():
        got = np.asarray(xjit.jit(f)(x, y, m, c, r))
        np.testing.assert_array_equal(got, want.astype(np.float32), err_msg=name)


@pytest.mark.parametrize("shape,axis", [((300, 280), 0), ((300, 280), 1), ((6, 50, 70), 2),
                                        ((6, 50, 70), -1)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32, np.int8])
def test_take_fills_out_of_range_positions(shape, axis, dtype):
    """jnp.take's fill mode: rows gather and fill (scalar fill), columns too
    (the gather of columns wraps the raw indices and writes the fill)."""
    x = (RNG.standard_normal(shape) * 50).astype(dtype)
    n = x.shape[axis]
    idx = np.array(list(RNG.integers(-n, n, 50)) + [n, n + 7, -n - 1, -n, n - 1], np.int32)
    got = np.asarray(xjit.jit(lambda a, i: jnp.take(a, i, axis=axis))(x, idx))
    ok = (idx >= -n) & (idx < n)
    want = np.take(x, np.where(ok, idx, 0), axis=axis)
    if np.issubdtype(x.dtype, np.floating):
        fill = np.nan
    elif np.issubdtype(x.dtype, np.signedinteger):
        fill = np.iinfo(x.dtype).min
    else:
        fill = np.iinfo(x.dtype).max
    shape_of_mask = [1] * x.ndim
    shape_of_mask[axis] = len(idx)
    np.testing.assert_array_equal(got, np.where(ok.reshape(shape_of_mask), want, fill))


def test_erf_float32_is_xla_s_rational_form():
    """float32 erf takes XLA's rational form (JAX's bits on the CPU); the
    reference keeps libm's correctly rounded erf: at most 5 ulp apart."""
    x = np.concatenate([np.linspace(-5, 5, 200001, dtype=np.float32),
                        np.array([0.0, -0.0, 1e-30, 3.8325, 3.8326, -3.8326, np.inf, -np.inf,
                                  np.nan], np.float32)])
    got = np.asarray(xjit.jit(xjit.lax.erf)(x))
    want = np.asarray(xjit.jit(xjit.lax.erf, backend="reference")(x))
    finite = np.isfinite(x)
    ulp = np.abs(got[finite].view(np.int32).astype(np.int64) - want[finite].view(np.int32))
    assert ulp.max() <= 5
    np.testing.assert_array_equal(got[~finite], [1.0, -1.0, np.nan])
    assert np.signbit(got[x.size - 8])  # -0.0 stays negative
    np.testing.assert_array_equal(got[x.size - 5:x.size - 3], [1.0, -1.0])  # |x| >= 3.8325
    # Spot values of jax.scipy.special.erf on the CPU (jax 0.10), bit for bit;
    # like JAX, the form slightly exceeds 1 just below the cut (3.83).
    pts = np.array([0.1, 0.5, 1.0, 2.0, -3.0, 3.83], np.float32)
    jax_bits = np.array([0x3de652f5, 0x3f053f7b, 0x3f57bb3e, 0x3f7ecd70, 0xbf7ffe8e, 0x3f800001],
                        np.uint32)
    np.testing.assert_array_equal(np.asarray(xjit.jit(xjit.lax.erf)(pts)).view(np.uint32),
                                  jax_bits)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32,
                                   np.int64])
def test_integer_division_and_remainder(dtype, x64):
    """Integers of up to 32 bits divide through double division (vectorized):
    the same bits as the reference's idiv, by zero and INT_MIN / -1 too."""
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, 20000, dtype=dtype, endpoint=True)
    b = RNG.integers(info.min, info.max, 20000, dtype=dtype, endpoint=True)
    b[::7] = RNG.integers(-3 if info.min < 0 else 0, 4, b[::7].size).astype(dtype)
    a[::11], a[::13] = info.min, info.max
    same_as_reference(lambda x, y: (xjit.lax.div(x, y), xjit.lax.rem(x, y)), a, b)
    ok = (b != 0) & ~((a == info.min) & (b == -1) if info.min < 0 else False)
    q, r = xjit.jit(lambda x, y: (jnp.floor_divide(x, y), jnp.remainder(x, y)))(a[ok], b[ok])
    np.testing.assert_array_equal(np.asarray(q), np.floor_divide(a[ok], b[ok]))
    np.testing.assert_array_equal(np.asarray(r), np.remainder(a[ok], b[ok]))


@pytest.mark.parametrize("shape,perm", [((64, 48, 40), (0, 2, 1)), ((4, 33, 35, 18), (0, 3, 1, 2)),
                                        ((4, 18, 33, 35), (0, 2, 3, 1)), ((300, 257), (1, 0)),
                                        ((5, 8, 6, 16), (0, 2, 1, 3))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.complex64, np.int16])
def test_transposes(shape, perm, dtype, x64):
    """Transposes of 4- and 8-byte elements run as 16x16 / 8x8 register tiles
    (backends/cpu/transpose_tiles.cc), ragged edges element by element; alone
    and feeding element-wise work."""
    x = (RNG.standard_normal(shape) * 100).astype(dtype)
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda a: jnp.transpose(a, perm))(x)),
                                  np.transpose(x, perm))
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda a: jnp.transpose(a, perm) * 2)(x)),
                                  np.transpose(x, perm) * 2)


@pytest.mark.parametrize("n", [1, 3, 5, 16, 33, 63])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_short_row_reductions(n, dtype):
    """Rows under 64 elements reduce sixteen at a time, a row a lane, still
    in element order (backends/cpu/reduce.cc ReduceShortRows): the
    interpreter's bits, NaN and signed zeros included, for row counts that
    are not multiples of 16."""
    x = (RNG.standard_normal((1000 + 7, n)) * 10).astype(dtype)
    if dtype != np.int32:
        x[5, 0] = np.nan
        x[17, -1] = -0.0
        x[40] = 0.0
    f = lambda a: (a.sum(-1), a.max(-1), a.min(-1), (a * a).sum(-1),  # noqa: E731
                   jnp.prod(a * 0.1 + 1, axis=-1))
    same_as_reference(f, x)
    np.testing.assert_allclose(np.asarray(xjit.jit(f)(x)[0]), x.sum(-1), rtol=1e-4, atol=1e-3)
