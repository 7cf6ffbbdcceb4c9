"""lax gather/scatter/dynamic_slice/dynamic_update_slice, numpy advanced
indexing, x.at[], take, take_along_axis and put_along_axis: against numpy and
(when importable) JAX, eagerly and under jit, their bad inputs, and their
derivatives and batching (grad, jvp, vmap) against finite differences / JAX."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax
from xjit.test_util import check_grads

try:
    import jax
    import jax.numpy as jjnp
    jax.config.update("jax_platforms", "cpu")
except ImportError:  # pragma: no cover
    jax = jjnp = None

needs_jax = pytest.mark.skipif(jax is None, reason="jax is not importable")
RNG = np.random.default_rng(0)


class _x64:
    def __enter__(self):
        xjit.config.update("jax_enable_x64", True)

    def __exit__(self, *a):
        xjit.config.update("jax_enable_x64", False)


def _close(got, want, **kw):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), **kw)


# ------------------------------------------------------------------ lax.gather

GATHERS = [
    # (operand shape, indices, dnums kwargs, slice sizes)
    ((5, 3), [[2], [0], [4], [7], [-3]], dict(offset_dims=(1,), collapsed_slice_dims=(0,),
                                               start_index_map=(0,)), (1, 3)),
    ((6, 5), [[1, 1], [5, 4], [-1, 2]], dict(offset_dims=(1, 2), collapsed_slice_dims=(),
                                            start_index_map=(0, 1)), (2, 2)),
    ((4, 6), [[3], [0]], dict(offset_dims=(0,), collapsed_slice_dims=(1,),
                              start_index_map=(1,)), (4, 1)),
    ((3, 5), [[[1], [4]], [[0], [9]], [[2], [2]]],
     dict(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
          operand_batching_dims=(0,), start_indices_batching_dims=(0,)), (1, 1)),
]


@needs_jax
@pytest.mark.parametrize("case", range(len(GATHERS)))
@pytest.mark.parametrize("mode", [None, "clip", "fill", "promise_in_bounds"])
def test_gather_matches_jax(case, mode):
    shape, idx, dn, sizes = GATHERS[case]
    x = RNG.standard_normal(shape).astype(np.float32)
    idx = np.asarray(idx, np.int32)
    want = jax.lax.gather(x, idx, jax.lax.GatherDimensionNumbers(**dn), sizes, mode=mode)
    got = lax.gather(x, idx, lax.GatherDimensionNumbers(**dn), sizes, mode=mode)
    if mode in ("promise_in_bounds",):  # JAX leaves out of bounds implementation-defined
        ok = np.all((idx >= 0) & (idx < 100), axis=-1)
        if not ok.all():
            return
    _close(got, want)
    jitted = xjit.jit(lambda a, i: lax.gather(a, i, lax.GatherDimensionNumbers(**dn), sizes,
                                              mode=mode))(x, idx)
    _close(jitted, want)


def test_gather_clamps_like_the_spec():
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    dn = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(),
                                    start_index_map=(0, 1))
    got = lax.gather(x, np.array([[1, 1], [3, 0]]), dn, (2, 2), mode="promise_in_bounds")
    _close(got, [[[5, 6], [9, 10]], [[8, 9], [12, 13]]])


def test_gather_bad_inputs():
    dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
    x = np.zeros((5, 3), np.float32)
    with pytest.raises(TypeError, match="integer"):
        lax.gather(x, np.zeros((2, 1), np.float32), dn, (1, 3))
    with pytest.raises(TypeError, match="gather: slice_sizes"):
        lax.gather(x, np.zeros((2, 1), np.int32), dn, (1, 4))
    with pytest.raises(TypeError, match=r"gather: offset_dims must be sorted"):
        lax.gather(np.zeros((5, 3, 2)), np.zeros((2, 1), np.int32),
                   lax.GatherDimensionNumbers((2, 1), (0,), (0,)), (1, 3, 2))
    with pytest.raises(TypeError, match="GatherDimensionNumbers"):
        lax.gather(x, np.zeros((2, 1), np.int32), ((1,), (0,), (0,)), (1, 3))
    with pytest.raises(ValueError, match="Unknown gather mode"):
        lax.gather(x, np.zeros((2, 1), np.int32), dn, (1, 3), mode="wrap")


# ----------------------------------------------------------------- lax.scatter

SCATTERS = ["scatter", "scatter_add", "scatter_sub", "scatter_mul", "scatter_min",
            "scatter_max"]


@needs_jax
@pytest.mark.parametrize("name", SCATTERS)
@pytest.mark.parametrize("mode", [None, "clip", "drop"])
def test_scatter_family_matches_jax(name, mode):
    x = RNG.standard_normal((6, 3)).astype(np.float32)
    idx = np.array([[1], [4], [1], [9], [-2]], np.int32)
    u = RNG.standard_normal((5, 3)).astype(np.float32)
    if name == "scatter":
        idx = np.array([[1], [4], [0], [9], [-2]], np.int32)  # duplicates: undefined winner
    dn = dict(update_window_dims=(1,), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,))
    want = getattr(jax.lax, name)(x, idx, u, jax.lax.ScatterDimensionNumbers(**dn), mode=mode)
    fn = getattr(lax, name)
    got = fn(x, idx, u, lax.ScatterDimensionNumbers(**dn), mode=mode)
    _close(got, want, rtol=1e-6)
    jitted = xjit.jit(lambda a, i, b: fn(a, i, b, lax.ScatterDimensionNumbers(**dn),
                                         mode=mode))(x, idx, u)
    _close(jitted, want, rtol=1e-6)


def test_scatter_batching_dims_and_the_spec_example():
    # The spec's scatter example with updates of the declared shape (all ones).
    x = np.arange(1, 49, dtype=np.int64).reshape(2, 3, 4, 2)
    idx = np.array([[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
                    [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]], np.int64)
    dn = lax.ScatterDimensionNumbers(update_window_dims=(3, 4), inserted_window_dims=(1,),
                                     scatter_dims_to_operand_dims=(2, 1),
                                     operand_batching_dims=(0,),
                                     scatter_indices_batching_dims=(1,))
    with _x64():
        got = lax.scatter_add(x, idx, np.ones((2, 2, 3, 2, 2), np.int64), dn,
                              mode="promise_in_bounds")
        want = [[[[3, 4], [6, 7], [6, 7], [7, 8]], [[9, 10], [11, 12], [15, 16], [17, 18]],
                 [[17, 18], [19, 20], [22, 23], [24, 25]]],
                [[[25, 26], [28, 29], [30, 31], [31, 32]], [[35, 36], [38, 39], [38, 39],
                                                            [39, 40]],
                 [[41, 42], [44, 45], [46, 47], [47, 48]]]]
        np.testing.assert_array_equal(np.asarray(got), want)


def test_scatter_apply_and_generic_bodies():
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    x = np.arange(5, dtype=np.float32)
    got = lax.scatter_apply(x, np.array([[1], [3], [1]]), lambda v: v * 2 + 1, dn,
                            update_shape=(3,))
    _close(got, [0, 7, 2, 7, 4])
    got = xjit.jit(lambda a: lax.scatter_apply(a, np.array([[4]]), jnp.sin, dn,
                                               update_shape=(1,)))(x)
    _close(got, [0, 1, 2, 3, np.sin(4)], rtol=1e-6)


def test_scatter_bad_inputs():
    dn = lax.ScatterDimensionNumbers((1,), (0,), (0,))
    x = np.zeros((5, 3), np.float32)
    with pytest.raises(TypeError, match="same dtypes"):
        lax.scatter_add(x, np.zeros((2, 1), np.int32), np.zeros((2, 3), np.int32), dn)
    with pytest.raises(TypeError, match=r"scatter: updates dimension 0 .* \(C4\)"):
        lax.scatter_add(x, np.zeros((2, 1), np.int32), np.zeros((3, 3), np.float32), dn)
    with pytest.raises(TypeError, match="ScatterDimensionNumbers"):
        lax.scatter(x, np.zeros((2, 1), np.int32), np.zeros((2, 3), np.float32), (1,))
    with pytest.raises(TypeError, match="callable"):
        lax.scatter_apply(x, np.zeros((2, 1), np.int32), 3, dn)


# --------------------------------------------------------------- dynamic slices

@needs_jax
@pytest.mark.parametrize("start", [(0, 0), (2, 3), (-1, 2), (9, -9), (-6, 1)])
def test_dynamic_slices_match_jax(start):
    x = RNG.standard_normal((5, 6)).astype(np.float32)
    u = RNG.standard_normal((2, 3)).astype(np.float32)
    _close(lax.dynamic_slice(x, start, (2, 3)), jax.lax.dynamic_slice(x, start, (2, 3)))
    _close(lax.dynamic_update_slice(x, u, start), jax.lax.dynamic_update_slice(x, u, start))
    f = xjit.jit(lambda a, i, j: lax.dynamic_slice(a, (i, j), (2, 3)))
    _close(f(x, np.int32(start[0]), np.int32(start[1])), jax.lax.dynamic_slice(x, start, (2, 3)))
    g = xjit.jit(lambda a, b, i: lax.dynamic_update_slice_in_dim(a, b, i, 0))
    _close(g(x, u[:, :1].repeat(6, 1), np.int32(start[0])),
           jax.lax.dynamic_update_slice_in_dim(x, u[:, :1].repeat(6, 1), start[0], 0))
    _close(lax.dynamic_slice_in_dim(x, start[1], 2, axis=1),
           jax.lax.dynamic_slice_in_dim(x, start[1], 2, axis=1))
    _close(lax.dynamic_index_in_dim(x, start[0], 0, keepdims=False),
           jax.lax.dynamic_index_in_dim(x, start[0], 0, keepdims=False))
    _close(lax.dynamic_update_index_in_dim(x, u[0, :1].repeat(6), start[0], 0),
           jax.lax.dynamic_update_index_in_dim(x, u[0, :1].repeat(6), start[0], 0))


def test_dynamic_slice_bad_inputs():
    x = np.zeros((4, 4), np.float32)
    with pytest.raises(TypeError, match="length of start_indices"):
        lax.dynamic_slice(x, (1,), (2, 2))
    with pytest.raises(TypeError, match="dynamic_slice: slice_sizes"):
        lax.dynamic_slice(x, (1, 1), (2, 5))
    with pytest.raises(TypeError, match="integer"):
        lax.dynamic_slice(x, (1.0, 1), (2, 2))
    with pytest.raises(TypeError, match="dynamic_update_slice: update"):
        lax.dynamic_update_slice(x, np.zeros((5, 1), np.float32), (0, 0))
    with pytest.raises(TypeError, match="same dtypes"):
        lax.dynamic_update_slice(x, np.zeros((1, 1), np.int32), (0, 0))


# ------------------------------------------------------------ numpy indexing

INDICES = [
    (np.array([2, 0, -1]),),
    (slice(None), np.array([1, 3])),
    (np.array([0, 2]), np.array([1, 3])),
    (np.array([[0], [2]]), np.array([1, 3])),
    (np.array([0, 2]), slice(1, 3), np.array([1, 0])),
    (slice(None), np.array([[1, 2]]), np.array([[0], [1]])),
    (1, np.array([0, 2])),
    (np.array([1, 0]), Ellipsis, None),
    (np.array([True, False, True]),),
    (slice(None, None, -1), np.array([2])),
    (np.int32(1), slice(None), 0),
]


@pytest.mark.parametrize("k", range(len(INDICES)))
def test_advanced_indexing_matches_numpy(k):
    x = np.arange(3 * 4 * 2, dtype=np.float32).reshape(3, 4, 2)
    idx = INDICES[k]
    want = x[idx]
    got = jnp.asarray(x)[idx]
    np.testing.assert_array_equal(np.asarray(got), want)
    traced = tuple(jnp.asarray(i) if isinstance(i, np.ndarray) and i.dtype != bool else i
                   for i in idx)
    jitted = xjit.jit(lambda a: a[traced])(x)
    np.testing.assert_array_equal(np.asarray(jitted), want)


def test_traced_scalar_indices_use_dynamic_slice():
    x = jnp.arange(12.0).reshape(3, 4)
    f = xjit.jit(lambda a, i, j: a[i, 1:3] + a[:, j].sum())
    text = xjit.jit(lambda a, i: a[i]).lower(x, 1).as_text()
    assert "dynamic_slice" in text and "gather" not in text
    for i, j in [(0, 0), (2, 3), (-1, -2)]:
        xn = np.asarray(x)
        _close(f(x, i, j), xn[i, 1:3] + xn[:, j].sum())
    text = xjit.jit(lambda a, i: a[i]).lower(x, jnp.array([0, 2])).as_text()
    assert "gather" in text and "reduce" not in text


def test_out_of_bounds_gets_clamp_or_fill():
    x = jnp.arange(5.0)
    idx = jnp.array([1, 7, -9])
    _close(x[idx], [1.0, 4.0, 0.0])
    _close(x.at[idx].get(mode="fill", fill_value=-1.0), [1.0, -1.0, -1.0])
    _close(x.at[idx].get(mode="clip"), [1.0, 4.0, 0.0])
    assert np.isnan(np.asarray(x.at[idx].get(mode="fill"))[1])


# ---------------------------------------------------------------------- .at[]

AT_INDICES = [
    np.array([0, 2, 2, 1]),
    (slice(None), np.array([3, 1])),
    (slice(None), np.array([[0, 2], [1, 3]])),
    (slice(1, 3), 1),
    (np.array([0, 2]), slice(None)),
    (slice(None, None, 2), np.array([1, 0])),
    (Ellipsis, 1),
    1,
    (np.array([[0, 1], [2, 2]]), np.array([1, 3])),
    (np.array([True, False, True]),),
]


@needs_jax
@pytest.mark.parametrize("k", range(len(AT_INDICES)))
@pytest.mark.parametrize("op", ["set", "add", "subtract", "multiply", "divide", "power", "min",
                                "max"])
def test_at_updates_match_jax(k, op):
    x = (RNG.random((3, 4)) + 0.5).astype(np.float32)
    idx = AT_INDICES[k]
    shape = np.asarray(x[idx]).shape
    y = (RNG.random(shape) + 0.5).astype(np.float32)
    if op == "set" and k in (0, 8):  # duplicate positions: JAX leaves the winner open
        idx = (np.array([0, 2, 1]),) if k == 0 else (np.array([[0, 1], [2, 0]]),
                                                     np.array([1, 3]))
        shape = np.asarray(x[idx]).shape
        y = (RNG.random(shape) + 0.5).astype(np.float32)
    want = getattr(jjnp.asarray(x).at[idx], op)(y)
    got = getattr(jnp.asarray(x).at[idx], op)(y)
    _close(got, want, rtol=1e-5)
    jitted = xjit.jit(lambda a, b: getattr(a.at[idx], op)(b))(x, y)
    _close(jitted, want, rtol=1e-5)


@needs_jax
@pytest.mark.parametrize("mode", [None, "clip", "drop", "fill", "promise_in_bounds"])
def test_at_modes_match_jax(mode):
    x = np.arange(6, dtype=np.float32)
    idx = np.array([1, 8, -2, -9])
    want = jjnp.asarray(x).at[idx].add(10.0, mode=mode)
    got = jnp.asarray(x).at[idx].add(10.0, mode=mode)
    if mode == "promise_in_bounds" or mode is None:
        idx_ok = np.array([1, -2])
        want = jjnp.asarray(x).at[idx_ok].add(10.0, mode=mode)
        got = jnp.asarray(x).at[idx_ok].add(10.0, mode=mode)
    _close(got, want)
    want = jjnp.asarray(x).at[idx].get(mode=mode, fill_value=-5.0) if mode in ("fill", "drop") \
        else jjnp.asarray(x).at[idx].get(mode=mode)
    got = jnp.asarray(x).at[idx].get(mode=mode, fill_value=-5.0) if mode in ("fill", "drop") \
        else jnp.asarray(x).at[idx].get(mode=mode)
    _close(got, want)


def test_at_apply_and_ints():
    x = jnp.arange(6)
    np.testing.assert_array_equal(np.asarray(x.at[jnp.array([1, 1, 4])].apply(lambda v: v * 3)),
                                  [0, 9, 2, 3, 12, 5])
    np.testing.assert_array_equal(np.asarray(x.at[2:4].set(7)), [0, 1, 7, 7, 4, 5])
    np.testing.assert_array_equal(np.asarray(x.at[10].set(7)), np.arange(6))  # dropped
    assert x.at[1].add(1).dtype == x.dtype


def test_at_bad_inputs():
    x = jnp.zeros((3, 4))
    with pytest.raises(ValueError, match="shape mismatch"):
        x.at[0].set(jnp.ones(3))
    with pytest.raises(ValueError, match="shape mismatch"):
        x.at[jnp.array([0, 1])].add(jnp.ones((3, 4)))
    with pytest.raises(IndexError):
        x.at[0, 0, 0].set(1.0)
    with pytest.raises(TypeError):
        x.at["a"].set(1.0)


# ------------------------------------------------------- take and along_axis

@needs_jax
@pytest.mark.parametrize("mode", [None, "clip", "wrap", "fill"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_take_matches_jax(mode, axis):
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    idx = np.array([[0, 3], [-1, 7]])
    _close(jnp.take(x, idx, axis=axis, mode=mode), jjnp.take(x, idx, axis=axis, mode=mode))
    _close(jnp.take(x, 2, axis=axis, mode=mode), jjnp.take(x, 2, axis=axis, mode=mode))


def test_take_fill_bounds_are_those_of_the_raw_indices(default_platform):
    # -n <= i < n is in bounds (negative i counts from the end); the mask is
    # computed from the raw indices so the cpu gather absorbs the wrap.
    x = np.arange(5, dtype=np.float32)
    idx = np.array([-6, -5, -1, 0, 4, 5], np.int32)
    got = np.asarray(xjit.jit(jnp.take)(x, idx))
    clip = np.asarray(xjit.jit(lambda a, i: jnp.take(a, i, mode="clip"))(x, idx))
    np.testing.assert_array_equal(got, [np.nan, 0, 4, 0, 4, np.nan])
    np.testing.assert_array_equal(clip, [0, 0, 0, 0, 4, 4])


def test_take_bad_inputs():
    with pytest.raises(NotImplementedError, match="raise"):
        jnp.take(jnp.arange(3), jnp.array([0]), mode="raise")
    with pytest.raises(ValueError, match="Invalid mode"):
        jnp.take(jnp.arange(3), jnp.array([0]), mode="bogus")
    with pytest.raises(TypeError, match="integers"):
        jnp.take(jnp.arange(3), jnp.array([0.5]))


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_take_and_put_along_axis_match_numpy(axis):
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    if axis is None:
        idx = np.array([0, 11, -1, 5])
    else:
        idx = np.argsort(x, axis=axis)
        if axis == 0:
            idx = idx[:2]
    np.testing.assert_array_equal(np.asarray(jnp.take_along_axis(x, idx, axis=axis)),
                                  np.take_along_axis(x, idx, axis=axis))
    jitted = xjit.jit(lambda a, i: jnp.take_along_axis(a, i, axis=axis))(x, idx)
    np.testing.assert_array_equal(np.asarray(jitted), np.take_along_axis(x, idx, axis=axis))
    want = x.copy()
    vals = np.float32(9.0)
    np.put_along_axis(want, idx, vals, axis=axis)
    got = jnp.put_along_axis(x, idx, vals, axis=axis, inplace=False)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_along_axis_bad_inputs():
    x = jnp.zeros((3, 4))
    with pytest.raises(ValueError, match="same number of dimensions"):
        jnp.take_along_axis(x, jnp.array([0]), axis=0)
    with pytest.raises(ValueError, match="inplace=False"):
        jnp.put_along_axis(x, jnp.zeros((3, 1), int), 1.0, axis=1)
    with pytest.raises(TypeError, match="integers"):
        jnp.take_along_axis(x, jnp.zeros((3, 1)), axis=1)


# ------------------------------------------------------ transforms (C++ rules)

def test_grads_of_indexing_ops():
    x = RNG.standard_normal((5, 3))
    idx = jnp.array([4, 0, 4, 2])
    with _x64():
        x = jnp.asarray(x)
        check_grads(lambda a: jnp.sin(a[idx]).sum(), (x,), order=2, modes=("fwd", "rev"))
        check_grads(lambda a: (jnp.asarray(a).at[idx].add(a[:4] * 2.0) ** 2).sum(), (x,),
                    order=1, modes=("fwd", "rev"))
        check_grads(lambda a: (jnp.asarray(a).at[jnp.array([1, 3])].set(a[:2] * 3.0) ** 2)
                    .sum(), (x,), order=1, modes=("fwd", "rev"))
        check_grads(lambda a: lax.dynamic_slice(a, (jnp.int32(1), jnp.int32(1)), (2, 2)).sum()
                    ** 2, (x,), order=2, modes=("fwd", "rev"))
        check_grads(lambda a: (lax.dynamic_update_slice(a, a[:2, :2] * 2.0, (3, 1)) ** 2).sum(),
                    (x,), order=1, modes=("fwd", "rev"))
        check_grads(lambda a: jnp.take_along_axis(a, jnp.argsort(a, axis=0), axis=0)[0].sum(),
                    (x,), order=1, modes=("fwd", "rev"))


def test_grad_of_duplicate_set_follows_one_winner():
    x = jnp.zeros(3)
    u = jnp.array([1.0, 2.0, 3.0])
    g = xjit.grad(lambda v: x.at[jnp.array([1, 1, 0])].set(v).sum())(u)
    assert float(np.asarray(g).sum()) == 2.0  # one of the duplicates wins, plus index 0


def test_sort_jvp_matches_finite_differences():
    x = RNG.standard_normal((4, 6))
    with _x64():
        x = jnp.asarray(x)
        check_grads(lambda a: jnp.sort(a, axis=1) * jnp.arange(6.0), (x,), order=2,
                    modes=("fwd", "rev"))
        check_grads(lambda a: lax.sort((a, -a), num_keys=1)[1], (x,), order=1,
                    modes=("fwd", "rev"))


@needs_jax
def test_vmap_of_indexing_ops_matches_jax():
    x = RNG.standard_normal((4, 5, 3)).astype(np.float32)
    idx = np.array([[1, 4], [0, 0], [3, 2], [4, 1]])
    i = np.array([0, 3, -1, 2], np.int32)
    cases = [
        (lambda np_, a, j: np_.asarray(a)[j], (0, 0)),
        (lambda np_, a, j: np_.asarray(a)[j], (None, 0)),
        (lambda np_, a, j: np_.asarray(a)[j], (0, None)),
        (lambda np_, a, j: np_.asarray(a).at[j].add(1.0), (0, 0)),
        (lambda np_, a, j: np_.asarray(a).at[j].set(2.0), (0, None)),
        (lambda np_, a, j: np_.asarray(a).at[j].add(np_.asarray(a)[0] * 0 + 1.0), (None, 0)),
    ]
    for f, axes in cases:
        a_in = x if axes[0] == 0 else x[0]
        j_in = idx if axes[1] == 0 else idx[0]
        _close(xjit.vmap(lambda a, j: f(jnp, a, j), axes)(a_in, j_in),
               jax.vmap(lambda a, j: f(jjnp, a, j), axes)(a_in, j_in), rtol=1e-6)
    ds = lambda a, k: lax.dynamic_slice(a, (k, 0), (2, 3))  # noqa: E731
    dus = lambda a, k: lax.dynamic_update_slice(a, jnp.ones((2, 3)), (k, 1))  # noqa: E731
    for f, jf in ((ds, lambda a, k: jax.lax.dynamic_slice(a, (k, 0), (2, 3))),
                  (dus, lambda a, k: jax.lax.dynamic_update_slice(a, jjnp.ones((2, 3)),
                                                                  (k, 1)))):
        for axes in ((0, 0), (None, 0), (0, None)):
            a_in = x if axes[0] == 0 else x[0]
            k_in = i if axes[1] == 0 else i[0]
            _close(xjit.vmap(f, axes)(a_in, k_in), jax.vmap(jf, axes)(a_in, k_in))


@needs_jax
def test_jacobians_and_hessians_match_jax():
    x = RNG.random((5, 3)).astype(np.float32)
    idx = np.array([4, 0, 4])
    cases = [
        (lambda a: jnp.asarray(a)[idx] * 2, lambda a: a[idx] * 2),
        (lambda a: jnp.asarray(a).at[idx].set(a[:3]), lambda a: a.at[idx].set(a[:3])),
        (lambda a: jnp.sort(a, axis=0), lambda a: jjnp.sort(a, axis=0)),
        (lambda a: lax.dynamic_slice(a, (2, 1), (2, 2)),
         lambda a: jax.lax.dynamic_slice(a, (2, 1), (2, 2))),
        (lambda a: lax.dynamic_update_slice(a, a[:2, :2] * 3, (4, 0)),
         lambda a: jax.lax.dynamic_update_slice(a, a[:2, :2] * 3, (4, 0))),
        (lambda a: jnp.take_along_axis(a, jnp.argsort(a, axis=1), axis=1),
         lambda a: jjnp.take_along_axis(a, jjnp.argsort(a, axis=1), axis=1)),
    ]
    for fx, fj in cases:
        for tx, tj in ((xjit.jacrev, jax.jacrev), (xjit.jacfwd, jax.jacfwd)):
            _close(tx(fx)(x), tj(fj)(x), rtol=1e-5, atol=1e-6)
    h = xjit.hessian(lambda a: (jnp.sort(a.ravel()) ** 3).sum())(x)
    _close(h, jax.hessian(lambda a: (jjnp.sort(a.ravel()) ** 3).sum())(x), rtol=1e-4)
    g = xjit.vmap(xjit.grad(lambda a, i: a[i].sum()), (0, 0))(
        RNG.random((4, 5)).astype(np.float32), np.array([[1, 1], [0, 2], [4, 4], [3, 0]]))
    _close(g, [[0, 2, 0, 0, 0], [1, 0, 1, 0, 0], [0, 0, 0, 0, 2], [1, 0, 0, 1, 0]])


def test_scatter_without_a_rule_says_so():
    x = jnp.ones(4)
    with pytest.raises(NotImplementedError, match="unique_indices"):
        xjit.grad(lambda a: a.at[jnp.array([1, 1])].multiply(a[:2]).sum())(x)
    with pytest.raises(NotImplementedError, match="scatter"):
        xjit.grad(lambda a: lax.scatter_apply(a, jnp.array([[1]]), jnp.sin,
                                              lax.ScatterDimensionNumbers((), (0,), (0,)),
                                              update_shape=(1,)).sum())(x)


@needs_jax
@pytest.mark.parametrize("op", ["min", "max"])
def test_scatter_min_max_grads_match_jax(op):
    x = np.array([1.0, 5.0, 3.0, 3.0, 0.0], np.float32)
    u = np.array([4.0, 5.0, 2.0, 3.0], np.float32)
    idx = np.array([0, 1, 3, 3])
    f = lambda np_, a, b: (getattr(np_.asarray(a).at[idx], op)(b) * np.arange(5.0)).sum()  # noqa
    for argnums in (0, 1):
        _close(xjit.grad(lambda a, b: f(jnp, a, b), argnums)(x, u),
               jax.grad(lambda a, b: f(jjnp, a, b), argnums)(x, u), rtol=1e-6)


def test_scatter_mul_grads_with_unique_indices():
    x = RNG.standard_normal(5) + 2.0
    with _x64():
        check_grads(lambda a: jnp.asarray(a).at[jnp.array([3, 0])].multiply(
            a[1:3] * 2.0, unique_indices=True), (jnp.asarray(x),), order=2,
            modes=("fwd", "rev"))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32,
                                   np.float16, jnp.bfloat16, np.float32, np.complex64])
def test_every_dtype_on_cpu_and_reference(dtype):
    results = {}
    for platform in ("cpu", "reference"):
        xjit.config.update("jax_platform_name", platform)
        try:
            rng = np.random.default_rng(5)
            x = (rng.standard_normal((6, 4)) * 5).astype(dtype)
            idx = np.array([5, 0, 3, 3, -1])
            a = jnp.asarray(x)
            got = [np.asarray(a[idx]), np.asarray(a.at[idx].set(a[0])),
                   np.asarray(lax.dynamic_slice(a, (jnp.int32(4), jnp.int32(-7)), (2, 2))),
                   np.asarray(lax.dynamic_update_slice(a, a[:1, :2], (jnp.int32(9), 1)))]
            np.testing.assert_array_equal(got[0], x[idx])
            np.testing.assert_array_equal(got[2], x[4:6, 0:2])
            if np.dtype(dtype) != np.bool_:
                got.append(np.asarray(a.at[idx].add(a[idx])))
                want = x.copy()
                np.add.at(want, idx, x[idx])
                np.testing.assert_allclose(got[-1].astype(np.complex128),
                                           want.astype(np.complex128), rtol=1e-2)
                got.append(np.asarray(a.at[idx].max(a[idx])))
            results[platform] = got
        finally:
            xjit.config.update("jax_platform_name", None)
    for u, v in zip(results["cpu"], results["reference"]):
        np.testing.assert_array_equal(u, v)


def test_empty_operands_and_indices():
    assert jnp.zeros((0, 3))[jnp.array([], dtype=jnp.int32)].shape == (0, 3)
    assert jnp.zeros((4, 3))[jnp.zeros((0,), jnp.int32)].shape == (0, 3)
    np.testing.assert_array_equal(
        np.asarray(jnp.zeros((4, 3)).at[jnp.zeros((0,), jnp.int32)].add(1.0)), np.zeros((4, 3)))
    assert float(lax.dynamic_slice(np.float32(3), (), ())) == 3.0
    with pytest.raises(IndexError):
        jnp.zeros((0, 3))[jnp.array([0])]


@pytest.mark.parametrize("method", ["set", "add", "mul", "min", "max"])
@pytest.mark.parametrize("shape", [(40, 30), (6, 7, 8)])
def test_point_scatters_skip_points_outside(method, shape):
    """x.at[r, c].<method>(u) with an integer array per dim: the passes
    scatter into the flattened array (passes/point_linearization.cc), a
    point with any index outside its dim skipped, negative ones counted from
    the end; duplicates combine in order. Against the reference backend and
    numpy's ufunc.at."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype(np.float32)
    idx = tuple(rng.integers(-n - 5, n + 5, 3000).astype(np.int32) for n in shape)
    u = rng.standard_normal(3000).astype(np.float32)
    f = lambda a, v, *i: getattr(a.at[i], method)(v)  # noqa: E731
    got = np.asarray(xjit.jit(f)(x, u, *idx))
    np.testing.assert_array_equal(got, np.asarray(xjit.jit(f, backend="reference")(x, u, *idx)))
    inside = np.ones(3000, bool)
    for i, n in zip(idx, shape):
        inside &= (i >= -n) & (i < n)
    kept = tuple(i[inside] for i in idx)
    want = x.copy()
    if method == "set":
        want[kept] = u[inside]  # duplicates: numpy also keeps the last
    else:
        ufunc = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum}[method]
        ufunc.at(want, kept, u[inside])
    if method in ("add", "mul"):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n,size", [(100000, 1000), (300000, 77), (70000, 4000)])
