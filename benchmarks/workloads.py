"""Workloads: each returns {framework: zero-arg callable} for numpy, xjit and
jax (when installed). Inputs are made once, outside the timed call."""
import numpy as np

from harness import block

try:
    import jax
    import jax.numpy as jjnp
except ImportError:  # JAX is optional
    jax = None

import xjit
import xjit.numpy as xjnp


def _frameworks(np_fn, make_traced, args):
    """np_fn(*args) for numpy; make_traced(xp) jitted for xjit/jax on device-put args."""
    out = {"numpy": lambda: np_fn(*args)}
    xf = xjit.jit(make_traced(xjnp))
    xargs = [xjit.device_put(a) for a in args]
    out["xjit"] = lambda: block(xf(*xargs))
    if jax is not None:
        jf = jax.jit(make_traced(jjnp))
        jargs = [jax.device_put(a) for a in args]
        out["jax"] = lambda: block(jf(*jargs))
    return out


def dispatch_tiny():
    """Cost of calling a jitted function on a 4-element array (dispatch overhead)."""
    x = np.ones(4, np.float32)
    return _frameworks(lambda a: a + 1.0, lambda xp: (lambda a: a + 1.0), [x])


def dispatch_ten_args():
    xs = [np.ones(4, np.float32) for _ in range(10)]
    def make(xp):
        return lambda *a: sum(a[1:], a[0])
    return _frameworks(lambda *a: sum(a[1:], a[0]), make, xs)


def eager_add():
    """One eager (un-jitted) op on a small array."""
    x = np.ones(16, np.float32)
    out = {"numpy": lambda: x + x}
    xx = xjit.device_put(x)
    out["xjit"] = lambda: block(xjnp.add(xx, xx))
    if jax is not None:
        jx = jax.device_put(x)
        out["jax"] = lambda: block(jjnp.add(jx, jx))
    return out


def elementwise_chain_1m():
    x = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)
    def make(xp):
        return lambda a: xp.tanh(a * 2.0 + 1.0) * xp.exp(-a * a)
    return _frameworks(make(np), make, [x])


def reduce_sum_rows():
    x = np.random.default_rng(0).standard_normal((1024, 1024)).astype(np.float32)
    def make(xp):
        return lambda a: xp.sum(a, axis=1)
    return _frameworks(make(np), make, [x])


def matmul_512():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((512, 512)).astype(np.float32)
    b = rng.standard_normal((512, 512)).astype(np.float32)
    def make(xp):
        return lambda x, y: x @ y
    return _frameworks(make(np), make, [a, b])


def mlp_step():
    """Forward + hand-written backward of a 784-256-10 MLP on a batch of 128."""
    import sys, os
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
    import mlp_digits
    rng = np.random.default_rng(0)
    params = mlp_digits.init_params(rng, 784, 10)
    x = rng.standard_normal((128, 784)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)]
    out = {"numpy": lambda: mlp_digits.make_step(np)(params, x, y)}
    xs = xjit.jit(mlp_digits.make_step(xjnp))
    xp_, xx, xy = xjit.tree_util.tree_map(xjit.device_put, (params, x, y))
    out["xjit"] = lambda: block(xs(xp_, xx, xy)[1])
    if jax is not None:
        js = jax.jit(mlp_digits.make_step(jjnp))
        jp, jx, jy = jax.device_put((params, x, y))
        out["jax"] = lambda: block(js(jp, jx, jy)[1])
    return out


ALL = [dispatch_tiny, dispatch_ten_args, eager_add, elementwise_chain_1m, reduce_sum_rows,
       matmul_512, mlp_step]
