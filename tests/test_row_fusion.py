"""Row fusion (reduces of trailing dims fused with the element-wise work around
them) and the generated element-wise kernels, from Python: the cpu backend
against the reference backend (which evaluates the unfused program) for every
element type a fused row reduction takes, odd row lengths and counts, NaNs,
and the normalisations users write (softmax, log-softmax, layer norm,
log-sum-exp, mean/variance), plus JAX where it is installed."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
import xjit.nn

ROW_SHAPES = [(2, 2), (3, 5), (7, 33), (64, 1024), (5, 4, 96), (1000, 3)]


def _on(device_kind, fn, *args):
    device = xjit.devices(device_kind)[0]
    placed = [xjit.device_put(a, device) for a in args]
    return np.asarray(xjit.jit(fn)(*placed))


def _rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.bool_):
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-50, 50, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _close(got, want, dtype):
    if np.issubdtype(np.dtype(dtype), np.integer) or np.dtype(dtype) == np.bool_:
        np.testing.assert_array_equal(got, want)
    else:
        tol = {np.float16: 2e-2, np.float32: 2e-5, np.float64: 1e-12,
               np.complex64: 2e-5}.get(np.dtype(dtype).type, 2e-2)
        np.testing.assert_allclose(np.asarray(got, np.float64) if np.dtype(dtype).kind == "f"
                                   else got, np.asarray(want, np.float64)
                                   if np.dtype(dtype).kind == "f" else want,
                                   rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", ROW_SHAPES)
def test_softmax_and_layer_norm_match_the_reference(shape):
    x = _rand(shape, np.float32)
    g = _rand(shape[-1:], np.float32, 1)
    b = _rand(shape[-1:], np.float32, 2)
    fns = [lambda a, g, b: xjit.nn.softmax(a, axis=-1),
           lambda a, g, b: xjit.nn.log_softmax(a, axis=-1),
           lambda a, g, b: xjit.nn.standardize(a, axis=-1) * g + b,
           lambda a, g, b: xjit.nn.logsumexp(a, axis=-1),
           lambda a, g, b: (a - a.mean(-1, keepdims=True)) * a.var(-1, keepdims=True)]
    for fn in fns:
        _close(_on("cpu", fn, x, g, b), _on("reference", fn, x, g, b), np.float32)


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16", np.float64, np.int32, np.uint8,
                                   np.complex64])
@pytest.mark.parametrize("shape", [(3, 5), (64, 100)])
def test_sum_and_product_of_rows_fused_with_their_users_for_every_type(dtype, shape):
    import ml_dtypes  # noqa: F401  (bfloat16 as a numpy dtype)
    dt = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    x = _rand(shape, np.float32).astype(dt) if dt.kind == "V" or dtype == "bfloat16" \
        else _rand(shape, dt)
    fns = [lambda a: a * a.sum(-1, keepdims=True) + a,
           lambda a: (a - a.sum(-1, keepdims=True)) * 2]
    if dt.kind in "iuf" or dtype == "bfloat16":
        fns.append(lambda a: a - a.max(-1, keepdims=True) + a.min(-1, keepdims=True))
    for fn in fns:
        got, want = _on("cpu", fn, x), _on("reference", fn, x)
        if dtype in (np.float16, "bfloat16"):
            np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32),
                                       rtol=5e-2, atol=5e-1)
        else:
            _close(got, want, dt)


def test_boolean_rows_any_and_all_with_their_users():
    x = _rand((33, 70), np.bool_)
    for fn in [lambda a: a & a.any(-1, keepdims=True), lambda a: a | a.all(-1, keepdims=True)]:
        np.testing.assert_array_equal(_on("cpu", fn, x), _on("reference", fn, x))


def test_nans_and_infinities_in_rows():
    x = _rand((16, 40), np.float32)
    x[1, 3] = np.nan
    x[2, :] = -np.inf
    x[3, 7] = np.inf
    for fn in [lambda a: xjit.nn.softmax(a, axis=-1), lambda a: a - a.max(-1, keepdims=True),
               lambda a: a / a.sum(-1, keepdims=True)]:
        got, want = _on("cpu", fn, x), _on("reference", fn, x)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(np.nan_to_num(got), np.nan_to_num(want), rtol=2e-5, atol=2e-6)


def test_reduced_values_returned_beside_the_normalised_rows():
    x = _rand((50, 300), np.float32)

    def fn(a):
        m = a.max(-1)
        s = jnp.exp(a - m[:, None]).sum(-1)
        return m, s, jnp.exp(a - m[:, None]) / s[:, None]

    for got, want in zip(xjit.jit(fn)(x), fn.__call__(xjit.device_put(x, xjit.devices("reference")[0]))):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("n", [8192, 8192 + 3, 50_001])
def test_generated_chain_matches_the_reference(n):
    x = _rand((n,), np.float32) * 4
    x[::97] = np.nan
    x[5::101] = np.inf
    x[7::103] = -0.0

    def fn(a):
        return (jnp.tanh(a * 1.5 + 0.5) * jnp.exp(-a * a)
                + jnp.maximum(a, 0.1) / (1 + jnp.abs(a)) - jnp.minimum(a, -0.25) * jnp.sqrt(jnp.abs(a)))

    got, want = _on("cpu", fn, x), _on("reference", fn, x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(np.nan_to_num(got), np.nan_to_num(want), rtol=5e-6, atol=1e-6)


def test_softmax_and_layer_norm_agree_with_jax():
    jax = pytest.importorskip("jax")
    x = _rand((128, 512), np.float32)
    g, b = _rand((512,), np.float32, 1), _rand((512,), np.float32, 2)
    np.testing.assert_allclose(np.asarray(xjit.jit(lambda a: xjit.nn.softmax(a))(x)),
                               np.asarray(jax.jit(lambda a: jax.nn.softmax(a))(x)),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(
        np.asarray(xjit.jit(lambda a, g, b: xjit.nn.standardize(a) * g + b)(x, g, b)),
        np.asarray(jax.jit(lambda a, g, b: jax.nn.standardize(a) * g + b)(x, g, b)),
        rtol=1e-4, atol=1e-5)


SIBLING_CASES = {
    "row_sum_and_max": lambda a: (a.reshape(256, -1).sum(axis=1), a.max()),
    "min_and_max": lambda a: (a.min(), a.max()),
    "row_sum_and_row_max": lambda a: (a.reshape(512, -1).sum(1), a.reshape(512, -1).max(1)),
    "normalise_to_range": lambda a: (a - a.min()) / (a.max() - a.min()),
    "min_max_and_sum": lambda a: (a.min() + a.max(), a.sum()),
}


@pytest.mark.parametrize("case,dtype", [(c, t) for c in sorted(SIBLING_CASES)
                                        for t in (np.float32, np.int32)
                                        if (c, t) != ("normalise_to_range", np.int32)])
def test_sibling_reductions_of_one_input_read_together(case, dtype):
    """Reductions of one array (split into rows when they are full ones) fuse
    into one pass over it (multi-output fusion); the cpu result is the
    reference's, with a NaN or an extreme value planted far into the array."""
    fn = SIBLING_CASES[case]
    x = _rand((1 << 19,), dtype)
    if dtype == np.float32:
        x[300_001] = np.nan if case != "normalise_to_range" else 1e30
    else:
        x[300_001] = np.iinfo(np.int32).min
    got = xjit.jit(fn)(x)
    want = fn(xjit.device_put(x, xjit.devices("reference")[0]))
    for g, w in zip(got if isinstance(got, tuple) else [got], want if isinstance(want, tuple) else [want]):
        g, w = np.asarray(g), np.asarray(w)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        np.testing.assert_allclose(np.nan_to_num(g), np.nan_to_num(w), rtol=2e-5, atol=1e-3)


