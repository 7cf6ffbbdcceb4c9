"""Slices read in place by their consumer's generated kernel (backends/cpu/
operand_reads.h): jnp.diff, x[1:] - x[:-1], stencils of interior slices, a
slice also returned or read twice, rows too short for the kernel (copied
first); iotas spread as vectors and compared as integers (tril, triu, causal
masks), converted masks (1.0 where true); and recomputed producers
(standardised columns). Against numpy and
the reference backend, bit for bit where the ops are exact."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from numpy_checks import same_as_reference

RNG = np.random.default_rng(23)


@pytest.mark.parametrize("shape", [(300, 500), (64, 257), (200, 100), (7, 3, 1000), (100003,)])
@pytest.mark.parametrize("axis", [0, -1])
def test_diff(shape, axis):
    x = RNG.standard_normal(shape).astype(np.float32)
    got = np.asarray(xjit.jit(lambda a: jnp.diff(a, axis=axis))(x))
    np.testing.assert_array_equal(got, np.diff(x, axis=axis))
    same_as_reference(lambda a: jnp.diff(a, n=2, axis=axis), x)


STENCILS = {
    "interior": lambda a: a[1:-1, 1:-1] * 2 + a[:-2, 1:-1] - a[2:, 1:-1],
    "laplace": lambda a: a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] - 4 * a[1:-1, 1:-1],
    "also_returned": lambda a: (a[1:, 1:] - a[:-1, :-1], a[1:, 1:]),
    "read_twice": lambda a: a[1:, 3:] * a[1:, 3:] - a[:-1, :-3],
    "lone_product": lambda a: a[2:, :] * a[:-2, :],
}


@pytest.mark.parametrize("shape", [(300, 400), (50, 260), (40, 100)])
@pytest.mark.parametrize("name", sorted(STENCILS))
def test_stencils(shape, name):
    x = RNG.standard_normal(shape).astype(np.float32)
    same_as_reference(STENCILS[name], x)
    got = STENCILS[name](x)
    got = got if isinstance(got, tuple) else (got,)
    want = xjit.jit(STENCILS[name])(x)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(w), g, rtol=1e-6, atol=1e-5)


def test_slices_of_other_types_and_a_donated_operand():
    x = RNG.standard_normal((300, 400)).astype(np.float64)
    xf = x.astype(np.float32)  # float64 arguments are float32 without x64, as in JAX
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda a: a[1:] - a[:-1])(x)),
                                  xf[1:] - xf[:-1])
    b = RNG.standard_normal((300, 400)).astype(jnp.bfloat16)
    same_as_reference(lambda a: a[:, 1:] * 2 - a[:, :-1], b)
    y = RNG.standard_normal(100003).astype(np.float32)
    got = xjit.jit(lambda a: a[1:] - a[:-1], donate_argnums=0)(xjit.device_put(y))
    np.testing.assert_array_equal(np.asarray(got), y[1:] - y[:-1])


@pytest.mark.parametrize("shape", [(300, 257), (256, 256), (1000, 300), (5, 40, 300)])
@pytest.mark.parametrize("k", [-3, 0, 5])
def test_tril_triu(shape, k):
    x = RNG.standard_normal(shape).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda a: jnp.tril(a, k))(x)), np.tril(x, k))
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda a: jnp.triu(a, k))(x)), np.triu(x, k))


def test_causal_masks():
    n = 512
    s = RNG.standard_normal((n, n)).astype(np.float32)

    def masked_softmax(scores):
        i = jnp.arange(n)
        mask = i[:, None] >= i[None, :]
        return xjit.nn.softmax(jnp.where(mask, scores, -jnp.inf), axis=-1)

    got = np.asarray(xjit.jit(masked_softmax)(s))
    want = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    want = np.exp(want - want.max(-1, keepdims=True))
    want /= want.sum(-1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)
    u = np.arange(n, dtype=np.uint32)
    got = xjit.jit(lambda a, v: jnp.where(v[:, None] < v[None, :], a, 0.0))(s, u)
    np.testing.assert_array_equal(np.asarray(got), np.where(u[:, None] < u[None, :], s, 0))


@pytest.mark.parametrize("shape", [(2048, 256), (300, 70), (40, 30, 70)])
def test_standardised_columns(shape):
    """(x - mean) feeds the variance's column fusion and the final divide:
    computed in both, never written out."""
    x = RNG.standard_normal(shape).astype(np.float32) * 3 + 1
    axes = tuple(range(len(shape) - 1))
    got = np.asarray(xjit.jit(lambda a: (a - a.mean(axes)) / a.std(axes))(x))
    xd = x.astype(np.float64)
    want = (xd - xd.mean(axes)) / xd.std(axes)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    same_as_reference(lambda a: (a - a.mean(axes)) / a.std(axes), x)


@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16])
def test_converted_masks_are_ones(dtype):
    """(x > 0).astype(float) in a generated kernel is 1.0 where true (was the
    mask's all-ones bits, a NaN), and jnp.eye's mask likewise."""
    x = RNG.standard_normal((300, 300)).astype(dtype)
    got = np.asarray(xjit.jit(lambda a: (a > 0).astype(a.dtype) * a + (a < 0).astype(a.dtype))(x))
    xf = x.astype(np.float32)
    want = (xf > 0) * xf + (xf < 0)
    np.testing.assert_array_equal(got.astype(np.float32), want.astype(dtype).astype(np.float32))
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda: jnp.eye(300) * 2)()), np.eye(300) * 2)
    a = RNG.standard_normal((300, 300)).astype(np.float32) + np.eye(300, dtype=np.float32) * 20
    np.testing.assert_allclose(np.asarray(xjit.jit(jnp.linalg.inv)(a)) @ a, np.eye(300), atol=2e-4)
