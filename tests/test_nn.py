"""xjit.nn against JAX's jax.nn (values, dtypes, weak types, errors; eager and jit),
and against numpy formulas where JAX is missing."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import nn
from jax_checks import BF16, both_x64, check_like_jax, jax, need_jax
from numpy_checks import assert_close

rng = np.random.default_rng(7)

ELEMENTWISE = ["relu", "relu6", "sigmoid", "log_sigmoid", "softplus", "soft_sign", "silu",
               "swish", "elu", "selu", "celu", "leaky_relu", "hard_tanh", "hard_sigmoid",
               "hard_silu", "hard_swish", "mish", "sparse_plus", "sparse_sigmoid", "squareplus",
               "identity", "tanh"]


def _inputs():
    x = np.concatenate([np.linspace(-8, 8, 37), [0.0, -0.0, 1e-8, -1e-8, 30.0, -30.0, 100.0,
                                                 -100.0, np.inf, -np.inf, np.nan]])
    return {
        "f32": x.astype(np.float32),
        "f16": x.astype(np.float16),
        "bf16": x.astype(BF16),
        "i32": np.arange(-5, 6, dtype=np.int32),
        "py_float": 1.5,
        "py_int": -3,
        "f32_2d": rng.normal(size=(3, 4)).astype(np.float32) * 4,
    }


@pytest.mark.parametrize("name", ELEMENTWISE)
@pytest.mark.parametrize("kind", list(_inputs()))
def test_elementwise_activations_match_jax(name, kind):
    need_jax()
    x = _inputs()[kind]
    check_like_jax(getattr(nn, name), getattr(jax.nn, name), (x,))


@pytest.mark.parametrize("approximate", [True, False])
@pytest.mark.parametrize("kind", list(_inputs()))
def test_gelu_matches_jax(approximate, kind):
    need_jax()
    x = _inputs()[kind]
    check_like_jax(lambda v: nn.gelu(v, approximate=approximate),
                   lambda v: jax.nn.gelu(v, approximate=approximate), (x,))


def test_activations_float64():
    need_jax()
    x = np.linspace(-40, 40, 101)
    with both_x64(True):
        for name in ELEMENTWISE + ["gelu"]:
            check_like_jax(getattr(nn, name), getattr(jax.nn, name), (x,))
        check_like_jax(lambda v: nn.gelu(v, False), lambda v: jax.nn.gelu(v, False), (x,))


@pytest.mark.parametrize("alpha", [0.5, 2.0])
def test_parametrised_activations(alpha):
    need_jax()
    x = np.linspace(-5, 5, 21).astype(np.float32)
    check_like_jax(lambda v: nn.elu(v, alpha), lambda v: jax.nn.elu(v, alpha), (x,))
    check_like_jax(lambda v: nn.celu(v, alpha), lambda v: jax.nn.celu(v, alpha), (x,))
    check_like_jax(lambda v: nn.leaky_relu(v, alpha), lambda v: jax.nn.leaky_relu(v, alpha),
                   (x,))
    check_like_jax(lambda v: nn.squareplus(v, alpha), lambda v: jax.nn.squareplus(v, alpha),
                   (x,))


def test_stable_forms_do_not_overflow():
    x = jnp.array([-1000.0, 1000.0])
    np.testing.assert_allclose(np.asarray(nn.softplus(x)), [0.0, 1000.0])
    np.testing.assert_allclose(np.asarray(nn.log_sigmoid(x)), [-1000.0, 0.0])
    np.testing.assert_allclose(np.asarray(nn.softmax(x)), [0.0, 1.0])
    np.testing.assert_allclose(np.asarray(nn.logsumexp(x)), 1000.0)
    np.testing.assert_allclose(np.asarray(nn.log1mexp(jnp.array([1e-7, 50.0]))),
                               [np.log(1e-7), -np.exp(-50.0)], rtol=1e-5)


def test_log1mexp_matches_jax():
    need_jax()
    x = np.concatenate([np.logspace(-10, 2, 30), [0.0, np.inf]]).astype(np.float32)
    check_like_jax(nn.log1mexp, jax.nn.log1mexp, (x,))


@pytest.mark.parametrize("axis", [-1, 0, 1, None, (0, 2)])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_axes(fn, axis):
    need_jax()
    x = (rng.normal(size=(3, 4, 5)) * 10).astype(np.float32)
    check_like_jax(lambda v: getattr(nn, fn)(v, axis=axis),
                   lambda v: getattr(jax.nn, fn)(v, axis=axis), (x,))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_where(fn):
    need_jax()
    x = (rng.normal(size=(4, 6)) * 3).astype(np.float32)
    mask = rng.random((4, 6)) < 0.6
    mask[0] = False  # a row with nothing selected
    check_like_jax(lambda v, m: getattr(nn, fn)(v, axis=-1, where=m),
                   lambda v, m: getattr(jax.nn, fn)(v, axis=-1, where=m), (x, mask))
    # A broadcast mask.
    check_like_jax(lambda v, m: getattr(nn, fn)(v, axis=1, where=m),
                   lambda v, m: getattr(jax.nn, fn)(v, axis=1, where=m), (x, mask[1]))


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float32, np.int32])
def test_softmax_dtypes(dtype):
    need_jax()
    x = (rng.normal(size=(3, 5)) * 3).astype(dtype)
    for fn in ("softmax", "log_softmax"):
        check_like_jax(getattr(nn, fn), getattr(jax.nn, fn), (x,))
    check_like_jax(nn.softmax, jax.nn.softmax, (2.0,))


def test_softmax_infinities():
    need_jax()
    x = np.array([[-np.inf, -np.inf], [np.inf, 1.0], [-np.inf, 0.0]], np.float32)
    for fn in ("softmax", "log_softmax"):
        check_like_jax(getattr(nn, fn), getattr(jax.nn, fn), (x,))


@pytest.mark.parametrize("kwargs", [{}, {"axis": None}, {"axis": 0, "keepdims": True},
                                    {"axis": (0, 1)}])
def test_logsumexp_and_logmeanexp(kwargs):
    need_jax()
    x = (rng.normal(size=(3, 4)) * 20).astype(np.float32)
    check_like_jax(lambda v: nn.logsumexp(v, **kwargs), lambda v: jax.nn.logsumexp(v, **kwargs),
                   (x,))
    check_like_jax(lambda v: nn.logmeanexp(v, **kwargs),
                   lambda v: jax.nn.logmeanexp(v, **kwargs), (x,))
    mask = rng.random((3, 4)) < 0.5
    check_like_jax(lambda v, m: nn.logmeanexp(v, where=m, **kwargs),
                   lambda v, m: jax.nn.logmeanexp(v, where=m, **kwargs), (x, mask))


@pytest.mark.parametrize("axis", [-1, 0, (0, 1)])
@pytest.mark.parametrize("algorithm", ["fast", "stable"])
def test_standardize(axis, algorithm):
    need_jax()
    x = (rng.normal(size=(4, 8)) * 3 + 1).astype(np.float32)
    check_like_jax(lambda v: nn.standardize(v, axis, algorithm=algorithm),
                   lambda v: jax.nn.standardize(v, axis, algorithm=algorithm), (x,), rtol=1e-4,
                   atol=1e-4)
    mean = x.mean(axis=axis, keepdims=True)
    var = x.var(axis=axis, keepdims=True)
    check_like_jax(lambda v, m, s: nn.standardize(v, axis, m, s, epsilon=1e-3),
                   lambda v, m, s: jax.nn.standardize(v, axis, m, s, epsilon=1e-3),
                   (x, mean, var), rtol=1e-5, atol=1e-5)
    mask = rng.random((4, 8)) < 0.7
    mask[:2] = True  # two or more elements per column: no variance that is only rounding
    mask[:, :2] = True
    check_like_jax(lambda v, w: nn.standardize(v, axis, where=w, algorithm=algorithm),
                   lambda v, w: jax.nn.standardize(v, axis, where=w, algorithm=algorithm),
                   (x, mask), rtol=1e-4, atol=1e-4)


def test_standardize_is_layer_norm():
    x = (rng.normal(size=(5, 16)) * 2 + 3).astype(np.float32)
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    assert_close(nn.standardize(x), want, rtol=1e-4, atol=1e-4)
    assert_close(xjit.jit(nn.standardize)(x), want, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="Unknown algorithm"):
        nn.standardize(x, algorithm="slow")


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("dtype", [None, np.int32, np.float16, np.bool_])
def test_one_hot(axis, dtype):
    need_jax()
    x = np.array([[0, 2, -1], [3, 1, 0]], np.int32)
    check_like_jax(lambda v: nn.one_hot(v, 3, dtype=dtype, axis=axis),
                   lambda v: jax.nn.one_hot(v, 3, dtype=dtype, axis=axis), (x,))


def test_one_hot_errors():
    with pytest.raises(xjit.errors.ConcretizationTypeError):
        xjit.jit(lambda n: nn.one_hot(jnp.arange(3), n))(3)
    with pytest.raises(TypeError):
        nn.one_hot(jnp.arange(3), 2.5)
    with pytest.raises(ValueError):
        nn.one_hot(jnp.arange(3), 3, axis=3)
    with pytest.raises(TypeError):
        nn.one_hot([0, 1], 3)
    with pytest.warns(DeprecationWarning):
        nn.one_hot(jnp.array([0.0, 1.0]), 2)


@pytest.mark.parametrize("axis", [-1, 0])
def test_glu(axis):
    need_jax()
    x = rng.normal(size=(4, 6)).astype(np.float32)
    check_like_jax(lambda v: nn.glu(v, axis), lambda v: jax.nn.glu(v, axis), (x,))
    with pytest.raises(AssertionError):
        nn.glu(jnp.ones((3, 3)))


@pytest.mark.parametrize("name", ["relu", "softmax", "gelu", "standardize", "sigmoid"])
def test_bad_inputs_raise_typeerror(name):
    with pytest.raises(TypeError):
        getattr(nn, name)([1.0, 2.0])
    with pytest.raises(TypeError):
        getattr(nn, name)("x")


def test_axis_out_of_range():
    with pytest.raises(ValueError):
        nn.softmax(jnp.ones((2, 3)), axis=2)
    with pytest.raises(ValueError):
        nn.logsumexp(jnp.ones((2, 3)), axis=(0, 0))


def test_import_paths():
    import xjit.nn as nn_module
    assert xjit.nn is nn_module
    assert xjit.nn.initializers.zeros is nn.initializers.zeros


def test_float64_softmax_logsumexp():
    need_jax()
    x = rng.normal(size=(3, 7)) * 50
    with both_x64(True):
        for fn in ("softmax", "log_softmax", "logsumexp"):
            check_like_jax(getattr(nn, fn), getattr(jax.nn, fn), (x,))
