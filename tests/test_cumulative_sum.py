"""Cumulative sums on the cpu backend's one-pass kernel (backends/cpu/
cumulative_sum.cc): lax.cumsum lowers to a reduce_window over the whole axis.
Prefix sums add left to right like the generic window walk (bit for bit
against the reference backend, and equal to numpy's sequential cumsum);
suffix sums (reverse=True, and the transpose in gradients) within rounding."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax

from test_cpu_fast_paths import assert_same_bits, on_both, specials

RNG = np.random.default_rng(5)

SHAPES = [((2,), 0), ((37,), 0), ((9, 13), 1), ((9, 13), 0), ((3, 5, 150), 1), ((4, 3, 2), 2),
          ((17, 200), 1), ((200, 17), 0)]  # the reference walks O(n^2)
DTYPES = [np.float32, np.float64, np.float16, xjit.numpy.bfloat16, np.int8, np.int32, np.int64,
          np.uint8, np.uint32]


def values(shape, dtype):
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(0, 250, shape).astype(dtype)  # int8/uint8 sums wrap
    return specials(shape, np.float32).astype(dtype) if RNG.random() < 0.3 else \
        RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape,axis", SHAPES, ids=str)
@pytest.mark.filterwarnings("ignore:invalid value")
def test_prefix_matches_reference_bits_and_numpy(shape, axis, dtype):
    x = values(shape, dtype)
    got, want = on_both(lambda a: lax.cumsum(a, axis), x)
    assert_same_bits(got[0], want[0])
    if np.dtype(dtype).kind in "iu" or dtype in (np.float32, np.float64):
        x = x.astype(got[0].dtype)  # float64 is float32 without x64
        np.testing.assert_array_equal(got[0], np.cumsum(x, axis=axis, dtype=x.dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.float16],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape,axis", SHAPES, ids=str)
def test_suffix_matches_reference(shape, axis, dtype):
    x = RNG.integers(0, 9, shape).astype(dtype) if np.dtype(dtype).kind in "iu" else \
        RNG.standard_normal(shape).astype(dtype)
    got, want = on_both(lambda a: lax.cumsum(a, axis, reverse=True), x)
    x = x.astype(got[0].dtype)
    flipped = np.flip(np.cumsum(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
    if np.dtype(dtype).kind in "iu":
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[0], flipped)
    else:
        tol = 2e-2 if dtype == np.float16 else 1e-5
        np.testing.assert_allclose(got[0].astype(np.float64), want[0].astype(np.float64),
                                   rtol=tol, atol=tol * shape[axis])


def test_numpy_cumsum_flattens_and_promotes():
    x = RNG.integers(-5, 5, (6, 7)).astype(np.int8)
    np.testing.assert_array_equal(jnp.cumsum(x), np.cumsum(x.astype(np.int32)))
    y = RNG.standard_normal((6, 7)).astype(np.float32)
    np.testing.assert_array_equal(jnp.cumsum(y, axis=-1), np.cumsum(y, axis=-1))


@pytest.mark.parametrize("reverse", [False, True])
def test_gradient_is_the_other_direction(reverse):
    x = RNG.standard_normal((4, 50)).astype(np.float32)
    w = RNG.standard_normal((4, 50)).astype(np.float32)
    g = xjit.jit(xjit.grad(lambda a: (lax.cumsum(a, 1, reverse=reverse) * w).sum()))(x)
    want = np.cumsum(w, axis=1) if reverse else np.flip(np.cumsum(np.flip(w, 1), axis=1), 1)
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-5)
    # The transpose is itself a one-sided window (no padded copy): second order too.
    hvp = xjit.jit(xjit.grad(lambda a: (xjit.grad(lambda b: (lax.cumsum(b, 1) ** 2).sum())(a)
                                       * w).sum()))(x)
    ref = xjit.grad(lambda a: (xjit.grad(lambda b: (lax.cumsum(b, 1) ** 2).sum())(a) * w).sum())
    xjit.config.update("jax_platform_name", "reference")
    try:
        want_hvp = np.asarray(ref(x))
    finally:
        xjit.config.update("jax_platform_name", None)
    np.testing.assert_allclose(np.asarray(hvp), want_hvp, rtol=1e-4, atol=1e-3)


def test_vmapped_cumsum():
    x = RNG.standard_normal((3, 5, 8)).astype(np.float32)
    got = xjit.jit(xjit.vmap(lambda a: jnp.cumsum(a, axis=1)))(x)
    np.testing.assert_array_equal(np.asarray(got), np.cumsum(x, axis=2))


def test_windows_that_are_not_cumulative_sums_stay_generic():
    x = RNG.standard_normal((6, 40)).astype(np.float32)
    cases = [
        lambda a: lax.reduce_window(a, 0.0, lax.add, (1, 40), (1, 1), ((0, 0), (38, 0))),  # short pad
        lambda a: lax.reduce_window(a, 1.0, lax.add, (1, 40), (1, 1), ((0, 0), (39, 0))),  # init 1
        lambda a: lax.reduce_window(a, -0.0, lax.add, (1, 40), (1, 1), ((0, 0), (39, 0))),  # init -0
        lambda a: lax.reduce_window(a, 0.0, lax.add, (2, 40), (1, 1), ((1, 0), (39, 0))),  # 2 dims
        lambda a: lax.reduce_window(a, -np.inf, lax.max, (1, 40), (1, 1), ((0, 0), (39, 0))),
        lambda a: lax.reduce_window(a, 0.0, lax.add, (1, 40), (1, 2), ((0, 0), (39, 0))),  # stride
    ]
    x[2, 0] = -0.0
    for f in cases:
        got, want = on_both(f, x)
        assert_same_bits(got[0], want[0])