def test_chains_writing_past_the_cache_match_the_reference():
    """Element-wise results of half the last-level cache or more are stored
    non-temporally (jit_region.h): same values as the reference, two results,
    a length that ends in a partial vector, and a result fed back in."""
    x = _rand(((4 << 20) + 5,), np.float32)

    def fn(a):
        y = a * 2.0 + 1.0
        z = jnp.tanh(y) * jnp.exp(-a * a)
        return y, z

    got = xjit.jit(fn)(x)
    want = fn(xjit.device_put(x, xjit.devices("reference")[0]))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-6, atol=1e-7)
    again = xjit.jit(lambda a: a * 2.0 + 1.0)(got[0])
    np.testing.assert_allclose(np.asarray(again), (x * 2 + 1) * 2 + 1, rtol=1e-6)


def test_softmax_writing_past_the_cache_matches_the_reference():
    """A row fusion whose whole-row results take half the last-level cache or
    more stores them non-temporally (jit_row.h): the reference's values, the
    row maxima returned beside them as before."""
    x = _rand((4096, 1024), np.float32)

    def fn(a):
        return xjit.nn.softmax(a, axis=-1), a.max(-1)

    got = xjit.jit(fn)(x)
    want = fn(xjit.device_put(x, xjit.devices("reference")[0]))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=1e-7)


