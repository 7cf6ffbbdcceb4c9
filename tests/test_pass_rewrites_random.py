"""Randomised checks of this layer's graph rewrites against the reference
backend, which runs the module as traced (no passes): dot strength
reduction (vector-sided dots of random dimension numbers), point
linearization (x[i, j, ...] gathers and x.at[...] scatters of random ranks,
index orders and types) and spread-index gathers (take_along_axis with
indices spread along random dims). Shapes are drawn so that the rewrites
apply (matrices of 16K+ elements) and also so that they do not."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

SEEDS = range(12)


def _reference(f, *args):
    return xjit.jit(f, backend="reference")(*args)


@pytest.mark.parametrize("seed", SEEDS)
def test_vector_dots_of_random_dimension_numbers(seed):
    rng = np.random.default_rng(seed)
    letters = "abcdef"
    rank = int(rng.integers(1, 4))
    dims = {c: int(rng.integers(2, 12)) for c in letters[:rank + 2]}
    names = list(dims)
    matrix = "".join(rng.permutation(names)[:rng.integers(2, len(names) + 1)])
    # The vector side: a subset of the matrix's letters (batch or contracted).
    vector = "".join(c for c in matrix if rng.random() < 0.6) or matrix[0]
    kept = "".join(c for c in matrix if c not in vector or rng.random() < 0.4)
    spec = f"{matrix},{vector}->{kept}" if rng.random() < 0.5 else f"{vector},{matrix}->{kept}"
    if rng.random() < 0.7:  # a matrix of 16K+ elements: the rewrite applies
        size = int(np.prod([dims[c] for c in matrix]))
        dims[matrix[-1]] *= -(-16384 // size)
    ops = spec.split("->")[0].split(",")
    args = [rng.standard_normal([dims[c] for c in o]).astype(np.float32) for o in ops]
    f = lambda p, q: jnp.einsum(spec, p, q)  # noqa: E731
    got = np.asarray(xjit.jit(f)(*args))
    want = np.einsum(spec, *[a.astype(np.float64) for a in args])
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-3, err_msg=spec)


@pytest.mark.parametrize("seed", SEEDS)
def test_points_of_random_ranks(seed, x64):
    rng = np.random.default_rng(100 + seed)
    rank = int(rng.integers(2, 5))
    shape = tuple(int(rng.integers(2, 30)) for _ in range(rank))
    dtype = [np.float32, np.int8, np.float64, np.int64][seed % 4]
    itype = [np.int32, np.int64][seed % 2]
    x = (rng.standard_normal(shape) * 50).astype(dtype)
    n = int(rng.integers(1, 3000))
    idx = tuple(rng.integers(-2 * d, 2 * d, n).astype(itype) for d in shape)
    g = lambda a, *i: a[i]  # noqa: E731
    np.testing.assert_array_equal(np.asarray(xjit.jit(g)(x, *idx)),
                                  np.asarray(_reference(g, x, *idx)))
    u = (rng.standard_normal(n) * 50).astype(dtype)
    for method in ("set", "add", "max"):
        s = lambda a, v, *i: getattr(a.at[i], method)(v)  # noqa: E731
        np.testing.assert_array_equal(np.asarray(xjit.jit(s)(x, u, *idx)),
                                      np.asarray(_reference(s, x, u, *idx)))


@pytest.mark.parametrize("seed", SEEDS)
def test_take_along_axis_with_random_spreads(seed):
    rng = np.random.default_rng(200 + seed)
    rank = int(rng.integers(1, 4))
    shape = tuple(int(rng.integers(2, 40)) for _ in range(rank))
    axis = int(rng.integers(0, rank))
    ishape = tuple(int(rng.integers(1, 50)) if d == axis else
                   (1 if rng.random() < 0.6 else shape[d]) for d in range(rank))
    x = rng.standard_normal(shape).astype(np.float32)
    idx = rng.integers(-2 * shape[axis], 2 * shape[axis], ishape).astype(np.int32)
    for mode in (None, "clip", "fill"):
        f = lambda a, i: jnp.take_along_axis(a, i, axis=axis, mode=mode)  # noqa: E731
        np.testing.assert_array_equal(np.asarray(xjit.jit(f)(x, idx)),
                                      np.asarray(_reference(f, x, idx)))
