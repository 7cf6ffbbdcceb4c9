"""Fused element-wise work ending in a float -> integer convert (quantizing,
index computation): the generated kernel converts as it stores (AVX-512;
jit_avx512.cc StoreInt), NaN to 0, out-of-range values saturated, others
truncated toward zero, as the interpreter and the reference backend do."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

RNG = np.random.default_rng(12)
SPECIALS = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 127.5, -128.5, 128.0, -129.0,
                     255.9, 256.0, -0.9, 0.9, 32767.9, 32768.0, -32769.0, 65535.5, 65536.0,
                     2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 4294967040.0,
                     4294967296.0, 3e9, -3e9, 1e-40], np.float32)


def inputs(n=50021):
    x = (RNG.standard_normal(n) * 1e3).astype(np.float32)
    x[:SPECIALS.size] = SPECIALS
    x[-SPECIALS.size:] = SPECIALS
    return x


@pytest.mark.parametrize("dtype", [jnp.int8, jnp.uint8, jnp.int16, jnp.uint16, jnp.int32,
                                   jnp.uint32])
def test_matches_the_reference_bit_for_bit(dtype):
    x = inputs()
    for f in (lambda a: (a * 2.0 - 1.0).astype(dtype),
              lambda a: jnp.round(jnp.clip(a, -1, 1) * 127).astype(dtype)):
        got = np.asarray(xjit.jit(f)(x))
        want = np.asarray(xjit.jit(f, backend="reference")(x))
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, want)


def test_in_range_values_match_numpy():
    x = RNG.uniform(-100, 100, 40000).astype(np.float32)
    got = np.asarray(xjit.jit(lambda a: (a * 1.5).astype(jnp.int32))(x))
    np.testing.assert_array_equal(got, (x * np.float32(1.5)).astype(np.int32))
    # (a * 0.01, not a / 100: xjit divides by a constant as XLA does, by its reciprocal)
    q = np.asarray(xjit.jit(lambda a: jnp.round(jnp.clip(a * 0.01, -1, 1) * 127).astype(jnp.int8))(x))
    want = np.round(np.clip(x * np.float32(0.01), -1, 1) * np.float32(127)).astype(np.int8)
    np.testing.assert_array_equal(q, want)


def test_bfloat16_source():
    x = inputs().astype(jnp.bfloat16)
    f = lambda a: (a * 2).astype(jnp.int16)  # noqa: E731
    np.testing.assert_array_equal(np.asarray(xjit.jit(f)(x)),
                                  np.asarray(xjit.jit(f, backend="reference")(x)))
