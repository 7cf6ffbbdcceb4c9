"""The cpu backend's fast paths against the reference backend, bit for bit
(NaNs, signed zeros, ties, out-of-range indices, duplicates): pooling-shaped
reduce_window and select_and_scatter (backends/cpu/pooling.cc), whole-row
gather and scatter (row_indexing.cc), and convolutions that absorb their
bias and ReLU (epilogue.cc)."""
import contextlib

import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax

RNG = np.random.default_rng(7)


def on_both(f, *args):
    """f jitted on cpu and on reference: (cpu results, reference results) as numpy."""
    out = {}
    for platform in ("cpu", "reference"):
        xjit.config.update("jax_platform_name", platform)
        try:
            r = xjit.jit(f)(*args)
            out[platform] = [np.asarray(v) for v in (r if isinstance(r, (tuple, list)) else [r])]
        finally:
            xjit.config.update("jax_platform_name", None)
    return out["cpu"], out["reference"]


def assert_same_bits(got, want):
    """Equal values and dtypes; floats bit for bit (signed zeros), any NaN for a NaN."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind in "fc" or got.dtype.name == "bfloat16":  # ml_dtypes' kind is "V"
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
        ints = {2: np.uint16, 4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
        zero = np.zeros((), got.dtype)  # keeps bfloat16 (a plain 0 promotes it)
        np.testing.assert_array_equal(np.where(nan, zero, got).view(ints),
                                      np.where(nan, zero, want).view(ints))
    else:
        np.testing.assert_array_equal(got, want)


def specials(shape, dtype=np.float32, ties=False):
    """Random values with NaN, +-0, +-inf mixed in (ties: small integers, many equal)."""
    x = (RNG.integers(-3, 4, shape) if ties else RNG.standard_normal(shape)).astype(np.float64)
    pick = RNG.integers(0, 40, shape)
    for k, v in enumerate([np.nan, 0.0, -0.0, np.inf, -np.inf]):
        x = np.where(pick == k, v, x)
    return x.astype(dtype)


# ------------------------------------------------------------------ pooling

POOLS = [
    # shape, window, strides, padding, window_dilation
    ((2, 3, 8, 9), (1, 1, 2, 2), (1, 1, 2, 2), "VALID", None),           # NCHW 2x2/2
    ((2, 8, 9, 3), (1, 2, 2, 1), (1, 2, 2, 1), "VALID", None),           # NHWC 2x2/2
    ((2, 3, 7, 6), (1, 1, 3, 3), (1, 1, 1, 1), "SAME", None),            # overlapping
    ((1, 2, 9, 8), (1, 1, 3, 3), (1, 1, 2, 2), [(0, 0), (0, 0), (1, 1), (1, 2)], None),
    ((2, 7, 6, 4), (1, 3, 3, 1), (1, 2, 2, 1), "SAME", None),            # NHWC strided
    ((4, 7, 5), (1, 3, 1), (1, 2, 1), [(0, 0), (1, 1), (0, 0)], None),   # one windowed dim
    ((1, 2, 9, 9), (1, 1, 2, 2), (1, 1, 1, 2), "VALID", (1, 1, 2, 3)),   # window dilation
    ((6, 3, 5, 2), (2, 1, 2, 1), (2, 1, 1, 1), "VALID", None),           # dims 0 and 2
    ((1, 1, 4, 5), (1, 1, 2, 2), (1, 1, 2, 2), [(0, 0), (0, 0), (3, 3), (2, 4)], None),
    ((3, 17), (1, 4), (1, 3), [(0, 0), (2, 3)], None),                   # 2-d, last dim
    ((2, 3, 9, 11), (1, 1, 3, 3), (1, 1, 1, 1), "VALID", None),          # 3x3/1 in registers
    ((2, 3, 9, 11), (1, 1, 3, 3), (1, 1, 2, 2), "VALID", None),          # 3x3/2 in registers
    ((2, 3, 9, 11), (1, 1, 2, 2), (1, 1, 2, 2), "VALID", None),          # odd sizes, 2x2/2
    # rows of 16+ outputs: whole blocks of 16, and a last block redone overlapping
    ((1, 2, 4, 32), (1, 1, 2, 2), (1, 1, 2, 2), "VALID", None),          # 16 outputs a row
    ((1, 2, 4, 67), (1, 1, 2, 2), (1, 1, 2, 2), "VALID", None),          # 33
    ((1, 2, 5, 37), (1, 1, 3, 3), (1, 1, 1, 1), "VALID", None),          # 35, 3x3/1
    ((1, 2, 5, 67), (1, 1, 3, 3), (1, 1, 2, 2), "VALID", None),          # 33, 3x3/2
]

BODIES = [(lax.max, -np.inf), (lax.max, 0.5), (lax.min, np.inf), (lax.add, 0.0),
          (lax.add, -0.0), (lax.mul, 1.0)]


@pytest.mark.parametrize("case", range(len(POOLS)))
@pytest.mark.parametrize("body", range(len(BODIES)))
def test_pooling_matches_reference_bitwise(case, body):
    shape, window, strides, padding, wd = POOLS[case]
    op, init = BODIES[body]
    for dtype in (np.float32, np.float16, np.float64):
        x = specials(shape, dtype)

        def f(a):
            return lax.reduce_window(a, dtype(init), op, window, strides, padding, None, wd)
        got, want = on_both(f, x)
        if dtype == np.float16 and op in (lax.add, lax.mul):
            # f16 sums and products accumulate in f32 on cpu (one rounding), the
            # reference in f16: up to 8 roundings of half an ulp (2e-3 at 4-8)
            np.testing.assert_allclose(got[0].astype(np.float32), want[0].astype(np.float32),
                                       rtol=3e-3, atol=2e-2)
        else:
            assert_same_bits(got[0], want[0])


@pytest.mark.parametrize("case", [0, 1, 2, 3, 7])
def test_integer_pooling_matches_reference(case):
    shape, window, strides, padding, wd = POOLS[case]
    x = RNG.integers(-100, 100, shape).astype(np.int32)
    for op, init in ((lax.max, np.iinfo(np.int32).min), (lax.add, 0), (lax.min, 7)):
        got, want = on_both(
            lambda a: lax.reduce_window(a, np.int32(init), op, window, strides, padding, None,
                                        wd), x)
        assert_same_bits(got[0], want[0])


@pytest.mark.parametrize("case", [0, 1, 2, 3, 4, 5, 7, 8, 9])
@pytest.mark.parametrize("op, init", [(lax.max, -np.inf), (lax.min, np.inf)])
def test_pooling_gradient_matches_reference(case, op, init):
    shape, window, strides, padding, _ = POOLS[case]
    x = specials(shape, ties=True)

    def pool(a):
        return lax.reduce_window(a, np.float32(init), op, window, strides, padding)
    g = specials(xjit.eval_shape(pool, x).shape)
    got, want = on_both(lambda a, t: xjit.vjp(pool, a)[1](t)[0], x, g)
    assert_same_bits(got[0], want[0])


def test_large_pooling_runs_in_parallel_and_matches():
    x = specials((4, 16, 56, 56))
    f = lambda a: lax.reduce_window(a, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    got, want = on_both(f, x)
    assert_same_bits(got[0], want[0])
    w = np.where(np.isnan(x), -np.inf, x).reshape(4, 16, 28, 2, 28, 2).max(axis=(3, 5))
    nan = np.isnan(x).reshape(4, 16, 28, 2, 28, 2).any(axis=(3, 5))
    np.testing.assert_array_equal(got[0], np.where(nan, np.nan, w))


# ------------------------------------------------------- whole-row indexing

@contextlib.contextmanager
def x64(on=True):
    """64-bit types (int64 indices and values) on while the block runs."""
    if not on:
        yield
        return
    xjit.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        xjit.config.update("jax_enable_x64", False)


def _gather_rows(operand, idx, keep_dim=False):
    """lax.gather of whole rows of `operand` at `idx` (no index normalisation)."""
    rest = tuple(range(1, operand.ndim))
    if keep_dim:
        dn = lax.GatherDimensionNumbers(offset_dims=tuple(range(idx.ndim, idx.ndim + operand.ndim)),
                                        collapsed_slice_dims=(), start_index_map=(0,))
    else:
        dn = lax.GatherDimensionNumbers(offset_dims=tuple(idx.ndim + d - 1 for d in rest),
                                        collapsed_slice_dims=(0,), start_index_map=(0,))
    return lax.gather(operand, idx[..., None], dn, (1,) + operand.shape[1:],
                      mode=lax.GatherScatterMode.CLIP)


INDEX_TYPES = [np.int32, np.int64, np.int8, np.uint8, np.int16, np.uint32]


@pytest.mark.parametrize("index_type", INDEX_TYPES)
@pytest.mark.parametrize("shape", [(9,), (9, 4), (9, 3, 2), (9, 16)])
@pytest.mark.parametrize("keep_dim", [False, True])
def test_row_gather_clamps_like_reference(index_type, shape, keep_dim):
    x = specials(shape)
    lo = -12 if np.issubdtype(index_type, np.signedinteger) else 0
    idx = RNG.integers(lo, 14, (3, 5)).astype(index_type)
    with x64(index_type == np.int64):
        got, want = on_both(lambda a, i: _gather_rows(a, i, keep_dim), x, idx)
    assert_same_bits(got[0], want[0])
    rows = np.clip(idx.astype(np.int64), 0, shape[0] - 1)
    expect = x[rows]
    if keep_dim:
        expect = expect[:, :, None]
    assert_same_bits(got[0], expect)


def _scatter_rows(kind, operand, idx, updates, unique=False):
    """lax.scatter_* of whole rows at `idx` (no index normalisation: negative
    and too large indices are skipped)."""
    rest = tuple(range(1, operand.ndim))
    dn = lax.ScatterDimensionNumbers(update_window_dims=tuple(idx.ndim + d - 1 for d in rest),
                                     inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    fn = {"add": lax.scatter_add, "set": lax.scatter, "max": lax.scatter_max,
          "min": lax.scatter_min, "mul": lax.scatter_mul}[kind]
    return fn(operand, idx[..., None], updates, dn, unique_indices=unique,
              mode=lax.GatherScatterMode.FILL_OR_DROP)


@pytest.mark.parametrize("kind", ["add", "set", "max", "min", "mul"])
@pytest.mark.parametrize("shape", [(11,), (11, 4), (11, 3, 2), (11, 16)])
@pytest.mark.parametrize("index_type", [np.int32, np.int8, np.uint16])
def test_row_scatter_skips_out_of_range_like_reference(kind, shape, index_type):
    x = specials(shape, ties=True)
    lo = -5 if np.issubdtype(index_type, np.signedinteger) else 0
    idx = RNG.integers(lo, 15, (4, 6)).astype(index_type)  # duplicates, negatives, too large
    upd = specials(idx.shape + shape[1:], ties=True)
    got, want = on_both(lambda a, i, u: _scatter_rows(kind, a, i, u), x, idx, upd)
    assert_same_bits(got[0], want[0])
    if kind == "add":
        expect = x.copy()
        ok = (idx.astype(np.int64) >= 0) & (idx.astype(np.int64) < shape[0])
        with np.errstate(invalid="ignore"):
            np.add.at(expect, idx.astype(np.int64)[ok], upd[ok])
        np.testing.assert_array_equal(np.isnan(got[0]), np.isnan(expect))
        np.testing.assert_allclose(np.nan_to_num(got[0]), np.nan_to_num(expect), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.bool_, np.uint8, np.int64])
def test_row_scatter_and_gather_other_dtypes(dtype):
    x = (RNG.integers(0, 2, (13, 5)) if dtype == np.bool_ else
         RNG.integers(-9, 9, (13, 5))).astype(dtype)
    idx = RNG.integers(-3, 16, 40).astype(np.int32)
    upd = x[np.clip(idx, 0, 12)][:, ::-1].copy()
    kinds = ["set", "max"] if dtype == np.bool_ else ["set", "add", "max", "min", "mul"]
    with x64(dtype == np.int64):
        for kind in kinds:
            got, want = on_both(lambda a, i, u: _scatter_rows(kind, a, i, u), x, idx, upd)
            assert_same_bits(got[0], want[0])
        got, want = on_both(lambda a, i: _gather_rows(a, i), x, idx)
        assert_same_bits(got[0], want[0])


@pytest.mark.parametrize("unique", [False, True])
@pytest.mark.parametrize("row", [(), (16,)])
def test_large_row_scatter_add_in_parallel_matches(unique, row):
    n = 50_000
    x = RNG.standard_normal((n,) + row).astype(np.float32)
    idx = (RNG.permutation(n + 100) - 50).astype(np.int32) if unique else \
        RNG.integers(-50, n + 50, 120_000).astype(np.int32)
    upd = RNG.standard_normal(idx.shape + row).astype(np.float32)
    got, want = on_both(lambda a, i, u: _scatter_rows("add", a, i, u, unique), x, idx, upd)
    assert_same_bits(got[0], want[0])  # duplicates combine in the serial order
    got, want = on_both(lambda a, i: _gather_rows(a, i), x, idx)
    assert_same_bits(got[0], want[0])


def test_numpy_style_row_indexing_normalises_negative_indices():
    x = RNG.standard_normal((7, 3)).astype(np.float32)
    idx = np.array([0, -1, 6, -7, 3, 3], np.int32)
    v = RNG.standard_normal((6, 3)).astype(np.float32)
    got, want = on_both(lambda a, i, u: (a[i], a.at[i].add(u), jnp.take(a[:, 0], i),
                                         a[:, 0].at[i].add(u[:, 0])), x, idx, v)
    for g, w in zip(got, want):
        assert_same_bits(g, w)
    np.testing.assert_array_equal(got[0], x[idx])
    expect = x.copy()
    np.add.at(expect, idx, v)
    np.testing.assert_allclose(got[1], expect, rtol=1e-6)
    # take's default mode "fill": out of range gives NaN
    np.testing.assert_array_equal(
        np.isnan(np.asarray(jnp.take(x[:, 0], np.array([7, -8, 2], np.int32)))),
        [True, True, False])


# ------------------------------------------------------ convolution epilogue

LAYOUTS = {
    "NHWC": (("NHWC", "HWIO", "NHWC"), (2, 9, 8, 5), (3, 3, 5, 6), 3),
    "NCHW": (("NCHW", "OIHW", "NCHW"), (2, 5, 9, 8), (6, 5, 3, 3), 1),
    "CHWN": (("CHWN", "IOHW", "HWCN"), (5, 9, 8, 2), (5, 6, 3, 3), 2),
}


def _conv_inputs(with_specials=True):
    """NHWC input (with NaN/inf/-0 mixed in unless told), HWIO kernel, bias."""
    dn, xs, ws, _ = LAYOUTS["NHWC"]
    x = specials(xs) if with_specials else RNG.standard_normal(xs).astype(np.float32)
    w = (RNG.standard_normal(ws) / 4).astype(np.float32)
    b = specials((6,)) if with_specials else RNG.standard_normal(6).astype(np.float32)
    return dn, x, w, b


def _conv(a, w, dn, stride=(1, 1)):
    return lax.conv_general_dilated(a, w, stride, "SAME", dimension_numbers=dn)


def _bias_shape(rank, feature, n):
    s = [1] * rank
    s[feature] = n
    return s


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("steps", ["bias_relu", "bias", "relu", "relu_of_jax_nn"])
def test_conv_epilogue_matches_reference_and_unfused(layout, steps):
    dn, xs, ws, feature = LAYOUTS[layout]
    x = specials(xs)
    w = (RNG.standard_normal(ws) / 4).astype(np.float32)
    b = specials((6,))

    def f(a, k, c):
        y = _conv(a, k, dn)
        if "bias" in steps:
            y = y + c.reshape(_bias_shape(4, feature, 6))
        if steps == "relu_of_jax_nn":
            return xjit.nn.relu(y)
        return jnp.maximum(y, 0.0) if "relu" in steps else y

    def unfused(a, k, c):  # the convolution is also a result: nothing may fuse
        return f(a, k, c), _conv(a, k, dn)

    got, want = on_both(f, x, w, b)
    np.testing.assert_array_equal(np.isnan(got[0]), np.isnan(want[0]))
    np.testing.assert_allclose(np.nan_to_num(got[0]), np.nan_to_num(want[0]), rtol=1e-4,
                               atol=1e-4)
    if "relu" in steps:  # max(x, +0): never -0, as the reference
        assert not np.signbit(got[0][~np.isnan(got[0])]).any()
    plain, plain_ref = on_both(unfused, x, w, b)
    assert_same_bits(got[0], plain[0])
    np.testing.assert_allclose(np.nan_to_num(plain[1]), np.nan_to_num(plain_ref[1]), rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("transpose", [False, True])
def test_conv_weights_cache_follows_changed_weights(transpose, dtype):
    """The cpu thunk keeps oneDNN-layout weights between calls (convolution.cc's
    WeightsCache): new weights, the same buffer rewritten, and old weights
    again must each give the reference's result. bfloat16 runs widened to
    float32 where oneDNN has no fast bf16 kernel (no AVX-512 bf16)."""
    dn = ("NHWC", "HWIO", "NHWC")
    tol = 1e-4 if dtype == "float32" else 3e-2
    x = RNG.standard_normal((2, 10, 10, 32)).astype(dtype)
    if transpose:
        f = lambda a, k: lax.conv_transpose(a, k, (2, 2), "SAME", dimension_numbers=dn)
    else:
        f = lambda a, k: _conv(a, k, dn)
    cpu = xjit.jit(f)
    ws = [(RNG.standard_normal((3, 3, 32, 32)) / 16).astype(dtype) for _ in range(2)]
    w_mut = ws[0].copy()
    for k in (ws[0], ws[1], ws[0], ws[0], w_mut):
        if k is w_mut:
            w_mut[1, 1, 3, 4] += 1.0  # one element differs from ws[0]
        got = np.asarray(cpu(x, k))
        assert got.dtype == np.dtype(dtype)
        _, want = on_both(f, x, k)
        np.testing.assert_allclose(got.astype(np.float32), np.asarray(want[0]).astype(np.float32),
                                   rtol=tol, atol=tol)


def test_conv_epilogue_not_fused_when_intermediate_used_elsewhere():
    dn, x, w, b = _conv_inputs(with_specials=False)

    def f(a, k, c):
        y = _conv(a, k, dn) + c
        return jnp.maximum(y, 0.0), jnp.sum(y * 2.0)  # y also feeds the sum

    got, want = on_both(f, x, w, b)
    for g, v in zip(got, want):
        np.testing.assert_allclose(g, v, rtol=1e-4, atol=1e-3)


def test_conv_epilogue_other_constants_and_dtypes_stay_unfused():
    dn, x, w, b = _conv_inputs()
    fs = (lambda a, k, c: jnp.maximum(_conv(a, k, dn) + c, 0.5),          # not a ReLU
          lambda a, k, c: jnp.maximum(_conv(a, k, dn) + c, -0.0),      # max with -0
          lambda a, k, c: _conv(a, k, dn) + c[:2].reshape(2, 1, 1, 1),   # along the batch
          lambda a, k, c: jnp.maximum(_conv(a.astype(jnp.bfloat16), k.astype(jnp.bfloat16),
                                            dn) + c.astype(jnp.bfloat16), 0.0))
    for f in fs:
        finite = f is fs[-1]  # oneDNN's bf16 convolution and the reference disagree on inf
        got, want = on_both(f, np.nan_to_num(x, posinf=0, neginf=0) if finite else x, w, b)
        tol = 3e-2 if got[0].dtype != np.float32 else 1e-4
        np.testing.assert_array_equal(np.isnan(got[0].astype(np.float32)),
                                      np.isnan(want[0].astype(np.float32)))
        np.testing.assert_allclose(np.nan_to_num(got[0].astype(np.float32)),
                                   np.nan_to_num(want[0].astype(np.float32)), rtol=tol, atol=tol)


def test_conv_epilogue_bias_computed_after_the_convolution():
    dn, x, w, b = _conv_inputs(with_specials=False)

    def f(a, k, c):
        y = _conv(a, k, dn)
        return jnp.maximum(y + jnp.exp(c), 0.0)  # the bias is traced after the conv

    got, want = on_both(f, x, w, b)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-4, atol=1e-4)


def test_strided_conv_and_transpose_with_epilogue():
    dn, x, w, b = _conv_inputs()
    f1 = lambda a, k, c: jnp.maximum(_conv(a, k, dn, (2, 2)) + c, 0.0)
    wt = (RNG.standard_normal((3, 3, 5, 6)) / 4).astype(np.float32)
    f2 = lambda a, k, c: jnp.maximum(
        lax.conv_transpose(a, k, (2, 2), "SAME", dimension_numbers=dn) + c, 0.0)
    for f, k in ((f1, w), (f2, wt)):
        got, want = on_both(f, x, k, b)
        np.testing.assert_array_equal(np.isnan(got[0]), np.isnan(want[0]))
        np.testing.assert_allclose(np.nan_to_num(got[0]), np.nan_to_num(want[0]), rtol=1e-4,
                                   atol=1e-4)


@pytest.mark.parametrize("shape", [(9,), (9, 4)])
@pytest.mark.parametrize("index_type", [np.int32, np.int8, np.int16])
def test_absorbed_index_normalisation_wraps_negative_indices(shape, index_type):
    # x[i] and x.at[i].op(v) alone: the cpu reads the raw indices and wraps
    # negative ones itself (index_wrap.h); out-of-range ones still clamp / drop.
    x = specials(shape, ties=True)
    idx = RNG.integers(-12, 12, 30).astype(index_type)
    v = specials((30,) + shape[1:], ties=True)
    wrapped = np.where(idx < 0, idx.astype(np.int64) + shape[0], idx.astype(np.int64))
    for f in (lambda a, i, u: a[i],
              lambda a, i, u: a.at[i].add(u, mode="drop"),
              lambda a, i, u: a.at[i].set(u, mode="drop"),
              lambda a, i, u: a.at[i].max(u, mode="drop"),
              lambda a, i, u: a.at[i].get(mode="clip")):
        got, want = on_both(f, x, idx, v)
        assert_same_bits(got[0], want[0])
    got, _ = on_both(lambda a, i, u: a.at[i].get(mode="clip"), x, idx, v)
    assert_same_bits(got[0], x[np.clip(wrapped, 0, shape[0] - 1)])
    got, _ = on_both(lambda a, i, u: a.at[i].set(u, mode="drop"), x, idx, v)
    expect = x.copy()
    for k in range(len(idx)):
        if 0 <= wrapped[k] < shape[0]:
            expect[wrapped[k]] = v[k]
    assert_same_bits(got[0], expect)
