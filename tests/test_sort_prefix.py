"""Sorts read only in their first k elements along the dimension (lax.top_k,
jnp.sort(x)[..., :k]): the cpu backend selects those with a partial sort
(backends/cpu/compiler.cc PlanSortPrefixes, sort.cc PartialKeySort). The same
values and indices as the reference backend's full stable sort: NaN, signed
zeros, ties (lower index first), integer keys, other axes; a sort also read
in full stays a full sort."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

RNG = np.random.default_rng(23)


def with_specials(shape):
    x = RNG.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[::97] = 0.0
    flat[::89] = -0.0
    flat[::193] = np.nan
    flat[5::50] = flat[6::50][:flat[5::50].size]  # ties
    return x


def same(f, x):
    got, want = xjit.jit(f)(x), xjit.jit(f, backend="reference")(x)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("shape,k,axis", [((512, 1024), 8, -1), ((64, 1000), 1, -1),
                                          ((7, 300), 37, -1), ((300, 7), 2, 0),
                                          ((5, 64, 40), 3, 1)])
def test_top_k_matches_a_full_sort(shape, k, axis):
    x = with_specials(shape)
    f = lambda a: xjit.lax.top_k(jnp.moveaxis(a, axis, -1), k)  # noqa: E731
    same(f, x)
    same(f, np.nan_to_num(x * 10).astype(np.int32))


def test_sorted_prefix_and_full_sort():
    x = with_specials((100, 640))
    same(lambda a: jnp.sort(a, axis=-1)[..., :2], x)
    same(lambda a: (jnp.sort(a, axis=-1)[..., :3], jnp.sort(a, axis=-1)), x)


def test_top_k_against_numpy():
    x = RNG.permutation(4096 * 256).astype(np.float32).reshape(4096, 256)  # distinct values
    values, indices = xjit.jit(lambda a: xjit.lax.top_k(a, 5))(x)
    want = np.argsort(-x, axis=1)[:, :5]
    np.testing.assert_array_equal(np.asarray(indices), want)
    np.testing.assert_array_equal(np.asarray(values), np.take_along_axis(x, want, 1))
