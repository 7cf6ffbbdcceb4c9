"""numpy functions beyond the core: element-wise extras, comparisons, NaN
reductions and average, polynomials, grids and index sets, array edits.
Each against numpy, eagerly and under jit, with its bad inputs."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4)).astype(np.float32)
Y = rng.standard_normal((3, 4)).astype(np.float32)
SPECIAL = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 1e-30, 3e38], np.float32)


def check(fn, np_fn, *args, rtol=2e-6, atol=1e-6, jit=True, **kw):
    want = np_fn(*args, **kw)
    got = fn(*args, **kw)
    for g, w in zip(xjit.tree_util.tree_leaves(got), xjit.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)
    if jit:
        got = xjit.jit(lambda *a: fn(*a, **kw))(*args)
        for g, w in zip(xjit.tree_util.tree_leaves(got), xjit.tree_util.tree_leaves(want)):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", ["arcsinh", "arctanh", "deg2rad", "rad2deg", "degrees",
                                  "radians", "fabs", "sinc"])
def test_unary_math(name):
    x = np.concatenate([X.ravel() * 0.9 / np.abs(X).max(), SPECIAL])
    check(getattr(jnp, name), getattr(np, name), x, rtol=5e-6, atol=1e-6)


def test_arccosh_and_aliases():
    x = np.concatenate([1 + np.abs(X.ravel()) * 3, [1.0, np.inf, np.nan, 0.5]]).astype(np.float32)
    check(jnp.arccosh, np.arccosh, x, rtol=5e-6)
    assert jnp.asinh is jnp.arcsinh and jnp.acosh is jnp.arccosh and jnp.atanh is jnp.arctanh
    assert jnp.arcsinh(1).dtype == np.float32


@pytest.mark.parametrize("name", ["copysign", "heaviside", "logaddexp", "logaddexp2"])
def test_binary_math(name):
    a = np.concatenate([X.ravel(), SPECIAL, [np.inf, -np.inf, 0.0]]).astype(np.float32)
    b = np.concatenate([Y.ravel(), SPECIAL[::-1], [np.inf, -np.inf, -0.0]]).astype(np.float32)
    check(getattr(jnp, name), getattr(np, name), a, b, rtol=5e-6)


def test_ldexp_frexp_modf():
    x = np.concatenate([X.ravel() * 1e3, SPECIAL]).astype(np.float32)
    e = rng.integers(-20, 20, x.shape).astype(np.int32)
    check(jnp.ldexp, np.ldexp, X.ravel(), e[:12])
    m, ex = jnp.frexp(x)
    wm, wex = np.frexp(x)
    np.testing.assert_array_equal(np.asarray(m), wm)
    np.testing.assert_array_equal(np.asarray(ex)[np.isfinite(x)], wex[np.isfinite(x)])
    check(jnp.modf, np.modf, x)
    with pytest.raises(TypeError, match="exponent must be an integer"):
        jnp.ldexp(1.0, 2.5)


def test_nan_to_num_gcd_lcm():
    check(jnp.nan_to_num, np.nan_to_num, SPECIAL)
    check(lambda x: jnp.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0),
          lambda x: np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0), SPECIAL)
    a = rng.integers(-60, 60, 20).astype(np.int32)
    b = rng.integers(-60, 60, 20).astype(np.int32)
    a[:2], b[:2] = 0, [0, 7]
    check(jnp.gcd, np.gcd, a, b)
    check(jnp.lcm, np.lcm, a, b)
    with pytest.raises(ValueError, match="must be integers"):
        jnp.gcd(1.0, 2.0)


def test_comparisons():
    a = np.array([1.0, np.nan, np.inf, -np.inf, 1e-9, 2.0], np.float32)
    b = np.array([1.0 + 1e-7, np.nan, np.inf, np.inf, 0.0, 2.1], np.float32)
    for eq in (False, True):
        check(jnp.isclose, np.isclose, a, b, equal_nan=eq)
        check(jnp.allclose, np.allclose, a[:1], b[:1], equal_nan=eq)
        check(jnp.array_equal, np.array_equal, a, a.copy(), equal_nan=eq)
    assert not bool(jnp.array_equal(np.ones(3), np.ones(4)))
    assert bool(jnp.array_equiv(np.ones(3), np.ones((2, 3))))
    assert not bool(jnp.array_equiv(np.ones(3), np.ones((2, 4))))
    c = np.array([1 + 0j, 2 + 1j])
    np.testing.assert_array_equal(np.asarray(jnp.iscomplex(c)), np.iscomplex(c))
    np.testing.assert_array_equal(np.asarray(jnp.isreal(c)), np.isreal(c))
    assert jnp.iscomplexobj(c) and jnp.isrealobj(a) and not jnp.iscomplexobj(a)


@pytest.mark.parametrize("name", ["nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar",
                                  "nanstd", "nanargmax", "nanargmin"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nan_reductions(name, axis):
    x = X.copy()
    x[0, 1] = x[2, 3] = np.nan
    check(getattr(jnp, name), getattr(np, name), x, rtol=1e-5, axis=axis)
    if name not in ("nanargmax", "nanargmin"):
        check(getattr(jnp, name), getattr(np, name), x, rtol=1e-5, axis=axis, keepdims=True)


def test_nan_reductions_of_all_nan_slices():
    x = np.full((2, 3), np.nan, np.float32)
    x[1, 0] = 1.0
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = np.nanmax(x, axis=1)
    np.testing.assert_array_equal(np.asarray(jnp.nanmax(x, axis=1)), want)
    np.testing.assert_array_equal(np.asarray(jnp.nanargmax(x, axis=1)), [-1, 0])
    assert np.isnan(np.asarray(jnp.nanmean(x, axis=1))[0])
    np.testing.assert_array_equal(np.asarray(jnp.nansum(np.arange(4))), 6)


def test_average():
    check(jnp.average, np.average, X, rtol=1e-5)
    check(jnp.average, np.average, X, rtol=1e-5, axis=1, weights=np.arange(1.0, 5.0))
    check(jnp.average, np.average, X, rtol=1e-5, axis=0, weights=np.abs(Y) + 0.1,
          returned=True)
    with pytest.raises(ValueError, match="Axis must be specified"):
        jnp.average(X, weights=np.ones(4))


def test_polynomials():
    p = np.array([2.0, -1.0, 0.5, 3.0], np.float32)
    q = np.array([1.0, 4.0], np.float32)
    check(jnp.polyval, np.polyval, p, X, rtol=1e-5)
    check(jnp.polyadd, np.polyadd, p, q)
    check(jnp.polysub, np.polysub, q, p)
    check(jnp.polymul, np.polymul, p, q)
    check(jnp.polyder, np.polyder, p, m=2)
    check(jnp.polyint, np.polyint, p, rtol=1e-5, m=2, k=[1.0, 2.0])
    check(jnp.vander, np.vander, q, N=3)
    check(jnp.vander, np.vander, p, increasing=True)
    with pytest.raises(ValueError, match="1-d"):
        jnp.polyval(np.ones((2, 2)), 1.0)


def test_grids_and_index_sets():
    a, b = np.arange(3.0), np.arange(4.0)
    for indexing in ("xy", "ij"):
        for sparse in (False, True):
            check(jnp.meshgrid, np.meshgrid, a, b, a, indexing=indexing, sparse=sparse,
                  jit=False)
    check(jnp.meshgrid, np.meshgrid, a, b)
    np.testing.assert_array_equal(np.asarray(jnp.indices((2, 3))), np.indices((2, 3)))
    for g, w in zip(jnp.indices((2, 3), sparse=True), np.indices((2, 3), sparse=True)):
        np.testing.assert_array_equal(np.asarray(g), w)
    for g, w in zip(jnp.ix_(np.array([0, 2]), np.array([1, 3, 4])),
                    np.ix_(np.array([0, 2]), np.array([1, 3, 4]))):
        np.testing.assert_array_equal(np.asarray(g), w)
    for k in (-1, 0, 2):
        check(jnp.tril_indices, np.tril_indices, 4, k=k, m=5, jit=False)
        check(jnp.triu_indices, np.triu_indices, 4, k=k, jit=False)
    m = np.zeros((3, 5))
    check(jnp.tril_indices_from, np.tril_indices_from, m, k=1, jit=False)
    check(jnp.triu_indices_from, np.triu_indices_from, m, jit=False)
    check(jnp.diag_indices, np.diag_indices, 3, ndim=3, jit=False)
    got = jnp.fill_diagonal(np.zeros((3, 4)), np.array([1.0, 2.0]), inplace=False)
    want = np.zeros((3, 4))
    np.fill_diagonal(want, [1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(NotImplementedError, match="immutable"):
        jnp.fill_diagonal(np.zeros((2, 2)), 1.0)
    with pytest.raises(ValueError, match="equal length"):
        jnp.diag_indices_from(np.zeros((2, 3)))


def test_array_edits():
    v = np.arange(10.0, dtype=np.float32)
    check(jnp.append, np.append, X, Y)
    check(jnp.append, np.append, X, Y, axis=1)
    check(jnp.delete, np.delete, v, [1, 3, -1], jit=False)
    check(jnp.delete, np.delete, X, 1, axis=1, jit=False)
    check(jnp.delete, np.delete, v, slice(2, 8, 2), jit=False)
    for obj, vals in ((3, 99.0), ([1, 1, 4], np.array([7.0, 8.0, 9.0])),
                      (-1, np.array([5.0, 6.0])), ([0], 4.0)):
        check(jnp.insert, np.insert, v, obj, vals, jit=False)
    check(jnp.insert, np.insert, X, 1, np.array([1.0, 2.0, 3.0]), axis=1, jit=False)
    check(jnp.insert, np.insert, X, [0, 2], 9.0, axis=0, jit=False)
    for k in range(-1, 5):
        check(jnp.rot90, np.rot90, X, k=k)
    check(jnp.rot90, np.rot90, np.ones((2, 3, 4)) * np.arange(4), axes=(2, 0))
    check(jnp.kron, np.kron, X[:2, :2], Y)
    check(jnp.kron, np.kron, v[:3], X)
    a3, b3 = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    check(jnp.cross, np.cross, a3, b3, rtol=1e-5)
    check(jnp.cross, np.cross, a3[:, :2], b3, rtol=1e-5)
    check(jnp.cross, np.cross, a3[:, :2], b3[:, :2], rtol=1e-5)
    check(jnp.diagflat, np.diagflat, X[:2, :2], k=1)
    for split in ("hsplit", "vsplit"):
        check(getattr(jnp, split), getattr(np, split), np.ones((4, 4)), indices_or_sections=2)
    check(jnp.dsplit, np.dsplit, np.ones((2, 2, 4)), indices_or_sections=[1, 3])
    check(jnp.rollaxis, np.rollaxis, np.ones((2, 3, 4)), axis=2, start=0)
    check(jnp.rollaxis, np.rollaxis, np.ones((2, 3, 4)), axis=0, start=3)
    check(jnp.trapezoid, np.trapezoid, X, rtol=1e-5)
    check(jnp.trapezoid, np.trapezoid, X, x=np.array([0.0, 1.0, 3.0, 6.0]), rtol=1e-5)
    check(jnp.ediff1d, np.ediff1d, X, to_begin=np.array([0.0]), to_end=np.array([9.0, 8.0]))
    check(jnp.cov, np.cov, X, rtol=1e-5)
    check(jnp.cov, np.cov, X, Y, rowvar=False, rtol=1e-5)
    check(jnp.cov, np.cov, X, fweights=np.array([1, 2, 1, 3]), aweights=np.arange(1.0, 5.0),
          rtol=1e-5)
    check(jnp.corrcoef, np.corrcoef, X, rtol=1e-5)
    check(jnp.isin, np.isin, np.arange(6), np.array([1, 4, 9]))
    check(jnp.isin, np.isin, np.arange(6), np.array([1, 4, 9]), invert=True)
    np.testing.assert_array_equal(np.asarray(jnp.copy(X)), X)
    with pytest.raises(IndexError):
        jnp.delete(v, 10)
    with pytest.raises(ValueError, match="Dimension must be either 2 or 3"):
        jnp.cross(np.ones(4), np.ones(4))


def test_vectorize_and_apply_along_axis():
    f = jnp.vectorize(lambda a, b: a * 2 + b)
    check(f, np.vectorize(lambda a, b: a * 2 + b), X, Y[0], jit=True)
    g = jnp.vectorize(lambda v, w: jnp.dot(v, w), signature="(n),(n)->()")
    check(g, np.vectorize(np.dot, signature="(n),(n)->()"), X, Y, rtol=1e-5)
    h = jnp.vectorize(lambda m, s: m.sum() * s, excluded={1})
    np.testing.assert_allclose(np.asarray(h(X, 2.0)), X * 2.0, rtol=1e-6)
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        jnp.vectorize(lambda a: a, signature="(n)->")(X)
    with pytest.raises(ValueError, match="enough dimensions"):
        g(np.ones(3), np.ones(()))
    cube = rng.standard_normal((2, 3, 4)).astype(np.float32)
    for axis in (0, 1, 2, -1):
        check(jnp.apply_along_axis, np.apply_along_axis, lambda v: v * v.sum(), axis, cube,
              rtol=1e-5, jit=False)
    check(jnp.apply_along_axis, np.apply_along_axis, lambda v: v.max(), 1, cube, jit=False)


def test_ranges_and_windows():
    check(jnp.logspace, np.logspace, 0.0, 2.0, num=5, rtol=1e-5, jit=False)
    check(jnp.logspace, np.logspace, 1.0, 3.0, num=4, base=2.0, endpoint=False, rtol=1e-5,
          jit=False)
    check(jnp.geomspace, np.geomspace, 1.0, 1000.0, num=4, rtol=1e-5, jit=False)
    check(jnp.geomspace, np.geomspace, -2.0, -32.0, num=5, rtol=1e-5, jit=False)
    with pytest.raises(ValueError, match="cannot include zero"):
        jnp.geomspace(0.0, 1.0)
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        for m in (0, 1, 2, 7, 16):
            check(getattr(jnp, name), getattr(np, name), m, rtol=1e-5, atol=2e-7, jit=False)


def test_array_api_products_and_more():
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    check(jnp.vecdot, np.vecdot, a, a[0], rtol=1e-5)
    check(jnp.matvec, np.matvec, a, a[0, 0], rtol=1e-5)
    check(jnp.vecmat, np.vecmat, a[:, :, 0], a, rtol=1e-5)
    for g, w in zip(jnp.unstack(a, axis=1), np.moveaxis(a, 1, 0)):
        np.testing.assert_array_equal(np.asarray(g), w)
    check(jnp.compress, np.compress, np.array([True, False, True]), a, axis=1, jit=False)
    check(jnp.compress, np.compress, np.array([0, 1, 1, 0, 1]), np.arange(8), jit=False)
    got = xjit.jit(lambda c, x: jnp.compress(c, x, size=3, fill_value=-1))(
        np.array([True, False, True, False]), np.arange(4))
    np.testing.assert_array_equal(np.asarray(got), [0, 2, -1])
    idx = np.array([[0, 1, 2], [2, 1, 0]])
    choices = [np.full((2, 3), 10), np.arange(3), np.full((2, 3), -5)]
    check(jnp.choose, np.choose, idx, choices, jit=False)
    check(jnp.choose, np.choose, idx + 2, choices, mode="wrap", jit=False)
    check(jnp.choose, np.choose, idx - 1, choices, mode="clip", jit=False)
    with pytest.raises(ValueError, match="invalid entry"):
        jnp.choose(idx + 1, choices)
    check(jnp.resize, np.resize, X, (5, 3), jit=False)
    check(jnp.resize, np.resize, X, 7, jit=False)
    phase = np.cumsum(rng.uniform(-3, 3, (2, 12))).reshape(2, 12).astype(np.float32)
    check(jnp.unwrap, np.unwrap, np.angle(np.exp(1j * phase)).astype(np.float32), rtol=1e-5,
          atol=1e-5)
    check(jnp.unwrap, np.unwrap, phase, rtol=1e-5, atol=1e-5, axis=0, period=4.0)
    b = [[np.ones((2, 2)), np.zeros((2, 3))], [np.full((1, 2), 2.0), np.full((1, 3), 3.0)]]
    np.testing.assert_array_equal(np.asarray(jnp.block(b)), np.block(b))
    np.testing.assert_array_equal(np.asarray(jnp.block([np.ones(2), 3.0])), np.block([np.ones(2), 3.0]))


def test_set_functions_and_unique_family():
    a = np.array([5, 1, 3, 3, 7, 1, 9], np.int32)
    b = np.array([3, 4, 5, 5, 10], np.int32)
    for name in ("union1d", "setdiff1d", "intersect1d", "setxor1d"):
        check(getattr(jnp, name), getattr(np, name), a, b, jit=False)
        want = getattr(np, name)(a, b)
        got = xjit.jit(lambda x, y: getattr(jnp, name)(x, y, size=len(want) + 2,
                                                        fill_value=-1))(a, b)
        np.testing.assert_array_equal(np.asarray(got), np.concatenate([want, [-1, -1]]))
        with pytest.raises(xjit.errors.ConcretizationTypeError):
            xjit.jit(getattr(jnp, name))(a, b)
    for g, w in zip(jnp.intersect1d(a, b, return_indices=True),
                    np.intersect1d(a, b, return_indices=True)):
        np.testing.assert_array_equal(np.asarray(g), w)
    x = np.array([[2, 1], [2, 3]], np.int32)
    np.testing.assert_array_equal(np.asarray(jnp.unique_values(x)), [1, 2, 3])
    c = jnp.unique_counts(x)
    np.testing.assert_array_equal(np.asarray(c.counts), [1, 2, 1])
    inv = jnp.unique_inverse(x)
    np.testing.assert_array_equal(np.asarray(inv.values)[np.asarray(inv.inverse_indices)], x)
    al = jnp.unique_all(x)
    np.testing.assert_array_equal(np.asarray(al.indices), [1, 0, 3])


def test_host_io_and_printing(tmp_path):
    buf = np.arange(4, dtype=np.float32).tobytes()
    np.testing.assert_array_equal(np.asarray(jnp.frombuffer(buf, dtype=np.float32)), np.arange(4))
    np.testing.assert_array_equal(np.asarray(jnp.fromstring("1 2 3", dtype=np.int32, sep=" ")),
                                  [1, 2, 3])
    check(jnp.fromfunction, np.fromfunction, lambda i, j: i * 10 + j, (2, 3), jit=False)
    jnp.save(tmp_path / "x.npy", jnp.arange(3.0))
    np.testing.assert_array_equal(np.asarray(jnp.load(tmp_path / "x.npy")), [0.0, 1.0, 2.0])
    assert jnp.array_str(jnp.arange(3)) == np.array_str(np.arange(3))
    assert "array(" in jnp.array_repr(jnp.arange(3))
    with jnp.printoptions(precision=2):
        assert jnp.get_printoptions()["precision"] == 2
    assert jnp.iterable([1]) and not jnp.iterable(1)
    with pytest.raises(NotImplementedError, match="fromfile"):
        jnp.fromfile("x")
    assert jnp.bool is np.bool_ and jnp.ComplexWarning is np.exceptions.ComplexWarning


def test_float_bits_and_popcount():
    x = np.concatenate([X.ravel(), [0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 1e-45, -3e38]])
    x = x.astype(np.float32)
    for toward in (np.float32(np.inf), np.float32(-np.inf), np.float32(0.0), np.float32(1.0)):
        check(jnp.nextafter, np.nextafter, x, np.full_like(x, toward), rtol=0, atol=0)
    check(jnp.spacing, np.spacing, x[np.isfinite(x)], rtol=0, atol=0)
    i = np.array([0, 1, 7, -1, -128, 255], np.int32)
    check(jnp.bitwise_count, np.bitwise_count, i, rtol=0, atol=0)
    with pytest.raises(TypeError, match="integer"):
        jnp.bitwise_count(np.ones(2, np.float32))


def test_more_polynomials():
    check(jnp.poly, np.poly, np.array([1.0, -2.0, 3.0]), jit=False)
    m = np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)
    check(jnp.poly, np.poly, m, rtol=1e-5, jit=False)
    p = np.array([0.0, 1.0, -6.0, 11.0, -6.0, 0.0], np.float32)
    got = np.sort_complex(np.asarray(jnp.roots(p)))
    np.testing.assert_allclose(got, np.sort_complex(np.roots(p)), rtol=1e-4, atol=1e-4)
    u, v = np.array([1.0, -3.0, 0.0, 5.0]), np.array([2.0, 1.0])
    q, r = jnp.polydiv(u, v, trim_leading_zeros=True)
    wq, wr = np.polydiv(u, v)
    np.testing.assert_allclose(np.asarray(q), wq, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(r), wr, rtol=1e-5)
    assert jnp.polydiv(u, v)[1].shape == u.shape
    xs = np.linspace(-1, 1, 20)
    ys = 3 * xs ** 2 - xs + 0.5 + 0.01 * np.sin(7 * xs)
    check(jnp.polyfit, np.polyfit, xs, ys, deg=2, rtol=1e-3, atol=1e-4, jit=False)
    check(jnp.polyfit, np.polyfit, xs, np.stack([ys, -ys], 1), deg=1, rtol=1e-3, atol=1e-4,
          jit=False)


def test_put_place_extract_and_friends():
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    want = a.copy()
    np.put(want, [0, 4], [-1.0, -2.0])
    np.testing.assert_array_equal(np.asarray(jnp.put(a, np.array([0, 4]), np.array([-1.0, -2.0]),
                                                     inplace=False)), want)
    want = a.copy()
    np.put(want, [1, 8], [9.0], mode="wrap")
    np.testing.assert_array_equal(np.asarray(jnp.put(a, np.array([1, 8]), 9.0, mode="wrap",
                                                     inplace=False)), want)
    with pytest.raises(ValueError, match="immutable"):
        jnp.put(a, np.array([0]), 1.0)
    mask = a > 2
    want = a.copy()
    np.place(want, mask, [10.0, 20.0])
    np.testing.assert_array_equal(
        np.asarray(jnp.place(a, mask, np.array([10.0, 20.0]), inplace=False)), want)
    check(jnp.extract, np.extract, mask, a, jit=False)
    check(jnp.sort_complex, np.sort_complex, np.array([3, 1 + 2j, 1 - 1j, -2]), jit=False)
    check(jnp.trim_zeros, np.trim_zeros, np.array([0, 0, 1, 0, 2, 0]), jit=False)
    check(jnp.trim_zeros, np.trim_zeros, np.array([0, 0, 1, 0, 2, 0]), trim="f", jit=False)
    np.testing.assert_array_equal(np.asarray(jnp.apply_over_axes(jnp.sum, a, [0, 1])),
                                  np.apply_over_axes(np.sum, a, [0, 1]))


def test_index_grid_objects():
    np.testing.assert_array_equal(np.asarray(jnp.mgrid[0:2, 0:3]), np.mgrid[0:2, 0:3])
    for g, w in zip(jnp.ogrid[0:2, 0:3], np.ogrid[0:2, 0:3]):
        np.testing.assert_array_equal(np.asarray(g), w)
    np.testing.assert_allclose(np.asarray(jnp.mgrid[0:1:5j]), np.mgrid[0:1:5j], rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(jnp.r_[1:4, 7, 8]), np.r_[1:4, 7, 8])
    np.testing.assert_array_equal(np.asarray(jnp.c_[np.arange(3), np.arange(3)]),
                                  np.c_[np.arange(3), np.arange(3)])
    assert jnp.s_[1:3] == slice(1, 3) and jnp.index_exp[1:3] == (slice(1, 3),)


def test_i0_kaiser_and_bit_packing():
    x = np.array([0, 0.5, -3, 10, 19.9, 20.1, 35, 80], np.float32)
    check(jnp.i0, np.i0, x, rtol=2e-6)
    for m, beta in ((0, 1.0), (1, 5.0), (12, 8.6), (7, 0.0)):
        check(jnp.kaiser, np.kaiser, m, beta, rtol=2e-6, atol=1e-7, jit=False)
    a = rng.integers(0, 256, (3, 5)).astype(np.uint8)
    for axis in (None, 0, 1):
        for order in ("big", "little"):
            check(jnp.unpackbits, np.unpackbits, a, axis=axis, bitorder=order, jit=False)
            check(jnp.packbits, np.packbits, a > 100, axis=axis, bitorder=order, jit=False)
    for count in (-3, 50):
        check(jnp.unpackbits, np.unpackbits, a, count=count, jit=False)
    with pytest.raises(TypeError, match="unsigned byte"):
        jnp.unpackbits(np.ones(2, np.int32))


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "subtract",
                                  "logaddexp"])
def test_ufunc_methods(name):
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3) + 1
    ours, theirs = getattr(jnp, name), getattr(np, name)
    for axis in (0, 1):
        check(lambda x: ours.reduce(x, axis=axis), lambda x: theirs.reduce(x, axis=axis), a,
              rtol=1e-5)
        check(lambda x: ours.accumulate(x, axis=axis),
              lambda x: theirs.accumulate(x, axis=axis), a, rtol=1e-5)
    check(ours.outer, theirs.outer, a[0], a[1], rtol=1e-5)
    assert ours.nin == 2 and ours.nout == 1


def test_ufunc_at_and_identity():
    x = np.zeros(4, np.float32)
    idx = np.array([0, 1, 1, 3])
    for name in ("add", "subtract", "multiply", "maximum", "minimum"):
        want = x.copy() + 3
        getattr(np, name).at(want, idx, np.float32(2))
        got = getattr(jnp, name).at(x + 3, idx, 2.0, inplace=False)
        np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(NotImplementedError, match="inplace"):
        jnp.add.at(x, idx, 1.0)
    assert jnp.add.identity == 0 and jnp.multiply.identity == 1 and jnp.maximum.identity is None
    np.testing.assert_array_equal(np.asarray(jnp.add.reduce(np.ones((2, 3)), axis=None)), 6.0)
