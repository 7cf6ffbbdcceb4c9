"""xjit.Array and Tracer methods: operators, reductions, repr, conversions."""
import numpy as np
import pytest

import xjit
from xjit import lax

jnp = pytest.importorskip("xjit.numpy")


def arr(x):
    return xjit.device_put(np.asarray(x))


def test_repr_and_str():
    assert repr(arr(np.array([1.0, 2.0], np.float32))) == "Array([1., 2.], dtype=float32)"
    assert repr(xjit.device_put(1.0)) == "Array(1., dtype=float32, weak_type=True)"
    assert repr(arr(np.array([1, 2], np.int32))) == "Array([1, 2], dtype=int32)"
    assert repr(arr(np.zeros((0, 2), np.float32))) == "Array([], shape=(0, 2), dtype=float32)"
    assert str(arr(np.array([1.5, 2.0], np.float32))) == str(np.array([1.5, 2.0], np.float32))
    assert f"{arr(np.float32(1.25)):.1f}" == "1.2"


def test_scalar_conversions():
    a = arr(np.float32(2.5))
    assert float(a) == 2.5 and int(a) == 2 and bool(a) and complex(a) == 2.5
    assert a.item() == 2.5
    assert arr(np.array([[1, 2]], np.int32)).tolist() == [[1, 2]]
    assert [10, 20, 30][arr(np.int32(1))] == 20
    with pytest.raises(ValueError, match="ambiguous"):
        bool(arr(np.ones(2)))
    with pytest.raises(TypeError):
        hash(arr(1.0))


def test_len_iter_properties():
    a = arr(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert len(a) == 2 and a.shape == (2, 3) and a.ndim == 2 and a.size == 6
    rows = list(a)
    assert len(rows) == 2 and isinstance(rows[0], xjit.Array)
    np.testing.assert_array_equal(np.asarray(rows[1]), [3, 4, 5])
    np.testing.assert_array_equal(np.asarray(a.T), np.arange(6).reshape(2, 3).T)
    with pytest.raises(TypeError):
        len(arr(np.float32(1)))


def test_operators_delegate_to_numpy_semantics():
    x = arr(np.array([1.0, 2.0, 3.0], np.float32))
    np.testing.assert_allclose(np.asarray(x + 1), [2, 3, 4])
    np.testing.assert_allclose(np.asarray(1 - x), [0, -1, -2])
    np.testing.assert_allclose(np.asarray(x * x / 2), [0.5, 2, 4.5])
    np.testing.assert_allclose(np.asarray(-x), [-1, -2, -3])
    np.testing.assert_allclose(np.asarray(abs(-x)), [1, 2, 3])
    np.testing.assert_allclose(np.asarray(x ** 2), [1, 4, 9])
    assert np.asarray(x > 1.5).tolist() == [False, True, True]
    assert np.asarray(x == 2.0).tolist() == [False, True, False]
    m = arr(np.eye(3, dtype=np.float32))
    np.testing.assert_allclose(np.asarray(m @ x), [1, 2, 3])
    i = arr(np.array([5, 6], np.int32))
    assert np.asarray(i // 2).tolist() == [2, 3] and np.asarray(i % 4).tolist() == [1, 2]
    assert np.asarray(~i).tolist() == [-6, -7] and np.asarray(i & 4).tolist() == [4, 4]
    assert np.asarray(i << 1).tolist() == [10, 12]


def test_methods():
    x = arr(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert float(x.sum()) == 15.0
    np.testing.assert_allclose(np.asarray(x.sum(axis=0)), [3, 5, 7])
    np.testing.assert_allclose(np.asarray(x.mean(axis=1, keepdims=True)), [[1], [4]])
    assert float(x.max()) == 5.0 and float(x.min()) == 0.0
    assert int(x.argmax()) == 5 and int(x.argmin()) == 0
    assert x.reshape(3, 2).shape == (3, 2) and x.reshape((6,)).shape == (6,)
    assert x.transpose().shape == (3, 2) and x.transpose(1, 0).shape == (3, 2)
    assert x.astype(np.int32).dtype == np.int32
    assert x.flatten().shape == (6,) and x.ravel().shape == (6,)
    assert bool((x > 2).any()) and not bool((x > 2).all())
    np.testing.assert_array_equal(np.asarray(x[1]), [3, 4, 5])
    assert x.copy().tolist() == x.tolist()


def test_tracer_has_same_surface():
    seen = {}

    @xjit.jit
    def f(x):
        seen["repr"] = repr(x)
        seen["attrs"] = (x.shape, x.dtype, x.ndim, x.size, len(x))
        return (x * 2 + 1).sum(), x.T, [r for r in x], x.reshape(-1)

    s, t, rows, flat = f(np.ones((2, 3), np.float32))
    assert float(s) == 18.0 and t.shape == (3, 2) and len(rows) == 2 and flat.shape == (6,)
    assert seen["attrs"] == ((2, 3), np.dtype("float32"), 2, 6, 2)
    assert "float32[2,3]" in seen["repr"]


def test_lax_results_are_arrays_with_methods():
    y = lax.add(np.float32(1), 2.0)
    assert isinstance(y, xjit.Array)
    assert repr(y) == "Array(3., dtype=float32)"
