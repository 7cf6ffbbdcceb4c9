"""lax.batch_norm_inference/training/grad (xjit extras on the StableHLO ops)
against numpy formulas on cpu and reference, eager and under jit; their JVPs
and VJPs (check_grads, and JAX's gradient of the jnp formula); vmap against a
Python loop; bad inputs."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax
from xjit.test_util import check_grads
from jax_checks import jax

RNG = np.random.default_rng(8)

CASES = [((4, 3, 5, 2), 1), ((6, 5, 4), 2), ((3, 7), 0), ((2, 4, 3, 3), 3), ((5,), 0)]


def _axes(x, f):
    return tuple(i for i in range(x.ndim) if i != f)


def _bcast(v, x, f):
    shape = [1] * x.ndim
    shape[f] = -1
    return v.reshape(shape)


def np_inference(x, scale, offset, mean, var, eps, f):
    eps = float(np.float32(eps))  # an f32 attribute
    x = x.astype(np.float64)
    b = lambda v: _bcast(v.astype(np.float64), x, f)  # noqa: E731
    return b(scale) * (x - b(mean)) / np.sqrt(b(var) + eps) + b(offset)


def np_training(x, scale, offset, eps, f):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=_axes(x, f))
    var = ((x64 - _bcast(mean, x, f)) ** 2).mean(axis=_axes(x, f))
    return np_inference(x, scale, offset, mean, var, eps, f), mean, var


def np_grad(x, scale, mean, var, g, eps, f):
    eps = float(np.float32(eps))
    x, g = x.astype(np.float64), g.astype(np.float64)
    b = lambda v: _bcast(v.astype(np.float64), x, f)  # noqa: E731
    n = x.size // x.shape[f]
    inv = 1 / np.sqrt(b(var) + eps)
    xhat = (x - b(mean)) * inv
    goff = g.sum(axis=_axes(x, f))
    gs = (g * xhat).sum(axis=_axes(x, f))
    gx = b(scale) * inv * (g - b(goff) / n - xhat * b(gs) / n)
    return gx, gs, goff


def _data(shape, f, dtype=np.float32):
    c = shape[f]
    x = (RNG.standard_normal(shape) * 2 + 1).astype(dtype)
    scale = RNG.uniform(0.5, 2, c).astype(dtype)
    offset = RNG.standard_normal(c).astype(dtype)
    mean = RNG.standard_normal(c).astype(dtype)
    var = RNG.uniform(0.5, 2, c).astype(dtype)
    g = RNG.standard_normal(shape).astype(dtype)
    return x, scale, offset, mean, var, g


def _close(got, want, dtype):
    tol = {np.float64: 1e-10, np.float32: 1e-4}.get(np.dtype(dtype).type, 5e-2)
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("shape, f", CASES)
@pytest.mark.parametrize("jitted", [False, True])
def test_ops_match_numpy(shape, f, jitted, default_platform):
    x, scale, offset, mean, var, g = _data(shape, f)
    eps = 1e-3
    wrap = xjit.jit if jitted else (lambda fn: fn)
    inf = wrap(lambda *a: lax.batch_norm_inference(*a, epsilon=eps, feature_index=f))
    _close(inf(x, scale, offset, mean, var), np_inference(x, scale, offset, mean, var, eps, f),
           np.float32)
    tr = wrap(lambda *a: lax.batch_norm_training(*a, epsilon=eps, feature_index=f))
    for got, want in zip(tr(x, scale, offset), np_training(x, scale, offset, eps, f)):
        _close(got, want, np.float32)
    gr = wrap(lambda *a: lax.batch_norm_grad(*a, epsilon=eps, feature_index=f))
    for got, want in zip(gr(x, scale, mean, var, g), np_grad(x, scale, mean, var, g, eps, f)):
        _close(got, want, np.float32)


@pytest.mark.parametrize("dtype", [np.float64, np.float16, jnp.bfloat16])
def test_other_float_dtypes(dtype, default_platform, x64):
    shape, f = (3, 4, 5), 1
    x, scale, offset, mean, var, g = _data(shape, f, dtype)
    out = lax.batch_norm_training(x, scale, offset, epsilon=1e-2, feature_index=f)
    assert [o.dtype for o in out] == [np.dtype(dtype)] * 3
    for got, want in zip(out, np_training(x, scale, offset, 1e-2, f)):
        _close(got, want, dtype)
    got = lax.batch_norm_grad(x, scale, mean, var, g, epsilon=1e-2, feature_index=f)
    for u, w in zip(got, np_grad(x, scale, mean, var, g, 1e-2, f)):
        _close(u, w, dtype)
    got = lax.batch_norm_inference(x, scale, offset, mean, var, epsilon=1e-2, feature_index=f)
    _close(got, np_inference(x, scale, offset, mean, var, 1e-2, f), dtype)


def test_lowered_text_names_the_ops():
    x, scale, offset, *_ = _data((2, 3), 1)
    text = xjit.jit(lambda a, s, o: lax.batch_norm_training(a, s, o, epsilon=1e-5,
                                                           feature_index=1)).lower(
        x, scale, offset).as_text()
    assert '"stablehlo.batch_norm_training"' in text
    assert "epsilon = 1.000000e-05 : f32, feature_index = 1 : i64" in text


@pytest.mark.parametrize("shape, f", [((4, 3, 2), 1), ((3, 5), 1), ((2, 2, 3), 0)])
def test_check_grads(shape, f, x64):
    x, scale, offset, mean, var, g = _data(shape, f, np.float64)
    eps = 1e-2
    check_grads(lambda *a: lax.batch_norm_inference(*a, epsilon=eps, feature_index=f),
                (x, scale, offset, mean, var), order=2)
    check_grads(lambda *a: lax.batch_norm_training(*a, epsilon=eps, feature_index=f),
                (x, scale, offset), order=2)
    check_grads(lambda *a: lax.batch_norm_grad(*a, epsilon=eps, feature_index=f),
                (x, scale, mean, var, g), order=1)


def test_grad_of_training_is_batch_norm_grad(x64):
    """The VJP of training w.r.t. (operand, scale, offset) is what batch_norm_grad computes."""
    x, scale, offset, _, _, g = _data((4, 3, 5), 1, np.float64)
    eps = 1e-3
    _, vjp = xjit.vjp(lambda *a: lax.batch_norm_training(*a, epsilon=eps, feature_index=1)[0],
                      x, scale, offset)
    got = vjp(g)
    _, mean, var = lax.batch_norm_training(x, scale, offset, epsilon=eps, feature_index=1)
    want = lax.batch_norm_grad(x, scale, mean, var, g, epsilon=eps, feature_index=1)
    for u, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(u), np.asarray(w), rtol=1e-9, atol=1e-9)


def test_grads_match_jax_formula():
    if jax is None:
        pytest.skip("jax is not installed")
    x, scale, offset, *_ = _data((8, 4, 3, 3), 1)
    w = RNG.standard_normal(x.shape).astype(np.float32)

    def loss_x(a, s, o):
        y, mean, var = lax.batch_norm_training(a, s, o, epsilon=1e-5, feature_index=1)
        return (y * w).sum() + (mean * mean).sum() + var.sum()

    def loss_j(a, s, o):
        jnp_ = jax.numpy
        mean = a.mean(axis=(0, 2, 3))
        var = a.var(axis=(0, 2, 3))
        b = lambda v: v.reshape(1, -1, 1, 1)  # noqa: E731
        y = b(s) * (a - b(mean)) / jnp_.sqrt(b(var) + 1e-5) + b(o)
        return (y * w).sum() + (mean * mean).sum() + var.sum()

    got = xjit.grad(loss_x, argnums=(0, 1, 2))(x, scale, offset)
    want = jax.grad(loss_j, argnums=(0, 1, 2))(x, scale, offset)
    for u, v in zip(got, want):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("which", ["inference", "training", "grad"])
@pytest.mark.parametrize("f", [0, 1, 2])
def test_vmap_matches_loop(which, f):
    shape = (3, 4, 2)
    b = 3
    data = [_data(shape, f) for _ in range(b)]
    stack = [np.stack(parts) for parts in zip(*data)]
    x, scale, offset, mean, var, g = stack
    eps = 1e-3
    if which == "inference":
        fn = lambda *a: lax.batch_norm_inference(*a, epsilon=eps, feature_index=f)  # noqa: E731
        args, axes = (x, scale, offset[0], mean, var), (0, 0, None, 0, 0)
    elif which == "training":
        fn = lambda *a: lax.batch_norm_training(*a, epsilon=eps, feature_index=f)  # noqa: E731
        args, axes = (x, scale[0], offset), (0, None, 0)
    else:
        fn = lambda *a: lax.batch_norm_grad(*a, epsilon=eps, feature_index=f)  # noqa: E731
        args, axes = (x, scale, mean, var[0], g), (0, 0, 0, None, 0)
    got = xjit.vmap(fn, in_axes=axes)(*args)
    for i in range(b):
        one = fn(*[a if ax is None else a[i] for a, ax in zip(args, axes)])
        one = one if isinstance(one, tuple) else (one,)
        outs = got if isinstance(got, tuple) else (got,)
        for u, w in zip(outs, one):
            np.testing.assert_allclose(np.asarray(u)[i], np.asarray(w), rtol=1e-5, atol=1e-5)


def test_vmap_of_grad_of_training():
    x = RNG.standard_normal((3, 4, 2, 5)).astype(np.float32)
    scale = RNG.uniform(0.5, 2, 2).astype(np.float32)
    offset = np.zeros(2, np.float32)

    def loss(a):
        y, _, _ = lax.batch_norm_training(a, scale, offset, epsilon=1e-3, feature_index=1)
        return (y * y * a).sum()

    got = xjit.vmap(xjit.grad(loss))(x)
    for i in range(3):
        np.testing.assert_allclose(np.asarray(got[i]), np.asarray(xjit.grad(loss)(x[i])),
                                   rtol=1e-4, atol=1e-4)


def test_bad_inputs():
    x, scale, offset, mean, var, g = _data((2, 3), 1)
    with pytest.raises(TypeError, match="batch_norm_training does not accept dtype int32"):
        lax.batch_norm_training(np.ones((2, 3), np.int32), scale, offset, epsilon=0.1,
                                feature_index=1)
    with pytest.raises(ValueError, match="batch_norm_inference: feature_index 2 is out of range"):
        lax.batch_norm_inference(x, scale, offset, mean, var, epsilon=0.1, feature_index=2)
    with pytest.raises(ValueError, match="batch_norm_training: feature_index -1 is out of range"):
        lax.batch_norm_training(x, scale, offset, epsilon=0.1, feature_index=-1)
    with pytest.raises(TypeError, match="batch_norm_grad: feature_index must be an int"):
        lax.batch_norm_grad(x, scale, mean, var, g, epsilon=0.1, feature_index=1.0)
    with pytest.raises(TypeError, match="batch_norm_training: epsilon must be a real number"):
        lax.batch_norm_training(x, scale, offset, epsilon="small", feature_index=1)
    with pytest.raises(TypeError, match=r"batch_norm_training: scale must have shape \(3,\)"):
        lax.batch_norm_training(x, scale[:2], offset, epsilon=0.1, feature_index=1)
    with pytest.raises(TypeError, match=r"batch_norm_inference: variance must have shape"):
        lax.batch_norm_inference(x, scale, offset, mean, var.reshape(3, 1), epsilon=0.1,
                                 feature_index=1)
    with pytest.raises(TypeError, match="batch_norm_inference: mean must have the operand's "
                                        "dtype float32, got float16"):
        lax.batch_norm_inference(x, scale, offset, mean.astype(np.float16), var, epsilon=0.1,
                                 feature_index=1)
    with pytest.raises(TypeError, match="batch_norm_grad: grad_output must have the operand's"):
        lax.batch_norm_grad(x, scale, mean, var, g[:1], epsilon=0.1, feature_index=1)
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
        lax.batch_norm_training([[1.0]], np.ones(1, np.float32), np.ones(1, np.float32),
                                epsilon=0.1, feature_index=1)
    with pytest.raises(TypeError):
        lax.batch_norm_training(x, scale, offset, feature_index=1)  # epsilon is required
