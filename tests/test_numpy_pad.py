"""jnp.pad in every mode against numpy (values, eager and jit) and JAX (dtypes, weak
types, errors)."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from jax_checks import BF16, check_like_jax, jax, need_jax
from numpy_checks import assert_close

rng = np.random.default_rng(9)

ARRAYS = {
    "i32_1d": np.arange(1, 6, dtype=np.int32),
    "f32_2d": rng.normal(size=(3, 4)).astype(np.float32),
    "i8_3d": rng.integers(-9, 9, (2, 3, 2)).astype(np.int8),
    "single": np.array([7.5], np.float32),
}
WIDTHS = [0, 2, (1, 3), ((2, 0),), 9]

MODES = [
    ("constant", {}), ("constant", {"constant_values": 7}),
    ("constant", {"constant_values": (-1, 5)}), ("edge", {}), ("wrap", {}),
    ("reflect", {}), ("symmetric", {}), ("reflect", {"reflect_type": "odd"}),
    ("symmetric", {"reflect_type": "odd"}), ("linear_ramp", {}),
    ("linear_ramp", {"end_values": (-4, 10)}), ("maximum", {}), ("minimum", {}), ("mean", {}),
    ("median", {}), ("maximum", {"stat_length": 2}), ("mean", {"stat_length": (1, 3)}),
    ("median", {"stat_length": 2}), ("minimum", {"stat_length": ((1, 2),)}),
]


@pytest.mark.parametrize("mode,kwargs", MODES, ids=[f"{m}-{k}" for m, k in MODES])
@pytest.mark.parametrize("name", list(ARRAYS))
def test_pad_against_numpy(name, mode, kwargs):
    x = ARRAYS[name]
    for width in WIDTHS:
        if name == "single" and mode == "reflect" and kwargs:
            continue  # numpy and JAX disagree on odd reflection of a single element
        if width == 9 and kwargs.get("reflect_type") == "odd":
            continue  # longer than the axis: JAX's algorithm (checked against JAX below)
        want = np.pad(x, width, mode, **kwargs)
        got = jnp.pad(x, width, mode, **kwargs)
        assert_close(got, want, rtol=1e-5, atol=1e-5)
        jitted = xjit.jit(lambda v: jnp.pad(v, width, mode, **kwargs))(x)
        assert_close(jitted, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode,kwargs", MODES + [("empty", {})],
                         ids=[f"{m}-{k}" for m, k in MODES + [("empty", {})]])
def test_pad_matches_jax(mode, kwargs):
    need_jax()
    for x in (ARRAYS["i32_1d"], ARRAYS["f32_2d"], np.arange(4, dtype=np.float16),
              np.arange(3).astype(BF16), 2.5):
        for width in (2, 9):
            check_like_jax(lambda v: jnp.pad(v, width, mode, **kwargs),
                           lambda v: jax.numpy.pad(v, width, mode, **kwargs), (x,),
                           rtol=1e-2, atol=1e-2)
    # A weakly typed array keeps its weak type.
    check_like_jax(lambda v: jnp.pad(v * 1.0, 1, mode, **kwargs),
                   lambda v: jax.numpy.pad(v * 1.0, 1, mode, **kwargs),
                   (np.arange(3, dtype=np.float32),), rtol=1e-5)


def test_pad_traced_constant_value():
    x = np.arange(4, dtype=np.float32)
    got = xjit.jit(lambda v, c: jnp.pad(v, 1, constant_values=c))(x, np.float32(-2))
    assert_close(got, np.pad(x, 1, constant_values=-2))
    cv = np.array([[1, 2], [3, 4]], np.float32)
    y = np.zeros((2, 2), np.float32)
    assert_close(jnp.pad(y, 1, constant_values=cv), np.pad(y, 1, constant_values=cv))


def test_pad_callable_mode():
    def pad_with(vector, pad_width, iaxis, kwargs):
        value = kwargs.get("padder", 10)
        before, after = pad_width
        n = vector.shape[0]
        idx = jnp.arange(n)
        inside = (idx >= before) & (idx < n - after)
        return jnp.where(inside, vector, value)
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    want = np.pad(x, 2, lambda v, pw, ax, kw: _np_pad_with(v, pw, kw), padder=-1)
    assert_close(jnp.pad(x, 2, pad_with, padder=-1), want)


def _np_pad_with(vector, pad_width, kwargs):
    value = kwargs.get("padder", 10)
    vector[:pad_width[0]] = value
    if pad_width[1]:
        vector[-pad_width[1]:] = value


def test_pad_scalar_is_returned():
    assert jnp.pad(3.0, 2).shape == ()


@pytest.mark.parametrize("call,err", [
    (lambda: jnp.pad(np.ones(3), -1), ValueError),
    (lambda: jnp.pad(np.ones(3), 1.5), TypeError),
    (lambda: jnp.pad(np.ones((2, 2)), ((1, 2, 3),)), ValueError),
    (lambda: jnp.pad(np.ones(3), 1, mode="bogus"), NotImplementedError),
    (lambda: jnp.pad(np.ones(3), 1, mode="edge", constant_values=1), ValueError),
    (lambda: jnp.pad(np.ones(3), 1, mode="reflect", reflect_type="sideways"), ValueError),
    (lambda: jnp.pad(np.ones((0,)), 1, mode="wrap"), ValueError),
    (lambda: jnp.pad(np.ones((0,)), 1, mode="edge"), ValueError),
    (lambda: jnp.pad(np.ones(3), 1, mode="mean", stat_length=0), ValueError),
    (lambda: jnp.pad([1, 2], 1), TypeError),
    (lambda: xjit.jit(lambda w: jnp.pad(jnp.ones(3), w))(1), TypeError),
])
def test_pad_bad_inputs(call, err):
    with pytest.raises(err):
        call()


def test_pad_empty_axis_constant():
    assert_close(jnp.pad(np.ones((0, 2), np.float32), 1), np.pad(np.ones((0, 2), np.float32), 1))
