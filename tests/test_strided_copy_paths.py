"""Data movement over few long runs (backends/cpu/strided_copy.cc): a 1-d
reverse or slice of 128K+ elements is split between threads inside the run,
and reversed runs copy with a vectorised loop. Checked against numpy, for
every element width."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

RNG = np.random.default_rng(3)

CASES = {
    "reverse_1d": (lambda a: a[::-1], (300_001,)),
    "reverse_rows": (lambda a: a[:, ::-1], (3, 200_003)),
    "reverse_both": (lambda a: jnp.flip(a), (2, 150_000)),
    "reverse_short_rows": (lambda a: a[:, ::-1], (500, 37)),
    "slice_1d": (lambda a: a[5:-7], (400_000,)),
    "strided_slice": (lambda a: a[1::3], (400_000,)),
    "reverse_then_scale": (lambda a: a[::-1] * 2, (262_144,)),
}


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name, dtype):
    f, shape = CASES[name]
    x = (RNG.standard_normal(shape) * 50).astype(dtype)
    got = np.asarray(xjit.jit(f)(x))
    want = f(x)
    if got.dtype != want.dtype:  # float64 -> float32 without x64
        want = want.astype(got.dtype)
    np.testing.assert_array_equal(got, want)
