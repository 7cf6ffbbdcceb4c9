"""lax.conv_general_dilated and friends against a numpy reference (and JAX when
installed): layouts, strides, padding (strings, explicit, negative), lhs/rhs
dilation, feature and batch groups, jit, and bad inputs."""
import numpy as np
import pytest

import xjit
from xjit import lax
from conv_reference import conv as np_conv
from jax_checks import jax

RNG = np.random.default_rng(0)


def _rand(shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def _perms(dn, nd):
    return lax.conv_dimension_numbers((0,) * nd, (0,) * nd, dn)


CASES = [
    # lhs shape, rhs shape, strides, padding, lhs_dil, rhs_dil, dn, fgc, bgc
    ((2, 3, 7, 6), (4, 3, 3, 2), (1, 1), "VALID", None, None, None, 1, 1),
    ((2, 7, 6, 3), (3, 3, 3, 4), (1, 1), "SAME", None, None, ("NHWC", "HWIO", "NHWC"), 1, 1),
    ((2, 7, 6, 3), (3, 3, 3, 4), (2, 2), "SAME_LOWER", None, None, ("NHWC", "HWIO", "NHWC"), 1, 1),
    ((1, 2, 9, 8), (3, 2, 3, 2), (2, 3), [(2, 1), (0, 3)], None, (2, 1), None, 1, 1),
    ((1, 2, 9, 8), (3, 2, 3, 2), (1, 1), [(-1, -2), (1, -1)], None, None, None, 1, 1),
    ((2, 6, 5, 5), (9, 2, 3, 3), (1, 1), [(1, 1), (1, 1)], None, None, None, 3, 1),
    ((4, 3, 5, 5), (6, 3, 3, 3), (1, 1), "VALID", None, None, None, 1, 2),
    ((1, 2, 4, 3), (3, 2, 3, 2), (1, 1), [(2, 2), (1, 1)], (2, 3), None, None, 1, 1),
    ((1, 2, 4, 3), (3, 2, 3, 2), (2, 1), [(3, 0), (0, 2)], (2, 3), None, None, 1, 1),
    ((3, 6, 2, 5), (4, 2, 3, 3), (1, 1), [(1, 0), (0, 1)], None, None,
     ("CWNH", "OHWI", "HCWN"), 1, 1),
    ((2, 10, 3), (3, 3, 4), (1,), [(1, 2)], None, (2,), ("NWC", "WIO", "NWC"), 1, 1),
    ((1, 4, 4, 3, 2), (2, 2, 2, 2, 2), (1, 1, 1), "SAME", None, None,
     ("NHWDC", "HWDIO", "NHWDC"), 1, 1),
    ((2, 4, 6, 6), (8, 1, 3, 3), (1, 1), "SAME", None, None, None, 4, 1),
]


def _explicit(padding, lhs, rhs, strides, rhs_dil, dn):
    if not isinstance(padding, str):
        return padding
    perms = _perms(dn, len(lhs))
    ins = [lhs[i] for i in perms.lhs_spec[2:]]
    ks = [(rhs[i] - 1) * r + 1 for i, r in zip(perms.rhs_spec[2:], rhs_dil)]
    return lax.padtype_to_pads(ins, ks, strides, padding)


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("jitted", [False, True])
def test_conv_general_dilated_matches_numpy(case, jitted):
    ls, rs, strides, padding, ld, rd, dn, fgc, bgc = CASES[case]
    x, k = _rand(ls), _rand(rs)
    ns = len(ls) - 2

    def f(a, b):
        return lax.conv_general_dilated(a, b, strides, padding, ld, rd, dn,
                                        feature_group_count=fgc, batch_group_count=bgc)

    got = (xjit.jit(f) if jitted else f)(x, k)
    perms = _perms(dn, len(ls))
    pads = _explicit(padding, ls, rs, strides, rd or (1,) * ns, dn)
    want = np_conv(x, k, strides, pads, ld or (1,) * ns, rd or (1,) * ns, perms, fgc, bgc)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_conv_general_dilated_matches_jax(case):
    if jax is None:
        pytest.skip("jax is not installed")
    ls, rs, strides, padding, ld, rd, dn, fgc, bgc = CASES[case]
    x, k = _rand(ls), _rand(rs)
    got = lax.conv_general_dilated(x, k, strides, padding, ld, rd, dn,
                                   feature_group_count=fgc, batch_group_count=bgc)
    want = jax.lax.conv_general_dilated(x, k, strides, padding, ld, rd, dn,
                                        feature_group_count=fgc, batch_group_count=bgc)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.float16, np.complex64])
