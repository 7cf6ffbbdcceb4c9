"""Helpers for the xjit.numpy tests: compare against numpy, eagerly and under jit."""
import contextlib

import ml_dtypes
import numpy as np

import xjit
from xjit._src.config import config

BF16 = np.dtype(ml_dtypes.bfloat16)

# Tolerances by dtype: low-precision floats are compared loosely.
_TOL = {np.dtype(np.float16): 2e-3, BF16: 2e-2, np.dtype(np.float32): 2e-6,
        np.dtype(np.complex64): 2e-6, np.dtype(np.float64): 1e-12,
        np.dtype(np.complex128): 1e-12}


def random_array(rng, shape, dtype, low=-5, high=5):
    """Random values of ``dtype`` (ints in [low, high), floats scaled likewise)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind == "u":
        return rng.integers(0, high, shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(low, high, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dtype)
    return rng.uniform(low, high, shape).astype(np.float32).astype(dtype)


def to_numpy(x):
    return np.asarray(x)


def assert_close(got, expected, dtype=None, rtol=None, atol=None):
    """``got`` (an xjit value) equals ``expected`` (numpy) in shape, dtype and value."""
    got_np = np.asarray(got)
    expected = np.asarray(expected)
    want_dtype = np.dtype(dtype) if dtype is not None else expected.dtype
    assert got_np.dtype == want_dtype, f"dtype {got_np.dtype} != {want_dtype}"
    assert got_np.shape == expected.shape, f"shape {got_np.shape} != {expected.shape}"
    if want_dtype.kind in "fcV" or want_dtype == BF16:
        tol = _TOL.get(want_dtype, 1e-6) if rtol is None else rtol
        np.testing.assert_allclose(got_np.astype(np.complex128 if want_dtype.kind == "c" else np.float64),
                                   expected.astype(np.complex128 if want_dtype.kind == "c" else np.float64),
                                   rtol=tol, atol=tol if atol is None else atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got_np, expected.astype(want_dtype))


def eager_and_jit(fn, *args, **kwargs):
    """``fn(*args)`` run eagerly and under xjit.jit (both results returned)."""
    eager = fn(*args, **kwargs)
    jitted = xjit.jit(lambda *a: fn(*a, **kwargs))(*args)
    return eager, jitted


def check(fn, np_fn, args, dtype=None, rtol=None, atol=None, **kwargs):
    """Compare ``fn(*args)`` eager and jitted against ``np_fn`` on the numpy inputs.

    ``args`` are numpy arrays/scalars; xjit receives them as device arrays, except
    Python scalars which stay Python scalars (weakly typed)."""
    x_args = [a if isinstance(a, (bool, int, float, complex)) else xjit.numpy.asarray(a)
              for a in args]
    np_args = [np.asarray(a).astype(np.float32) if np.asarray(a).dtype == BF16 else a
               for a in args]
    with np.errstate(divide="ignore", invalid="ignore"):  # inf/nan cases are compared too
        expected = np.asarray(np_fn(*np_args, **kwargs))
    for got in eager_and_jit(fn, *x_args, **kwargs):
        assert_close(got, expected, dtype=dtype if dtype is not None else expected.dtype,
                     rtol=rtol, atol=atol)


@contextlib.contextmanager
def x64(enabled):
    """Run the body with ``jax_enable_x64`` set to ``enabled``, then restore it."""
    old = config.jax_enable_x64
    config.update("jax_enable_x64", enabled)
    try:
        yield
    finally:
        config.update("jax_enable_x64", old)


def same_as_reference(f, *args):
    """``jit(f)`` on the default backend and on the reference backend give the
    same bits (bfloat16 compared as float32), for one result or a tuple."""
    got = xjit.jit(f)(*args)
    want = xjit.jit(f, backend="reference")(*args)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        if g.dtype == BF16:
            g, w = g.astype(np.float32), w.astype(np.float32)
        np.testing.assert_array_equal(g, w)