def test_integer_scatters_with_many_duplicates(n, size):
    """Many integer updates into a small result (bincount, histograms): each
    thread combines its share into a copy of its own, then the copies are
    combined; integers give numpy's ufunc.at results whatever the order."""
    rng = np.random.default_rng(n)
    i = rng.integers(-5, size + 5, n).astype(np.int32)
    got = np.asarray(xjit.jit(lambda i: jnp.bincount(i, length=size))(i))
    np.testing.assert_array_equal(got, np.bincount(np.clip(i, 0, None), minlength=size)[:size])
    inside = np.clip(i, 0, size - 1)
    w = rng.integers(-3, 4, n).astype(np.int32)
    for op, ufunc in (("add", np.add), ("max", np.maximum), ("min", np.minimum),
                      ("multiply", np.multiply)):
        x = np.ones(size, np.int32)
        got = xjit.jit(lambda x, j, v: getattr(x.at[j], op)(v))(x, inside, w)
        want = x.copy()
        ufunc.at(want, inside, w)
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=op)
    rows = rng.integers(0, 50, n).astype(np.int32)  # rows of 4 int64 elements
    u = rng.integers(-9, 9, (n, 4)).astype(np.int64)
    with xjit.enable_x64():
        got = xjit.jit(lambda x, j, v: x.at[j].add(v))(np.zeros((50, 4), np.int64), rows, u)
    want = np.zeros((50, 4), np.int64)
    np.add.at(want, rows, u)
    np.testing.assert_array_equal(np.asarray(got), want)
