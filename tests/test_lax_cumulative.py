"""lax.cumsum/cumprod/cummax/cummin/cumlogsumexp and jnp's cumulative functions
against numpy and JAX (eager and jit)."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax
from jax_checks import BF16, both_x64, check_like_jax, jax, need_jax
from numpy_checks import assert_close, check

rng = np.random.default_rng(17)


def _np_cumlogsumexp(x, axis):
    return np.logaddexp.accumulate(x.astype(np.float64), axis=axis)


NP_REFERENCE = {
    "cumsum": lambda x, axis: np.cumsum(x, axis=axis, dtype=x.dtype),
    "cumprod": lambda x, axis: np.cumprod(x, axis=axis, dtype=x.dtype),
    "cummax": lambda x, axis: np.maximum.accumulate(x, axis=axis),
    "cummin": lambda x, axis: np.minimum.accumulate(x, axis=axis),
    "cumlogsumexp": _np_cumlogsumexp,
}


@pytest.mark.parametrize("name", list(NP_REFERENCE))
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("n", [1, 5, 16, 33])
def test_lax_cumulative_against_numpy(name, axis, reverse, n):
    dtype = np.float32 if name == "cumlogsumexp" else np.int32
    x = (rng.integers(-3, 4, (3, n)) if dtype == np.int32 else rng.normal(size=(3, n)) * 5)
    x = x.astype(dtype)
    ref = NP_REFERENCE[name]

    def want_fn(v):
        if not reverse:
            return ref(v, axis)
        return np.flip(ref(np.flip(v, axis), axis), axis)

    want = want_fn(x).astype(dtype)
    check(lambda v: getattr(lax, name)(v, axis, reverse), lambda v: want, [x], dtype=dtype,
          rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", list(NP_REFERENCE))
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.float16, BF16, np.float32,
                                   np.complex64, np.bool_])
def test_lax_cumulative_matches_jax(name, dtype):
    need_jax()
    if name == "cumlogsumexp" and np.dtype(dtype).kind in "iu":
        pytest.skip("JAX fails with an OverflowError; xjit raises TypeError (tested below)")
    x = (rng.normal(size=(4, 6)) * 2).astype(dtype)
    check_like_jax(lambda v: getattr(lax, name)(v, 1), lambda v: getattr(jax.lax, name)(v, 1),
                   (x,), rtol=2e-2, atol=2e-2)
    check_like_jax(lambda v: getattr(lax, name)(v, 0, True),
                   lambda v: getattr(jax.lax, name)(v, 0, True), (x,), rtol=2e-2, atol=2e-2)


def test_lax_cumulative_special_values_and_weak_types():
    need_jax()
    x = np.array([1.0, np.nan, 3.0, -np.inf, np.inf, 2.0], np.float32)
    for name in NP_REFERENCE:
        check_like_jax(getattr(lax, name), getattr(jax.lax, name), (x,))
        check_like_jax(getattr(lax, name), getattr(jax.lax, name),
                       (np.full(4, -np.inf, np.float32),))
        check_like_jax(lambda v: getattr(lax, name)(v * 2.0), lambda v: getattr(jax.lax, name)(
            v * 2.0), (np.arange(3.0, dtype=np.float32),))
    with both_x64(True):
        for name in NP_REFERENCE:
            check_like_jax(getattr(lax, name), getattr(jax.lax, name), (rng.normal(size=9),))


def test_lax_cumulative_errors():
    for name in NP_REFERENCE:
        fn = getattr(lax, name)
        with pytest.raises(ValueError):
            fn(np.ones(3, np.float32), 1)
        with pytest.raises(ValueError):
            fn(np.float32(1.0))
        with pytest.raises(TypeError):
            fn(np.array([True, False]))
        with pytest.raises(TypeError):
            fn([1.0, 2.0])
    with pytest.raises(TypeError):
        lax.cumlogsumexp(np.array([1, 2], np.int32))


def test_lax_cumsum_large_is_exact_for_integers():
    x = rng.integers(-1000, 1000, 100_003).astype(np.int32)
    assert_close(lax.cumsum(x), np.cumsum(x).astype(np.int32))
    assert_close(xjit.jit(lambda v: lax.cumsum(v, reverse=True))(x),
                 np.cumsum(x[::-1])[::-1].astype(np.int32))


# ------------------------------------------------------------------------------ numpy

@pytest.mark.parametrize("name", ["cumsum", "cumprod", "nancumsum", "nancumprod"])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_numpy_cumulative_with_nans(name, axis):
    x = rng.normal(size=(3, 4)).astype(np.float32)
    x[0, 1] = x[2, 3] = np.nan
    check(lambda v: getattr(jnp, name)(v, axis=axis), lambda v: getattr(np, name)(v, axis=axis),
          [x], rtol=1e-5)
    i = rng.integers(-3, 4, (3, 4)).astype(np.int32)
    check(lambda v: getattr(jnp, name)(v, axis=axis), lambda v: getattr(np, name)(v, axis=axis),
          [i], dtype=np.int32)


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "nancumsum", "nancumprod"])
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float16, BF16, np.float32,
                                   np.complex64])
def test_numpy_cumulative_dtypes_match_jax(name, dtype):
    need_jax()
    x = (rng.normal(size=(2, 5)) * 2).astype(dtype)
    check_like_jax(lambda v: getattr(jnp, name)(v, 1), lambda v: getattr(jax.numpy, name)(v, 1),
                   (x,), rtol=2e-2, atol=2e-2)
    check_like_jax(lambda v: getattr(jnp, name)(v, dtype=np.bool_),
                   lambda v: getattr(jax.numpy, name)(v, dtype=np.bool_), (x,))


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
def test_array_api_cumulative(name):
    need_jax()
    x = rng.integers(-3, 4, (3, 4)).astype(np.int32)
    for kwargs in ({"axis": 0}, {"axis": 1, "include_initial": True},
                   {"axis": -1, "dtype": np.float32}):
        check_like_jax(lambda v: getattr(jnp, name)(v, **kwargs),
                       lambda v: getattr(jax.numpy, name)(v, **kwargs), (x,))
    check_like_jax(lambda v: getattr(jnp, name)(v, include_initial=True),
                   lambda v: getattr(jax.numpy, name)(v, include_initial=True), (x[0],))
    with pytest.raises(ValueError):
        getattr(jnp, name)(x)          # axis needed for 2-D input
    with pytest.raises(ValueError):
        getattr(jnp, name)(np.float32(1))
