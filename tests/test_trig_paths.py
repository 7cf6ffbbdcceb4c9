"""float32 sine and cosine on the cpu backend run Eigen's vector functions
(backends/cpu/eigen_math.h): within 1 ulp of the correctly rounded value
from small arguments to huge ones (Payne-Hanek reduction), with the special
values of libm (signed zeros kept, infinities to NaN), alone and in fusions."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

RNG = np.random.default_rng(21)


def ulps(a, b):
    """Distance in float32 steps (NaN positions must match)."""
    ia, ib = (v.view(np.int32).astype(np.int64) for v in (a, b))
    ia = np.where(ia < 0, -(ia & 0x7FFFFFFF), ia)
    ib = np.where(ib < 0, -(ib & 0x7FFFFFFF), ib)
    return np.abs(ia - ib)


@pytest.mark.parametrize("name", ["sin", "cos"])
@pytest.mark.parametrize("scale", [1.0, 100.0, 1e4, 1e6, 1e30])
def test_within_one_ulp(name, scale):
    x = (RNG.uniform(-1, 1, 100_003) * scale).astype(np.float32)
    got = np.asarray(xjit.jit(getattr(jnp, name))(x))
    want = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
    assert ulps(got, want).max() <= 1


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_special_values(name):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e-45, -1e-45,
                  3.4028235e38, -3.4028235e38, np.pi, np.pi / 2] * 7, np.float32)
    got = np.asarray(xjit.jit(getattr(jnp, name))(x))
    with np.errstate(invalid="ignore"):
        want = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert ulps(got[ok], want[ok]).max() <= 1
    if name == "sin":  # odd: the sign of zero survives
        np.testing.assert_array_equal(np.signbit(got[:2]), [False, True])


def test_in_a_fusion_and_under_grad():
    x = RNG.uniform(-10, 10, 50_000).astype(np.float32)
    f = xjit.jit(lambda a: jnp.sin(a) * jnp.cos(2 * a) + 1)
    np.testing.assert_allclose(np.asarray(f(x)), np.sin(x) * np.cos(2 * x) + 1, atol=3e-7)
    g = xjit.jit(xjit.grad(lambda a: jnp.sin(a).sum()))(x)
    np.testing.assert_allclose(np.asarray(g), np.cos(x), atol=2e-7)


def test_half_types_keep_their_own_path():
    x = RNG.uniform(-10, 10, 5000).astype(np.float32)
    for t in (np.float16, jnp.bfloat16):
        got = np.asarray(xjit.jit(jnp.sin)(x.astype(t))).astype(np.float32)
        np.testing.assert_allclose(got, np.sin(x.astype(t).astype(np.float32)), atol=1e-2)


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_bits_do_not_depend_on_the_position(name):
    """Every element goes through the vector function, ends of chunks too:
    shifted arrays and fused chains give the same bits."""
    x = RNG.uniform(-50, 50, 40_011).astype(np.float32)
    f = xjit.jit(getattr(jnp, name))
    whole = np.asarray(f(x))
    for shift in (1, 3, 17):
        np.testing.assert_array_equal(np.asarray(f(x[shift:])), whole[shift:])
    fused = np.asarray(xjit.jit(lambda a: getattr(jnp, name)(a * 1.0 + 0.0))(x))
    np.testing.assert_array_equal(fused, whole)


def test_sine_is_odd_and_cosine_even():
    x = RNG.uniform(-1e5, 1e5, 30_000).astype(np.float32)
    s = np.asarray(xjit.jit(jnp.sin)(np.concatenate([x, -x])))
    c = np.asarray(xjit.jit(jnp.cos)(np.concatenate([x, -x])))
    np.testing.assert_array_equal(s[:30_000], -s[30_000:])
    np.testing.assert_array_equal(c[:30_000], c[30_000:])
