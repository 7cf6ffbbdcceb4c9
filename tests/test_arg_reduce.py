"""argmax / argmin on the cpu backend's vector kernel (backends/cpu/arg_reduce.cc)
against the reference backend bit for bit and against numpy: NaNs (the first
one wins), signed zeros and ties (the first position wins), every reduced
axis, long rows split between threads, and variadic reduces whose bodies only
look like argmax (the kernel must leave them to the generic reduce)."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax

from test_cpu_fast_paths import assert_same_bits, on_both, specials

RNG = np.random.default_rng(11)

SHAPES = [((7,), 0), ((70,), 0), ((5, 300), 1), ((5, 300), 0), ((3, 4, 65), 1),
          ((3, 4, 65), 2), ((2, 3, 4), 0), ((33, 65), None)]
LONG = [((1 << 18,), 0), ((2, 150_000), 1), ((70_000, 3), 0)]  # rows split between threads; long columns
DTYPES = [np.float32, np.float64, np.float16, xjit.numpy.bfloat16, np.int8, np.int16, np.int32,
          np.int64, np.uint8, np.uint16, np.uint32]
CASES = ([(s, d) for s in SHAPES for d in DTYPES] +
         [(s, d) for s in LONG for d in (np.float32, np.float16, np.int8, np.int64)])


def values(shape, dtype, ties):
    if np.dtype(dtype).kind in "iu":
        lo = 0 if np.dtype(dtype).kind == "u" else -3
        return RNG.integers(lo, 4 if ties else 100, shape).astype(dtype)
    return specials(shape, np.float32, ties=ties).astype(dtype)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{np.dtype(c[1]).name}")
@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_matches_reference_and_numpy(fn, case):
    (shape, axis), dtype = case
    for ties in (False, True):
        x = values(shape, dtype, ties)
        f = lambda a: getattr(jnp, fn)(a, axis=axis)
        got, want = on_both(f, x)
        assert_same_bits(got[0], want[0])
        wide = x.astype(np.float32) if x.dtype.kind != "i" and x.dtype.itemsize == 2 and x.dtype != np.uint16 else x
        np.testing.assert_array_equal(got[0], getattr(np, fn)(wide, axis=axis))


@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_nan_and_signed_zero_positions(fn):
    n = 1 << 17
    f = xjit.jit(getattr(jnp, fn))
    for where in (0, 31, 32, 63, 64, 5000, n - 1):
        x = np.zeros(n, np.float32)
        x[::2] = -0.0
        x[where] = np.nan
        x[min(where + 7, n - 1)] = np.nan
        assert int(f(x)) == where
    x = np.zeros(n, np.float32)
    x[1::2] = -0.0  # all tie: the first position
    assert int(f(x)) == 0


def test_keepdims_and_index_dtype():
    x = values((4, 9, 6), np.float32, True)
    got, want = on_both(lambda a: (jnp.argmax(a, axis=1, keepdims=True),
                                   lax.argmin(a, 2, np.int32)), x)
    for g, w in zip(got, want):
        assert_same_bits(g, w)
    np.testing.assert_array_equal(got[0], np.argmax(x, axis=1, keepdims=True))


def _variadic(x, body, init_value, init_index, axis=1):
    iota = lax.broadcasted_iota(np.int32, x.shape, axis)
    return lax.reduce((x, iota), (np.float32(init_value), np.int32(init_index)),
                      lambda acc, cur: body(*acc, *cur), (axis,))


def _argmax_body(acc, cur):
    (av, ai), (cv, ci) = acc, cur
    pick = (cv > av) | ((cv != cv) & (av == av))
    tie = (cv == av) | ((cv != cv) & (av != av))
    take = pick | (tie & (ci < ai))
    return lax.select(pick, cv, av), lax.select(take, ci, ai)


@pytest.mark.parametrize("init_value,init_index", [(-np.inf, 2**31 - 1), (0.0, 3), (0.0, 1000),
                                                   (np.nan, 5), (5.0, 0), (-0.0, 2)])
def test_init_values_fold_like_the_body(init_value, init_index):
    x = values((6, 200), np.float32, True)
    x[1] = -x[1] ** 2  # a row all <= 0: ties with a zero init
    got, want = on_both(lambda a: _variadic(a, lambda *p: _argmax_body(p[:2], p[2:]), init_value,
                                            init_index), x)
    for g, w in zip(got, want):
        assert_same_bits(g, w)


LOOKALIKES = {
    # ties go to the later position
    "last_tie": lambda av, ai, cv, ci: (
        lax.select((cv > av) | ((cv != cv) & (av == av)), cv, av),
        lax.select((cv > av) | ((cv != cv) & (av == av)) | ((cv == av) & (ci > ai)), ci, ai)),
    # NaN is not the best (plain greater-than)
    "nan_ignored": lambda av, ai, cv, ci: (
        lax.select(cv > av, cv, av), lax.select((cv > av) | ((cv == av) & (ci < ai)), ci, ai)),
    # the value follows the index on ties (keeps the lower index's zero sign)
    "value_follows_index": lambda av, ai, cv, ci: (
        lax.select((cv > av) | ((cv == av) & (ci < ai)) | ((cv != cv) & (av == av)), cv, av),
        lax.select((cv > av) | ((cv == av) & (ci < ai)) | ((cv != cv) & (av == av)), ci, ai)),
    # the index result reads a value (not a choice between indices)
    "sum_index": lambda av, ai, cv, ci: (lax.max(av, cv), ai + ci),
}


@pytest.mark.parametrize("name", sorted(LOOKALIKES))
def test_lookalike_bodies_stay_generic(name):
    x = RNG.integers(-3, 4, (6, 150)).astype(np.float32)  # ties
    x[1, 40::7] = np.nan
    x[2] = -np.abs(x[2]) - 1  # a zero of each sign is the maximum
    x[2, 9], x[2, 30], x[2, 77] = -0.0, 0.0, -0.0
    x[3, 5::11] = np.inf
    x[4] = specials(150)
    x[5] = -np.abs(x[5]) - 1
    x[5, 3::50] = -0.0  # ties a +0 init
    for init in ((-np.inf, 0), (0.0, 2**31 - 1)):
        got, want = on_both(lambda a: _variadic(a, LOOKALIKES[name], *init), x)
        for g, w in zip(got, want):
            assert_same_bits(g, w)
