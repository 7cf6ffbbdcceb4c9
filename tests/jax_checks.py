"""Differential checks against JAX (when importable): same values, dtype, weak type
and exception type, eagerly and under jit."""
import contextlib

import numpy as np
import pytest

import xjit
from numpy_checks import BF16

try:
    import jax
    import jax.numpy as jax_jnp  # noqa: F401
except ImportError:  # the tests that need JAX skip
    jax = None

# Looser than numpy_checks: two implementations of transcendental functions.
_TOL = {np.dtype(np.float16): 4e-3, BF16: 3e-2, np.dtype(np.float32): 2e-5,
        np.dtype(np.complex64): 2e-5, np.dtype(np.float64): 1e-12,
        np.dtype(np.complex128): 1e-12}


def need_jax():
    if jax is None:
        pytest.skip("jax is not installed")
    return jax


@contextlib.contextmanager
def both_x64(enabled):
    """``jax_enable_x64`` set to ``enabled`` in xjit and in JAX for the body."""
    old_x, old_j = xjit.config.jax_enable_x64, jax.config.jax_enable_x64
    xjit.config.update("jax_enable_x64", enabled)
    jax.config.update("jax_enable_x64", enabled)
    try:
        yield
    finally:
        xjit.config.update("jax_enable_x64", old_x)
        jax.config.update("jax_enable_x64", old_j)


def _leaves(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _as_numpy(x):
    x = np.asarray(x)
    return x.astype(np.float32) if x.dtype == BF16 else x


def assert_like_jax(got, want, rtol=None, atol=None, check_weak=True):
    got_l, want_l = _leaves(got), _leaves(want)
    assert len(got_l) == len(want_l)
    for g, w in zip(got_l, want_l):
        assert g.dtype == w.dtype, f"dtype {g.dtype} != jax {w.dtype}"
        assert tuple(g.shape) == tuple(w.shape), f"shape {g.shape} != jax {w.shape}"
        if check_weak:
            assert bool(g.weak_type) == bool(w.weak_type), (
                f"weak_type {g.weak_type} != jax {w.weak_type}")
        gn, wn = _as_numpy(g), _as_numpy(w)
        dt = np.dtype(w.dtype)
        if dt.kind in "fc" or dt == BF16:
            tol = _TOL.get(dt, 1e-6) if rtol is None else rtol
            np.testing.assert_allclose(gn, wn, rtol=tol, atol=tol if atol is None else atol,
                                       equal_nan=True)
        else:
            np.testing.assert_array_equal(gn, wn)


def check_like_jax(xjit_fn, jax_fn, args, rtol=None, atol=None, jit=True, check_weak=True):
    """Run ``jax_fn(*args)`` and ``xjit_fn(*args)`` (eagerly, and jitted over all
    args when ``jit``): the same result, or an exception of the same type."""
    need_jax()
    try:
        want = jax_fn(*args)
        jax_error = None
    except Exception as e:  # noqa: BLE001 (the type is what is compared)
        jax_error = type(e)
    runs = [lambda: xjit_fn(*args)]
    if jit:
        runs.append(lambda: xjit.jit(xjit_fn)(*args))
    for run in runs:
        if jax_error is not None:
            with pytest.raises(Exception) as info:
                run()
            assert issubclass(info.type, jax_error) or issubclass(jax_error, info.type), (
                f"xjit raised {info.type.__name__}, jax {jax_error.__name__}: {info.value}")
        else:
            assert_like_jax(run(), want, rtol, atol, check_weak)