def _half_input(shape, dtype="bfloat16", seed=0):
    """16-bit float values of [-3, 3] and some spread to +-100, with NaN,
    +-inf, -0 and a tiny value planted."""
    import ml_dtypes
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[::7] *= 30
    tiny = 1e-39 if dtype == "bfloat16" else 3e-6
    for i, v in enumerate([np.nan, np.inf, -np.inf, -0.0, tiny, 3e38]):
        flat[(i * 977 + 13) % flat.size] = v
    with np.errstate(over="ignore"):  # 3e38 is inf in float16
        return x.astype(ml_dtypes.bfloat16 if dtype == "bfloat16" else np.float16)


def _half_close(got, want, rtol=2e-2):
    got = np.asarray(got, np.float32)
    want = np.asarray(want, np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("n", [2048 + 3, 8192 + 5, 100_003, (1 << 22) + 7])
def test_half_chains_run_generated_and_match_the_reference(dtype, n):
    """bfloat16 / float16 element-wise chains long enough for the generated
    kernels (widening loads, each op rounded to its type, narrowing stores;
    streaming stores at 4M) against the reference backend's op-by-op
    arithmetic; results of both widths."""
    x = _half_input((n,), dtype)

    def fn(a):
        y = jnp.tanh(a * 1.5 + 0.5) * jnp.exp(-a * a) + jnp.maximum(a, 0.1) / (1 + jnp.abs(a))
        return y, (a * 2 + 1).astype(np.float32)

    got = xjit.jit(fn)(x)
    want = fn(xjit.device_put(x, xjit.devices("reference")[0]))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        _half_close(g, w)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("shape", [(64, 1024), (300, 320), (2048, 1024)])
def test_half_row_fusions_match_the_reference(dtype, shape):
    """bfloat16 / float16 softmax, log-softmax, layer norm and sums (row
    maxima in the 16-bit type, sums accumulated in float32) through the
    generated row kernels, against the reference backend."""
    x = _half_input(shape, dtype)
    x = np.where(np.isfinite(x.astype(np.float32)), x, 0).astype(x.dtype)  # rows stay finite
    fns = [lambda a: xjit.nn.softmax(a, axis=-1),
           lambda a: xjit.nn.log_softmax(a, axis=-1),
           lambda a: xjit.nn.standardize(a, axis=-1),
           lambda a: (a.sum(-1), a.max(-1), a - a.mean(-1, keepdims=True))]
    ref = xjit.devices("reference")[0]
    for fn in fns:
        got = xjit.jit(fn)(x)
        want = fn(xjit.device_put(x, ref))
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            _half_close(g, w, rtol=4e-2)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_full_sum_matches_float32_accumulation(dtype):
    """x.sum() of 4M 16-bit floats (split into rows, read by one generated
    pass): the float32 sum rounded once, as jnp.sum does."""
    x = _half_input((1 << 22,), dtype)
    x = np.where(np.isfinite(x.astype(np.float32)), x, 0).astype(x.dtype)
    got = xjit.jit(lambda a: a.sum())(x)
    want = float(np.asarray(x, np.float64).sum())
    assert np.asarray(got).dtype == x.dtype
    assert abs(float(np.asarray(got, np.float32)) - want) <= 1e-2 * max(1.0, abs(want))


@pytest.mark.parametrize("s", [64, 100, 256])
def test_causal_masked_softmax(s):
    """where(causal mask, scores, -1e9 or -inf) then softmax: the mask (a bool
    matrix spread over batches and heads, or a float compare) is read in the
    generated row kernel."""
    x = _rand((2, 3, s, s), np.float32, seed=s)
    causal = np.tril(np.ones((s, s), bool))

    def want_of(masked):
        e = np.exp(masked - masked.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    for fill in (-1e9, -np.inf):
        got = xjit.jit(lambda a: xjit.nn.softmax(
            jnp.where(jnp.tril(jnp.ones((s, s), bool)), a, fill), axis=-1))(x)
        np.testing.assert_allclose(np.asarray(got), want_of(np.where(causal, x, np.float32(fill))),
                                   rtol=2e-6, atol=1e-7)
    got = xjit.jit(lambda a, m: xjit.nn.softmax(jnp.where(m & (a > -1), a, -1e9), axis=-1))(
        x, causal)
    np.testing.assert_allclose(np.asarray(got),
                               want_of(np.where(causal & (x > -1), x, np.float32(-1e9))),
                               rtol=2e-6, atol=1e-7)