def test_conv_dtypes(dtype):
    x = (RNG.integers(-3, 4, (2, 3, 5, 5))).astype(dtype)
    k = (RNG.integers(-3, 4, (4, 3, 3, 3))).astype(dtype)
    with _x64():
        got = lax.conv(x, k, (1, 1), "SAME")
        assert got.dtype == dtype
        want = np_conv(x, k, (1, 1), [(1, 1), (1, 1)], (1, 1), (1, 1),
                       _perms(None, 4))
    np.testing.assert_allclose(np.asarray(got).astype(np.complex128), want, rtol=2e-3)


class _x64:
    def __enter__(self):
        self.old = xjit.config.jax_enable_x64
        xjit.config.update("jax_enable_x64", True)

    def __exit__(self, *exc):
        xjit.config.update("jax_enable_x64", self.old)


def test_conv_helpers():
    x, k = _rand((1, 2, 6, 6)), _rand((3, 2, 3, 3))
    np.testing.assert_allclose(
        np.asarray(lax.conv(x, k, (2, 2), "SAME")),
        np_conv(x, k, (2, 2), lax.padtype_to_pads((6, 6), (3, 3), (2, 2), "SAME"), (1, 1),
                (1, 1), _perms(None, 4)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(
        np.asarray(lax.conv_with_general_padding(x, k, (1, 1), [(1, 2), (0, -1)], (2, 1),
                                                 (1, 2))),
        np_conv(x, k, (1, 1), [(1, 2), (0, -1)], (2, 1), (1, 2), _perms(None, 4)),
        rtol=1e-4, atol=1e-5)


def test_preferred_element_type_and_precision():
    x = RNG.integers(-3, 4, (1, 1, 4, 4)).astype(np.int8)
    k = RNG.integers(-3, 4, (1, 1, 2, 2)).astype(np.int8)
    got = lax.conv(x, k, (1, 1), "VALID", precision=lax_precision(),
                   preferred_element_type=np.float32)
    assert got.dtype == np.float32
    want = np_conv(x, k, (1, 1), [(0, 0), (0, 0)], (1, 1), (1, 1), _perms(None, 4))
    np.testing.assert_allclose(np.asarray(got), want)


def lax_precision():
    return "highest"


@pytest.mark.parametrize("padding", ["SAME", "VALID", [(1, 2), (2, 1)]])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2), (3, 2)])
def test_conv_transpose_matches_jax(padding, strides):
    if jax is None:
        pytest.skip("jax is not installed")
    x, k = _rand((2, 5, 4, 3)), _rand((3, 3, 3, 2))
    got = lax.conv_transpose(x, k, strides, padding)
    want = jax.lax.conv_transpose(x, k, strides, padding)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)
    got = lax.conv_transpose(x, _rand((3, 3, 2, 3)), strides, padding, transpose_kernel=True)
    assert got.shape == jax.lax.conv_transpose(x, np.zeros((3, 3, 2, 3), np.float32), strides,
                                               padding, transpose_kernel=True).shape


def test_dimension_numbers():
    dn = lax.conv_dimension_numbers((1, 2, 3, 4), (1, 2, 3, 4), ("NHWC", "HWIO", "NHWC"))
    assert dn == lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    assert lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), None) == \
        lax.ConvDimensionNumbers((0, 1, 2), (0, 1, 2), (0, 1, 2))
    assert lax.conv_dimension_numbers((1,), (1,), dn) is dn


def test_text_round_trip():
    x, k = _rand((1, 5, 5, 2)), _rand((3, 3, 2, 4))
    text = xjit.jit(lambda a, b: lax.conv_general_dilated(
        a, b, (2, 1), [(1, -1), (0, 2)], (1, 2), (2, 1), ("NHWC", "HWIO", "NHWC"))).lower(
        x, k).as_text()
    assert "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>" in text
    assert "dense<[[1, -1], [0, 2]]>" in text


