"""``xjit.test_util.check_grads``: JAX's numerical derivative checks.

Example:
    >>> import xjit.numpy as jnp
    >>> check_grads(jnp.sin, (np.float32(0.5),), order=2)
"""
from __future__ import annotations

import functools

import numpy as np

from xjit import _xjit
from xjit._src import api_transforms as api

EPS = 1e-4

#: JAX's default tolerances for gradient checks, by dtype.
default_gradient_tolerance = {
    np.dtype(np.float16): 1e-2, np.dtype(np.float32): 2e-3, np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 1e-3, np.dtype(np.complex128): 1e-5}


def _leaves(x):
    return _xjit.tree_flatten(x)[0]


def _map(f, *trees):
    leaves, treedef = _xjit.tree_flatten(trees[0])
    rest = [_leaves(t) for t in trees[1:]]
    return treedef.unflatten([f(*xs) for xs in zip(leaves, *rest)])


def _dtype(x):
    return np.dtype(getattr(x, "dtype", np.asarray(x).dtype))


def _is_float(x) -> bool:
    return api._is_float(_dtype(x))


def _rand_like(rng, x):
    if not _is_float(x):
        return np.zeros(np.shape(x), api.float0)
    shape = np.shape(x)
    r = rng.randn(*shape) if _dtype(x).kind != "c" else rng.randn(*shape) + 1j * rng.randn(*shape)
    return np.asarray(r, dtype=_dtype(x))


def _tol(given, values) -> float:
    if given is not None:
        return given
    tols = [default_gradient_tolerance.get(_dtype(v), 1e-5) for v in _leaves(values)
            if _is_float(v)]
    return max(tols, default=1e-5)


def _axpy(a, x, y):
    """y + a * x on float leaves (numpy, in the leaves' dtype)."""
    def one(xi, yi):
        if not _is_float(yi):
            return yi
        return np.asarray(np.asarray(yi) + a * np.asarray(xi, dtype=_dtype(yi)), dtype=_dtype(yi))
    return _map(one, x, y)


def numerical_jvp(f, primals, tangents, eps=EPS):
    """Central differences: (f(x + eps t) - f(x - eps t)) / (2 eps)."""
    f_pos = f(*_axpy(eps, tangents, primals))
    f_neg = f(*_axpy(-eps, tangents, primals))

    def diff(p, n):
        if not _is_float(p):
            return np.zeros(np.shape(p), api.float0)
        return (np.asarray(p, dtype=np.float64 if _dtype(p).kind == "f" else np.complex128)
                - np.asarray(n)) * (0.5 / eps)
    return _map(diff, f_pos, f_neg)


def _inner(xs, ys) -> float:
    """JAX's inner_prod: Re(sum(conj(x) * y)), so that complex (holomorphic
    or not) functions pass the VJP check as they do in JAX."""
    total = 0.0
    for x, y in zip(_leaves(xs), _leaves(ys)):
        if _is_float(x) and _is_float(y):
            total += np.real(np.sum(np.conj(np.asarray(x, np.complex128))
                                    * np.asarray(y, np.complex128)))
    return total


def check_close(xs, ys, atol=None, rtol=None, err_msg=""):
    for x, y in zip(_leaves(xs), _leaves(ys)):
        if not (_is_float(x) and _is_float(y)):
            continue
        x = np.asarray(x)
        tol_a = _tol(atol, x)
        tol_r = _tol(rtol, x)
        np.testing.assert_allclose(np.asarray(x, np.complex128), np.asarray(y, np.complex128),
                                   atol=tol_a, rtol=tol_r, err_msg=err_msg)


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    rng = np.random.RandomState(0)
    tangent = _map(functools.partial(_rand_like, rng), args)
    v_out, t_out = f_jvp(args, tangent)
    v_expected = f(*args)
    check_close(v_out, v_expected, atol, rtol, err_msg=f"{err_msg} primal")
    t_expected = numerical_jvp(f, args, tangent, eps=eps)
    check_close(t_out, t_expected, atol, rtol, err_msg=f"{err_msg} tangent")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    rng = np.random.RandomState(0)
    v_out, vjpfun = f_vjp(*args)
    v_expected = f(*args)
    check_close(v_out, v_expected, atol, rtol, err_msg=f"{err_msg} primal")
    tangent = _map(functools.partial(_rand_like, rng), args)
    tangent_out = numerical_jvp(f, args, tangent, eps=eps)
    cotangent = _map(functools.partial(_rand_like, rng), v_out)
    cotangent_out = vjpfun(_map(np.conj, cotangent))
    ip = _inner(tangent, _map(np.conj, cotangent_out))
    ip_expected = _inner(tangent_out, cotangent)
    tol_a = _tol(atol, args)
    tol_r = _tol(rtol, args)
    np.testing.assert_allclose(ip, ip_expected, atol=tol_a, rtol=tol_r,
                               err_msg=f"{err_msg} <t, vjp(ct)> vs <jvp(t), ct>")


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check ``f``'s derivatives up to ``order`` against finite differences, as JAX's.

    ``modes`` picks forward ("fwd": JVP vs central differences) and/or reverse
    ("rev": VJP vs JVP through inner products); higher orders differentiate
    the JVP/VJP functions themselves.
    """
    args = tuple(args)
    eps = eps or EPS

    def _check(f, args, order, err_msg=""):
        if "fwd" in modes:
            msg = f"JVP of {err_msg}" if err_msg else "JVP"
            check_jvp(f, functools.partial(api.jvp, f), args, atol, rtol, eps, msg)
            if order > 1:
                _check(functools.partial(api.jvp, f), (args, args), order - 1, msg)
        if "rev" in modes:
            msg = f"VJP of {err_msg}" if err_msg else "VJP"
            check_vjp(f, functools.partial(api.vjp, f), args, atol, rtol, eps, msg)
            if order > 1:
                def f_vjp(*a):
                    out, pullback = api.vjp(f, *a)
                    return pullback(out)
                _check(f_vjp, args, order - 1, msg)

    _check(f, args, order)
