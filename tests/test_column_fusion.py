"""Reductions over leading axes fused with the element-wise work feeding them
(passes/elementwise_fusion.h: column fusion; backends/cpu/row_fusion.cc's
column mode): the producers' values never reach memory. Checked against
numpy (float64 where float32 sums are compared) and the reference backend."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

RNG = np.random.default_rng(21)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


CASES = {
    "sum_of_squares": (lambda x: (x * x).sum(0), lambda: (f32(2048, 300),)),
    "norm_of_columns": (lambda x: x / jnp.linalg.norm(x, axis=0, keepdims=True),
                        lambda: (f32(700, 129),)),
    "standardised_columns": (lambda x: (x - x.mean(0)) / x.std(0), lambda: (f32(1000, 64),)),
    "max_and_min_of_exp": (lambda x: (jnp.exp(x).max(0), jnp.exp(x).min(0)),
                           lambda: (f32(513, 40),)),
    "two_leading_axes": (lambda x: jnp.abs(x * 2 - 1).sum((0, 1)), lambda: (f32(30, 40, 50),)),
    "weight_per_row": (lambda x, w: (x * w[:, None]).sum(0), lambda: (f32(4096, 17), f32(4096))),
    "tall_and_narrow": (lambda x: jnp.tanh(x).sum(0), lambda: (f32(65536, 8),)),
    "one_row_block": (lambda x: (x + 1).sum(0), lambda: (f32(3, 5000),)),
    "keepdims_and_whole_result": (lambda x: ((x * x).sum(0, keepdims=True), x * 3),
                                  lambda: (f32(256, 256),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy_and_reference(name):
    f, make = CASES[name]
    args = make()
    got = xjit.jit(f)(*args)
    ref = xjit.jit(f, backend="reference")(*args)
    want = f(*[np.asarray(a, np.float64) for a in args]) if "norm" not in name else None
    if want is None:
        x = np.asarray(args[0], np.float64)
        want = x / np.linalg.norm(x, axis=0, keepdims=True)
    as_tuple = lambda v: v if isinstance(v, tuple) else (v,)  # noqa: E731
    for g, r, w in zip(as_tuple(got), as_tuple(ref), as_tuple(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=1e-5, atol=1e-4)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-3)


def test_integer_boolean_and_bfloat16_columns():
    x = RNG.integers(-50, 50, (900, 33)).astype(np.int32)
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda a: (a * 3).sum(0))(x)),
                                  (x * 3).sum(0))
    y = f32(900, 33)
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda a: (a > 2).any(0))(y)),
                                  (y > 2).any(0))
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda a: (a > -3).all(0))(y)),
                                  (y > -3).all(0))
    b = y.astype(jnp.bfloat16)
    got = np.asarray(xjit.jit(lambda a: (a * a).sum(0))(b), np.float32)
    want = np.asarray(xjit.jit(lambda a: (a * a).sum(0), backend="reference")(b), np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-2)


def test_bad_axis_is_a_clear_error():
    with pytest.raises((ValueError, TypeError)):
        xjit.jit(lambda a: (a * a).sum(2))(f32(4, 5))


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("special", ["none", "nan", "zeros"])
def test_column_max_and_min_match_the_reference_bit_for_bit(op, special):
    """The quick compare-select pass over columns falls back to the exact
    loop where a NaN is read or a result is zero (signed zeros)."""
    x = f32(1024, 640)
    if special == "nan":
        x[700, 3] = np.nan
    if special == "zeros":
        x[:, 5] = 0.0
        x[::3, 5] = -0.0
        x[:, 6] = -0.0
    for f in (lambda a: getattr(a, op)(0), lambda a: getattr(a * 2, op)(0)):
        got = np.asarray(xjit.jit(f)(x))
        want = np.asarray(xjit.jit(f, backend="reference")(x))
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