@pytest.mark.parametrize("args, kwargs, exc, match", [
    (((1, 3, 5, 5), (4, 2, 3, 3), (1, 1), "VALID"), {}, ValueError,
     "must equal the rhs input feature dimension"),
    (((1, 4, 5, 5), (4, 2, 3, 3), (1, 1), "VALID"), {"feature_group_count": 3}, ValueError,
     "feature_group_count must divide"),
    (((3, 2, 5, 5), (4, 2, 3, 3), (1, 1), "VALID"), {"batch_group_count": 2}, ValueError,
     "batch_group_count must divide"),
    (((2, 2, 5, 5), (4, 1, 3, 3), (1, 1), "VALID"),
     {"batch_group_count": 2, "feature_group_count": 2}, ValueError, "At most one"),
    (((1, 2, 5, 5), (4, 2, 3, 3), (1,), "VALID"), {}, ValueError, "window_strides must have 2"),
    (((1, 2, 5, 5), (4, 2, 3, 3), (0, 1), "VALID"), {}, ValueError, "must be positive"),
    (((1, 2, 5, 5), (4, 2, 3), (1, 1), "VALID"), {}, TypeError, "ndim to be equal"),
    (((1, 2, 5, 5), (4, 2, 3, 3), (1, 1), "FULL"), {}, RuntimeError, "Unrecognized padding"),
    (((1, 2, 5, 5), (4, 2, 3, 3), (1, 1), [(1, 1)]), {}, ValueError, "padding must have 2"),
    (((1, 2, 5, 5), (4, 2, 3, 3), (1, 1), "SAME"), {"lhs_dilation": (2, 2)}, ValueError,
     "String padding is not implemented"),
    (((1, 2, 5, 5), (4, 2, 3, 3), (1, 1), "VALID"),
     {"dimension_numbers": ("NCHW", "OIHW")}, TypeError, "must be length 3"),
    (((1, 2, 5, 5), (4, 2, 3, 3), (1, 1), "VALID"),
     {"dimension_numbers": ("NCHW", "OIHW", "NCXW")}, TypeError, "same set of spatial"),
    (((1, 2, 5, 5), (4, 2, 3, 3), (1, 1), "VALID"),
     {"dimension_numbers": ("NNHW", "OIHW", "NCHW")}, TypeError, "exactly once"),
])
def test_bad_inputs(args, kwargs, exc, match):
    ls, rs, strides, padding = args
    with pytest.raises(exc, match=match):
        lax.conv_general_dilated(np.zeros(ls, np.float32), np.zeros(rs, np.float32), strides,
                                 padding, **kwargs)


def test_mixed_dtypes_rejected():
    with pytest.raises(TypeError):
        lax.conv(np.zeros((1, 1, 3, 3), np.float32), np.zeros((1, 1, 2, 2), np.int32), (1, 1),
                 "VALID")


@pytest.mark.parametrize("dn", [None, ("NHWC", "HWIO", "NHWC")])
def test_cnn_sized_convolution(dn):
    # Big enough for oneDNN's gemm/im2col path with its scratchpad (run on the
    # device's worker thread, not the thread that compiled the primitive).
    x, k = _rand((4, 32, 20, 20)), _rand((48, 32, 3, 3))
    if dn is not None:
        x, k = np.ascontiguousarray(x.transpose(0, 2, 3, 1)), np.ascontiguousarray(
            k.transpose(2, 3, 1, 0))
    f = xjit.jit(lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "SAME",
                                                       dimension_numbers=dn))
    want = np_conv(x, k, (1, 1), [(1, 1), (1, 1)], (1, 1), (1, 1), _perms(dn, 4))
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(f(x, k)), want, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(np.asarray(lax.conv_general_dilated(
        x, k, (2, 2), "VALID", dimension_numbers=dn)), np_conv(
        x, k, (2, 2), [(0, 0), (0, 0)], (1, 1), (1, 1), _perms(dn, 4)), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("ls, rs, padding", [
    ((1, 2, 3, 3), (4, 2, 5, 5), "VALID"),          # window larger than the input
    ((0, 2, 5, 5), (4, 2, 3, 3), "SAME"),           # empty batch
    ((1, 2, 5, 5), (0, 2, 3, 3), "SAME"),           # no output features
    ((1, 2, 3, 3), (4, 2, 2, 2), [(-2, -2), (0, 0)]),  # padding cuts everything
])
def test_empty_results(ls, rs, padding):
    x, k = _rand(ls), _rand(rs)
    for f in (lambda a, b: lax.conv(a, b, (1, 1), padding),
              xjit.jit(lambda a, b: lax.conv(a, b, (1, 1), padding))):
        got = f(x, k)
        pads = _explicit(padding, ls, rs, (1, 1), (1, 1), None)
        want = np_conv(x, k, (1, 1), pads, (1, 1), (1, 1), _perms(None, 4))
        assert got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-5)


def test_bool_and_int_convolution():
    x = RNG.integers(0, 2, (1, 2, 4, 4)).astype(bool)
    k = RNG.integers(0, 2, (3, 2, 2, 2)).astype(bool)
    got = lax.conv(x, k, (1, 1), "VALID")
    assert got.dtype == np.bool_
    want = np_conv(x.astype(np.int64), k.astype(np.int64), (1, 1), [(0, 0), (0, 0)], (1, 1),
                   (1, 1), _perms(None, 4)) > 0
    np.testing.assert_array_equal(np.asarray(got), want)
