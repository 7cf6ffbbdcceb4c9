"""Large numpy arguments of a jit call are read in place (no copy), which
must be invisible to the user: the call waits for its results, so changing
or freeing the array afterwards cannot change them, and donation never takes
numpy's memory."""
import gc

import numpy as np

import xjit
import xjit.numpy as jnp

N = 1 << 20   # 4 MiB of float32: large enough to be aliased and to run asynchronously


def heavy(a):
    for _ in range(8):
        a = jnp.tanh(a * 1.01 + 0.1)
    return a, jnp.sum(a)


def test_changing_the_argument_after_the_call_does_not_change_results():
    f = xjit.jit(heavy)
    x = np.linspace(-1, 1, N, dtype=np.float32)
    want = [np.asarray(v) for v in f(x.copy())]
    for _ in range(3):
        y = f(x)
        x2 = x.copy()
        x[:] = 7.0           # right after the call returns
        np.testing.assert_array_equal(np.asarray(y[0]), want[0])
        np.testing.assert_array_equal(np.asarray(y[1]), want[1])
        x[:] = x2


def test_freeing_the_argument_after_the_call():
    f = xjit.jit(lambda a: a * 2.0)
    x = np.arange(N, dtype=np.float32)
    y = f(x)
    del x
    gc.collect()
    np.testing.assert_array_equal(np.asarray(y)[:4], [0, 2, 4, 6])
    identity = xjit.jit(lambda a: a)
    z = np.full(N, 3.0, np.float32)
    w = identity(z)
    z[:] = 0
    assert float(np.asarray(w)[-1]) == 3.0


def test_donated_numpy_argument_keeps_its_memory():
    g = xjit.jit(lambda a: a + 1.0, donate_argnums=0)
    x = np.zeros(N, np.float32)
    y = g(x)
    np.testing.assert_array_equal(x[:3], [0, 0, 0])    # numpy's array is untouched
    np.testing.assert_array_equal(np.asarray(y)[:3], [1, 1, 1])


def test_unaligned_strided_and_other_dtypes_still_work():
    f = xjit.jit(lambda a: a * 2)
    raw = np.zeros(N + 1, np.float32)
    unaligned = raw[1:]   # 4-byte aligned only: copied
    np.testing.assert_array_equal(np.asarray(f(unaligned))[:2], [0, 0])
    strided = np.arange(2 * N, dtype=np.float32)[::2]
    np.testing.assert_array_equal(np.asarray(f(strided))[:3], [0, 4, 8])
    doubles = np.ones(N, np.float64)          # canonicalised to float32: a converting copy
    out = f(doubles)
    assert out.dtype == np.float32 and float(np.asarray(out)[0]) == 2.0
    big_endian = np.ones(N, ">f4")
    np.testing.assert_array_equal(np.asarray(f(big_endian))[:2], [2, 2])
