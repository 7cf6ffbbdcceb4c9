"""The fft op (lax.fft) and xjit.numpy.fft against numpy.fft and JAX: every
function, norm, n/s/axes, batched, empty and odd lengths, dtypes with JAX's
rules, bad inputs, and grads against jax.grad. The op runs on both backends
(ducc0 on cpu, the DFT by definition on reference)."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax
from jax_checks import both_x64, jax, need_jax
from numpy_checks import x64

rng = np.random.default_rng(20)


def _c(shape, dtype=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _r(shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _tol(dt):
    return 1e-4 if np.dtype(dt) in (np.float32, np.complex64) else 1e-10


def _close(got, want, dt, scale=1.0):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    atol = _tol(dt) * max(1.0, float(np.abs(want).max()) if want.size else 1.0) * scale
    np.testing.assert_allclose(got, want, rtol=_tol(dt), atol=atol)


# --------------------------------------------------------------- lax.fft, both backends

@pytest.mark.parametrize("shape,k", [((8,), 1), ((3, 5), 1), ((2, 4, 6), 2), ((2, 3, 4, 5), 3),
                                     ((7,), 1), ((1,), 1), ((0, 4), 1)])
def test_lax_fft_types_match_numpy(default_platform, shape, k):
    x = _c(shape)
    axes = tuple(range(len(shape) - k, len(shape)))
    lengths = shape[len(shape) - k:]
    _close(lax.fft(x, lax.FftType.FFT, lengths), np.fft.fftn(x, axes=axes), np.complex64)
    _close(lax.fft(x, "IFFT", lengths), np.fft.ifftn(x, axes=axes), np.complex64)
    xr = x.real.copy()
    _close(lax.fft(xr, "rfft", lengths), np.fft.rfftn(xr, axes=axes), np.complex64)
    spec = np.fft.rfftn(xr, axes=axes).astype(np.complex64)
    _close(lax.fft(spec, lax.FftType.IRFFT, lengths),
           np.fft.irfftn(spec, s=lengths, axes=axes), np.float32)


def test_lax_fft_float64(default_platform, x64):
    x = _c((4, 6), np.complex128)
    got = lax.fft(x, "FFT", (4, 6))
    assert got.dtype == np.complex128
    _close(got, np.fft.fft2(x), np.complex128)
    xr = _r((3, 9), np.float64)
    got = lax.fft(xr, "RFFT", (9,))
    assert got.dtype == np.complex128
    _close(got, np.fft.rfft(xr), np.complex128)
    _close(lax.fft(got, "IRFFT", (9,)), xr, np.float64)


def test_lax_fft_cpu_matches_reference():
    x = _c((3, 5, 7))
    cpu_dev = xjit.devices("cpu")[0]
    ref_dev = xjit.devices("reference")[0]
    f = xjit.jit(lambda v: lax.fft(v, "FFT", (5, 7)))
    a = np.asarray(f(xjit.device_put(x, cpu_dev)))
    b = np.asarray(f(xjit.device_put(x, ref_dev)))
    _close(a, b, np.complex64)


def test_lax_fft_irfft_ignores_imaginary_dc_and_nyquist(default_platform):
    spec = _c((2, 5))  # n = 8: entries 0 and 4 are DC and Nyquist
    _close(lax.fft(spec, "IRFFT", (8,)), np.fft.irfft(spec, n=8), np.float32)
    spec = _c((2, 4))  # n = 7 (odd): only DC
    _close(lax.fft(spec, "IRFFT", (7,)), np.fft.irfft(spec, n=7), np.float32)


def test_lax_fft_converts_like_jax():
    need_jax()
    for x in (np.arange(4, dtype=np.int32), np.ones(4, np.float32)):
        got = lax.fft(x, "FFT", (4,))
        want = jax.lax.fft(x, jax.lax.FftType.FFT, (4,))
        assert got.dtype == want.dtype
        _close(got, want, np.complex64)
    got = lax.fft(np.arange(4, dtype=np.int32), "RFFT", (4,))
    assert got.dtype == jax.lax.fft(np.arange(4, dtype=np.int32), "RFFT", (4,)).dtype
    assert lax.fft(np.ones(3, np.complex64), "FFT", ()).shape == (3,)


@pytest.mark.parametrize("call,error", [
    (lambda: lax.fft(np.ones(4, np.complex64), "FFT", (5,)), ValueError),
    (lambda: lax.fft(np.ones(4, np.complex64), "rfft", (4,)), ValueError),
    (lambda: lax.fft(np.ones(4, np.complex64), "bogus", (4,)), ValueError),
    (lambda: lax.fft(np.ones(4, np.complex64), 7, (4,)), TypeError),
    (lambda: lax.fft(np.ones((2, 2, 2, 2), np.complex64), "FFT", (2, 2, 2, 2)), ValueError),
    (lambda: lax.fft(np.ones(4, np.complex64), "FFT", (4, 4)), ValueError),
    (lambda: lax.fft(np.ones(3, np.complex64), "IRFFT", (8,)), ValueError),
])
def test_lax_fft_bad_inputs(call, error):
    with pytest.raises(error):
        call()


# ------------------------------------------------------------------- jnp.fft vs numpy

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("n", [None, 5, 8, 13])
@pytest.mark.parametrize("axis", [-1, 0])
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_numpy_fft_1d(name, n, axis, norm):
    real_in = name in ("rfft", "ihfft")
    x = _r((6, 7)) if real_in else _c((6, 7))
    got = getattr(jnp.fft, name)(x, n=n, axis=axis, norm=norm)
    want = getattr(np.fft, name)(x, n=n, axis=axis, norm=norm)
    assert got.dtype == (np.complex64 if np.iscomplexobj(want) else np.float32)
    _close(got, want, np.complex64, scale=10)


ND = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]


@pytest.mark.parametrize("name", ND)
@pytest.mark.parametrize("s,axes", [(None, None), ((4, 6), None), (None, (0, 2)),
                                    ((3, 5), (2, 0)), (None, (-1, -2))])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_numpy_fft_nd(name, s, axes, norm):
    real_in = name.startswith("rfft")
    x = _r((4, 5, 6)) if real_in else _c((4, 5, 6))
    kwargs = dict(s=s, norm=norm)
    if axes is not None:
        kwargs["axes"] = axes
    elif name.endswith("2") and s is None:
        pass
    if name.endswith("2") and axes is None and s is not None and len(s) != 2:
        return
    if name.endswith("2") and axes is not None and len(axes) != 2:
        return
    got = getattr(jnp.fft, name)(x, **kwargs)
    if s is not None and "axes" not in kwargs and not name.endswith("2"):
        kwargs["axes"] = tuple(range(-len(s), 0))  # numpy's default, spelled out
    want = getattr(np.fft, name)(x, **kwargs)
    _close(got, want, np.complex64, scale=30)


def test_numpy_fftn_more_than_three_axes():
    x = _c((2, 3, 4, 5, 3))
    _close(jnp.fft.fftn(x), np.fft.fftn(x), np.complex64, scale=100)
    _close(jnp.fft.ifftn(x), np.fft.ifftn(x), np.complex64, scale=100)
    xr = x.real.copy()
    _close(jnp.fft.rfftn(xr), np.fft.rfftn(xr), np.complex64, scale=100)
    spec = np.fft.rfftn(xr).astype(np.complex64)
    _close(jnp.fft.irfftn(spec, s=xr.shape), np.fft.irfftn(spec, s=xr.shape, axes=range(5)),
           np.float32, scale=100)
    _close(jnp.fft.fftn(x[0], axes=(3, 0, 2, 1)), np.fft.fftn(x[0], axes=(3, 0, 2, 1)),
           np.complex64, scale=100)


def test_numpy_fft_float64_and_ints(x64):
    x = _c((5, 9), np.complex128)
    got = jnp.fft.fft2(x)
    assert got.dtype == np.complex128
    _close(got, np.fft.fft2(x), np.complex128)
    got = jnp.fft.rfft(np.arange(10))
    assert got.dtype == np.complex128
    _close(got, np.fft.rfft(np.arange(10)), np.complex128)
    got = jnp.fft.irfft(np.fft.rfft(np.arange(9.0)), n=9)
    assert got.dtype == np.float64
    _close(got, np.arange(9.0), np.float64)


def test_numpy_fft_batched_under_jit_and_vmap():
    x = _c((3, 4, 16))
    f = xjit.jit(lambda v: jnp.fft.fft(v, axis=1))
    _close(f(x), np.fft.fft(x, axis=1), np.complex64, scale=10)
    g = xjit.vmap(lambda v: jnp.fft.rfft(v.real))
    _close(g(x), np.fft.rfft(x.real.astype(np.float32)), np.complex64, scale=10)
    h = xjit.vmap(jnp.fft.ifft2, in_axes=2)
    _close(h(x), np.moveaxis(np.fft.ifft2(np.moveaxis(x, 2, 0)), 0, 0), np.complex64)


def test_numpy_fft_empty_batch():
    x = np.zeros((0, 8), np.complex64)
    assert jnp.fft.fft(x).shape == (0, 8)
    assert jnp.fft.rfft(x.real).shape == (0, 5)
    assert jnp.fft.irfft(np.zeros((0, 5), np.complex64)).shape == (0, 8)


def test_numpy_fft_matches_jax_dtypes():
    need_jax()
    with both_x64(False):
        for name, x in [("fft", np.arange(6, dtype=np.int32)), ("rfft", np.arange(6.0)),
                        ("irfft", np.ones(4, np.complex128)), ("hfft", np.ones(4, np.complex64)),
                        ("ihfft", np.ones(6, np.float32))]:
            got = getattr(jnp.fft, name)(x)
            want = getattr(jax.numpy.fft, name)(x)
            assert got.dtype == want.dtype and got.shape == want.shape, name
            _close(got, want, np.complex64, scale=10)


def test_fftfreq_and_shift():
    for n in (1, 4, 7, 10):
        _close(jnp.fft.fftfreq(n, d=0.5), np.fft.fftfreq(n, d=0.5), np.float32)
        _close(jnp.fft.rfftfreq(n, d=0.5), np.fft.rfftfreq(n, d=0.5), np.float32)
    assert jnp.fft.fftfreq(4).dtype == np.float32
    x = np.arange(24).reshape(4, 6)
    np.testing.assert_array_equal(jnp.fft.fftshift(x), np.fft.fftshift(x))
    np.testing.assert_array_equal(jnp.fft.ifftshift(x), np.fft.ifftshift(x))
    np.testing.assert_array_equal(jnp.fft.fftshift(x, axes=1), np.fft.fftshift(x, axes=1))
    np.testing.assert_array_equal(jnp.fft.ifftshift(x, axes=(0,)),
                                  np.fft.ifftshift(x, axes=(0,)))
    with pytest.raises(ValueError):
        jnp.fft.fftfreq([4])
    with pytest.raises(ValueError):
        jnp.fft.rfftfreq(4, d=[1.0])


@pytest.mark.parametrize("call", [
    lambda: jnp.fft.fft(np.ones(4), axis=(0,)),
    lambda: jnp.fft.fftn(np.ones((4, 4)), s=(2,), axes=(0, 1)),
    lambda: jnp.fft.fftn(np.ones((4, 4)), axes=(0, 0)),
    lambda: jnp.fft.fft(np.ones(4), n=0),
    lambda: jnp.fft.fft(np.ones(4), norm="bogus"),
    lambda: jnp.fft.fft2(np.ones((4, 4, 4)), axes=(0, 1, 2)),
    lambda: jnp.fft.rfft(np.ones(4, np.complex64)),
    lambda: jnp.fft.fft(np.ones(4), axis=3),
])
def test_numpy_fft_bad_inputs_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_numpy_fft_rejects_non_arrays():
    with pytest.raises(TypeError):
        jnp.fft.fft([1.0, 2.0])


# ------------------------------------------------------------------------ transforms

GRAD_CASES = [
    ("fft", lambda m: lambda x: m.abs(m.fft.fft(x * 1.5)).sum(), (6,)),
    ("ifft2", lambda m: lambda x: (m.fft.ifft2(x).real ** 2).sum(), (3, 5)),
    ("rfft", lambda m: lambda x: (m.abs(m.fft.rfft(x)) ** 2).sum(), (7,)),
    ("rfft_even", lambda m: lambda x: m.fft.rfft(x).imag.sum() + m.fft.rfft(x).real[1], (8,)),
    ("irfft", lambda m: lambda x: (m.fft.irfft(m.fft.rfft(x) * 2.0) ** 2).sum(), (8,)),
    ("irfft_odd", lambda m: lambda x: (m.fft.irfft(m.fft.rfft(x), n=9) * m.arange(9)).sum(),
     (9,)),
    ("rfftn", lambda m: lambda x: (m.abs(m.fft.rfftn(x)) ** 2).sum(), (3, 4, 5)),
    ("irfftn", lambda m: lambda x: m.fft.irfftn(m.fft.rfftn(x) * (1 + 1j), s=x.shape)[0, 1], (4, 6)),
]


@pytest.mark.parametrize("name,make,shape", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_grad_matches_jax(name, make, shape):
    need_jax()
    x = _r(shape)
    got = xjit.grad(make(jnp))(x)
    want = jax.grad(make(jax.numpy))(x)
    _close(got, want, np.float32, scale=10)


def test_grad_of_complex_input_matches_jax():
    need_jax()
    x = _c((5,))
    f = lambda m: lambda v: (m.fft.fft(v) * m.arange(5)).real.sum()  # noqa: E731
    _close(xjit.grad(f(jnp))(x), jax.grad(f(jax.numpy))(x), np.complex64, scale=10)


def test_jvp_and_vmap_of_grad():
    need_jax()
    x = _r((4, 8))
    f = lambda m: lambda v: (m.abs(m.fft.rfft(v)) ** 2).sum()  # noqa: E731
    got = xjit.vmap(xjit.grad(f(jnp)))(x)
    want = jax.vmap(jax.grad(f(jax.numpy)))(x)
    _close(got, want, np.float32, scale=10)
    t = _r((4, 8))
    g = lambda m: lambda v: m.fft.fft(v)  # noqa: E731
    _, got_t = xjit.jvp(g(jnp), (x,), (t,))
    _, want_t = jax.jvp(g(jax.numpy), (x,), (t,))
    _close(got_t, want_t, np.complex64, scale=10)


def test_fft_prints_and_parses():
    text = xjit.jit(lambda v: lax.fft(v, "RFFT", (8,))).lower(np.ones((2, 8), np.float32)).as_text()
    assert "fft" in text and "RFFT" in text
