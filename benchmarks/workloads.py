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


def _frameworks(np_fn, make_traced, args, numpy_args=False):
    """np_fn(*args) for numpy; make_traced(xp) jitted for xjit/jax on device-put
    args (on the numpy arrays themselves when ``numpy_args``)."""
    out = {"numpy": lambda: np_fn(*args)}
    xf = xjit.jit(make_traced(xjnp))
    xargs = list(args) if numpy_args else [xjit.device_put(a) for a in args]
    out["xjit"] = lambda: block(xf(*xargs))
    if jax is not None:
        jf = jax.jit(make_traced(jjnp))
        jargs = list(args) if numpy_args else [jax.device_put(a) for a in args]
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


def _chain_4m(numpy_args):
    """Issue 12's chain on 4M float32: tanh(x*1.5+0.5)*exp(-x*x) + maximum(x,0.1)/(1+|x|)."""
    x = np.random.default_rng(0).standard_normal(4 << 20).astype(np.float32)
    def make(xp):
        return lambda a: (xp.tanh(a * 1.5 + 0.5) * xp.exp(-a * a)
                          + xp.maximum(a, 0.1) / (1 + xp.abs(a)))
    return _frameworks(make(np), make, [x], numpy_args)


def elementwise_chain_4m():
    return _chain_4m(False)


def elementwise_chain_4m_numpy_args():
    """The same chain called on the numpy array itself (no device_put first)."""
    return _chain_4m(True)


def reduce_sum_rows():
    x = np.random.default_rng(0).standard_normal((1024, 1024)).astype(np.float32)
    def make(xp):
        return lambda a: xp.sum(a, axis=1)
    return _frameworks(make(np), make, [x])


def reduce_rows_and_max_4m():
    """Issue 12's reductions on 4M float32: row sums of a 1024-row view and the maximum."""
    x = np.random.default_rng(0).standard_normal(4 << 20).astype(np.float32)
    def make(xp):
        return lambda a: (a.reshape(1024, -1).sum(axis=1), a.max())
    return _frameworks(make(np), make, [x])


def stream_4m():
    """x * 2 + 1 on 4M float32: one read and one write an element, bound by memory."""
    x = np.random.default_rng(0).standard_normal(4 << 20).astype(np.float32)
    def make(xp):
        return lambda a: a * 2.0 + 1.0
    return _frameworks(make(np), make, [x])


# Bytes each workload reads and writes (run.py's bandwidth report).
BYTES_MOVED = {"stream_4m": 2 * (16 << 20), "elementwise_chain_4m": 2 * (16 << 20),
               "reduce_rows_and_max_4m": 16 << 20}


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


def mlp_grad_step():
    """SGD step of a 784-512-512-10 MLP (batch 128) with the gradient from grad."""
    rng = np.random.default_rng(0)
    sizes = [784, 512, 512, 10]
    params = [(rng.standard_normal((m, n)).astype(np.float32) / np.sqrt(m),
               np.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]
    x = rng.standard_normal((128, 784)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)]

    def make(xp, grad):
        def loss(params, x, y):
            h = x
            for w, b in params[:-1]:
                h = xp.maximum(h @ w + b, 0.0)
            w, b = params[-1]
            logits = h @ w + b
            logits = logits - xp.max(logits, axis=1, keepdims=True)
            logp = logits - xp.log(xp.sum(xp.exp(logits), axis=1, keepdims=True))
            return -xp.mean(xp.sum(logp * y, axis=1))

        def step(params, x, y):
            g = grad(loss)(params, x, y)
            return [(w - 0.01 * gw, b - 0.01 * gb) for (w, b), (gw, gb) in zip(params, g)]
        return step

    out = {}
    xs = xjit.jit(make(xjnp, xjit.grad))
    xargs = xjit.tree_util.tree_map(xjit.device_put, (params, x, y))
    out["xjit"] = lambda: block(xs(*xargs)[0][0])
    if jax is not None:
        js = jax.jit(make(jjnp, jax.grad))
        jargs = jax.device_put((params, x, y))
        out["jax"] = lambda: block(js(*jargs)[0][0])
    return out


def _np_softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_rows(rows=2048):
    """Softmax over the rows of a 2048x1024 float32 array (xjit.nn.softmax / jax.nn)."""
    x = np.random.default_rng(0).standard_normal((rows, 1024)).astype(np.float32)
    out = {"numpy": lambda: _np_softmax(x)}
    import xjit.nn
    xf = xjit.jit(lambda a: xjit.nn.softmax(a, axis=-1))
    xx = xjit.device_put(x)
    out["xjit"] = lambda: block(xf(xx))
    if jax is not None:
        jf = jax.jit(lambda a: jax.nn.softmax(a, axis=-1))
        jx = jax.device_put(x)
        out["jax"] = lambda: block(jf(jx))
    return out


def layer_norm():
    """Layer normalization of 2048x1024 float32 rows: nn.standardize, scale and offset."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2048, 1024)).astype(np.float32)
    scale = rng.standard_normal(1024).astype(np.float32)
    offset = rng.standard_normal(1024).astype(np.float32)

    def np_fn(a, g, b):
        mean = a.mean(axis=-1, keepdims=True)
        var = (a * a).mean(axis=-1, keepdims=True) - mean * mean
        return (a - mean) / np.sqrt(np.maximum(var, 0) + 1e-5) * g + b

    out = {"numpy": lambda: np_fn(x, scale, offset)}
    import xjit.nn
    xf = xjit.jit(lambda a, g, b: xjit.nn.standardize(a, axis=-1) * g + b)
    xargs = [xjit.device_put(v) for v in (x, scale, offset)]
    out["xjit"] = lambda: block(xf(*xargs))
    if jax is not None:
        jf = jax.jit(lambda a, g, b: jax.nn.standardize(a, axis=-1) * g + b)
        jargs = [jax.device_put(v) for v in (x, scale, offset)]
        out["jax"] = lambda: block(jf(*jargs))
    return out


def _random_10m(sampler_name):
    """10M samples of jax.random.<sampler_name> (float32) from a fixed key, jitted."""
    n = 10_000_000
    rng = np.random.default_rng(0)
    np_fn = {"uniform": lambda: rng.random(n, dtype=np.float32),
             "normal": lambda: rng.standard_normal(n, dtype=np.float32)}[sampler_name]
    out = {"numpy": np_fn}
    xf = xjit.jit(lambda k: getattr(xjit.random, sampler_name)(k, (n,)))
    xk = xjit.random.PRNGKey(0)
    out["xjit"] = lambda: block(xf(xk))
    if jax is not None:
        jf = jax.jit(lambda k: getattr(jax.random, sampler_name)(k, (n,)))
        jk = jax.random.PRNGKey(0)
        out["jax"] = lambda: block(jf(jk))
    return out


def random_uniform_10m():
    return _random_10m("uniform")


def random_normal_10m():
    return _random_10m("normal")


def sort_1m():
    """Sort of 1M float32 (JAX's comparator: NaNs last; the cpu radix path)."""
    x = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)
    return _frameworks(np.sort, lambda xp: xp.sort, [x])


def argsort_1m():
    """Stable argsort of 1M float32 (a sort of (keys, iota))."""
    x = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)
    return _frameworks(lambda a: np.argsort(a, kind="stable"), lambda xp: xp.argsort, [x])


ALL = [dispatch_tiny, dispatch_ten_args, eager_add, elementwise_chain_1m, elementwise_chain_4m,
       elementwise_chain_4m_numpy_args, stream_4m, reduce_sum_rows, reduce_rows_and_max_4m,
       matmul_512, mlp_step, mlp_grad_step, softmax_rows, layer_norm, random_uniform_10m,
       random_normal_10m, sort_1m, argsort_1m]


# ------------------------------------------------ bfloat16 / float16 element-wise and reductions (issue 12)

def _half_frameworks(np_fn, make_traced, shape, dtype="bfloat16"):
    """A 16-bit float input of `shape`; numpy computes in float32 and rounds at the end."""
    import ml_dtypes
    t = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.float16
    x = np.random.default_rng(0).standard_normal(shape).astype(t)
    out = _frameworks(lambda a: a, make_traced, [x])
    out["numpy"] = lambda: np_fn(x.astype(np.float32)).astype(t)
    return out


def _chain(xp):
    return lambda a: (xp.tanh(a * 1.5 + 0.5) * xp.exp(-a * a)
                      + xp.maximum(a, 0.1) / (1 + xp.abs(a)))


def _softmax(xp):
    import xjit.nn
    nn = xjit.nn if xp is xjnp else jax.nn
    return lambda a: nn.softmax(a, axis=-1)


def stream_bf16_4m():
    """x * 2 + 1 on 4M bfloat16 (8 MB in, 8 MB out)."""
    make = lambda xp: (lambda a: a * 2 + 1)  # noqa: E731
    return _half_frameworks(make(np), make, 4 << 20)


def elementwise_chain_bf16_4m():
    """Issue 12's chain on 4M bfloat16 (each op rounds to bfloat16)."""
    return _half_frameworks(_chain(np), _chain, 4 << 20)


def reduce_sum_bf16_4m():
    """The sum of 4M bfloat16 (accumulated in float32, as jnp.sum does)."""
    make = lambda xp: (lambda a: a.sum())  # noqa: E731
    return _half_frameworks(make(np), make, 4 << 20)


def softmax_rows_bf16():
    """Softmax over the rows of a 2048x1024 bfloat16 array."""
    return _half_frameworks(_np_softmax, _softmax, (2048, 1024))


def elementwise_chain_f16_4m():
    """Issue 12's chain on 4M float16 (each op rounds to float16)."""
    return _half_frameworks(_chain(np), _chain, 4 << 20, "float16")


def reduce_sum_f16_4m():
    """The sum of 4M float16 (accumulated in float32)."""
    make = lambda xp: (lambda a: a.sum())  # noqa: E731
    return _half_frameworks(make(np), make, 4 << 20, "float16")


def softmax_rows_f16():
    """Softmax over the rows of a 2048x1024 float16 array."""
    return _half_frameworks(_np_softmax, _softmax, (2048, 1024), "float16")


ALL += [stream_bf16_4m, elementwise_chain_bf16_4m, reduce_sum_bf16_4m, softmax_rows_bf16,
        elementwise_chain_f16_4m, reduce_sum_f16_4m, softmax_rows_f16]


# ------------------------------------------------ control flow (issue 8)

def _lax_frameworks(np_fn, make_traced, args):
    """Like _frameworks, but make_traced(xp, lax) gets the lax module too."""
    from xjit import lax as xlax
    out = {"numpy": lambda: np_fn(*args)}
    xf = xjit.jit(make_traced(xjnp, xlax))
    xargs = [xjit.device_put(a) for a in args]
    out["xjit"] = lambda: block(xf(*xargs))
    if jax is not None:
        jf = jax.jit(make_traced(jjnp, jax.lax))
        jargs = [jax.device_put(a) for a in args]
        out["jax"] = lambda: block(jf(*jargs))
    return out


def scan_rnn_1000():
    """A 1,000-step tanh RNN (hidden 64) as one scan."""
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((64, 64)) * 0.1).astype(np.float32)
    xs = rng.standard_normal((1000, 64)).astype(np.float32)

    def np_fn(w, xs):
        h = np.zeros(64, np.float32)
        out = np.empty_like(xs)
        for i in range(len(xs)):
            h = np.tanh(h @ w + xs[i])
            out[i] = h
        return out

    def make(xp, lax):
        def f(w, xs):
            return lax.scan(lambda h, x: (xp.tanh(h @ w + x),) * 2, xp.zeros(64, xp.float32),
                            xs)[1]
        return f
    return _lax_frameworks(np_fn, make, [w, xs])


def fori_loop_10000():
    """10,000 small updates (a 16-element state) in a fori_loop with a traced bound."""
    x = np.ones(16, np.float32)
    n = np.int32(10000)

    def np_fn(x, n):
        for _ in range(int(n)):
            x = x * np.float32(0.999) + np.float32(0.001)
        return x

    def make(xp, lax):
        return lambda x, n: lax.fori_loop(0, n, lambda i, v: v * 0.999 + 0.001, x)
    return _lax_frameworks(np_fn, make, [x, n])


def while_newton():
    """Newton iterations for sqrt of 1,000 values until all converge (while_loop)."""
    a = np.linspace(1, 1000, 1000).astype(np.float32)

    def np_fn(a):
        x = a.copy()
        while np.any(np.abs(x * x - a) > 1e-3 * a):
            x = 0.5 * (x + a / x)
        return x

    def make(xp, lax):
        def f(a):
            return lax.while_loop(lambda x: xp.any(xp.abs(x * x - a) > 1e-3 * a),
                                  lambda x: 0.5 * (x + a / x), a)
        return f
    return _lax_frameworks(np_fn, make, [a])


ALL = ALL + [scan_rnn_1000, fori_loop_10000, while_newton]


# ------------------------------------------------ windows (issue 7)

def _conv3x3_relu(layout):
    """3x3 convolution + ReLU, batch 8, 64 -> 64 channels, 28x28 (issue 7)."""
    rng = np.random.default_rng(0)
    dn = ("NCHW", "OIHW", "NCHW") if layout == "NCHW" else ("NHWC", "HWIO", "NHWC")
    x = rng.standard_normal((8, 64, 28, 28) if layout == "NCHW" else (8, 28, 28, 64))
    k = rng.standard_normal((64, 64, 3, 3) if layout == "NCHW" else (3, 3, 64, 64))
    x, k = x.astype(np.float32), (k / 24).astype(np.float32)
    out = {}
    xf = xjit.jit(lambda a, b: xjnp.maximum(xjit.lax.conv_general_dilated(
        a, b, (1, 1), "SAME", dimension_numbers=dn), 0.0))
    xargs = [xjit.device_put(v) for v in (x, k)]
    out["xjit"] = lambda: block(xf(*xargs))
    if jax is not None:
        jf = jax.jit(lambda a, b: jjnp.maximum(jax.lax.conv_general_dilated(
            a, b, (1, 1), "SAME", dimension_numbers=dn), 0.0))
        jargs = [jax.device_put(v) for v in (x, k)]
        out["jax"] = lambda: block(jf(*jargs))
    return out


def conv3x3_bf16_nhwc():
    """The 3x3 convolution (no ReLU) in bfloat16, NHWC (numpy has none)."""
    import ml_dtypes
    rng = np.random.default_rng(0)
    dn = ("NHWC", "HWIO", "NHWC")
    x = rng.standard_normal((8, 28, 28, 64)).astype(ml_dtypes.bfloat16)
    k = (rng.standard_normal((3, 3, 64, 64)) / 24).astype(ml_dtypes.bfloat16)
    out = {}
    xf = xjit.jit(lambda a, b: xjit.lax.conv_general_dilated(a, b, (1, 1), "SAME",
                                                             dimension_numbers=dn))
    xargs = [xjit.device_put(v) for v in (x, k)]
    out["xjit"] = lambda: block(xf(*xargs))
    if jax is not None:
        jf = jax.jit(lambda a, b: jax.lax.conv_general_dilated(a, b, (1, 1), "SAME",
                                                               dimension_numbers=dn))
        jargs = [jax.device_put(v) for v in (x, k)]
        out["jax"] = lambda: block(jf(*jargs))
    return out


def conv3x3_relu_nchw():
    return _conv3x3_relu("NCHW")


def conv3x3_relu_nhwc():
    return _conv3x3_relu("NHWC")


def max_pool_2x2():
    """2x2/2 max pooling of 8x64x56x56 float32 (reduce_window)."""
    x = np.random.default_rng(0).standard_normal((8, 64, 56, 56)).astype(np.float32)
    out = {"numpy": lambda: x.reshape(8, 64, 28, 2, 28, 2).max(axis=(3, 5))}
    xf = xjit.jit(lambda a: xjit.lax.reduce_window(a, -np.inf, xjit.lax.max, (1, 1, 2, 2),
                                                   (1, 1, 2, 2), "VALID"))
    xx = xjit.device_put(x)
    out["xjit"] = lambda: block(xf(xx))
    if jax is not None:
        jf = jax.jit(lambda a: jax.lax.reduce_window(a, -np.inf, jax.lax.max, (1, 1, 2, 2),
                                                     (1, 1, 2, 2), "VALID"))
        jx = jax.device_put(x)
        out["jax"] = lambda: block(jf(jx))
    return out


ALL += [conv3x3_relu_nchw, conv3x3_relu_nhwc, conv3x3_bf16_nhwc, max_pool_2x2]


# ------------------------------------------------ StableHLO in (issue 10)

def stablehlo_module_text(num_ops=10_000):
    """A JAX-style (pretty form) StableHLO module of ``num_ops`` ops on 16x16
    float32: element-wise chains with a broadcast, a dot_general and a reduce
    every few ops, as a lowered network looks."""
    t = "tensor<16x16xf32>"
    lines = ["module @jit_bench attributes {mhlo.num_partitions = 1 : i32} {",
             f"  func.func public @main(%arg0: {t}, %arg1: {t}) -> ({t} "
             "{jax.result_info = \"result\"}) {",
             "    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>"]
    prev, n = "%arg0", 1
    while n < num_ops:
        k = n % 8
        if k == 0:
            op = (f"stablehlo.dot_general {prev}, %arg1, contracting_dims = [1] x [0], "
                  f"precision = [DEFAULT, DEFAULT] : ({t}, {t}) -> {t}")
        elif k == 3:
            lines.append(f"    %r{n} = stablehlo.reduce({prev} init: %cst) applies stablehlo.add "
                         f"across dimensions = [1] : ({t}, tensor<f32>) -> tensor<16xf32>")
            n += 1
            op = f"stablehlo.broadcast_in_dim %r{n - 1}, dims = [0] : (tensor<16xf32>) -> {t}"
        elif k == 5:
            op = f"stablehlo.tanh {prev} : {t}"
        else:
            op = f"stablehlo.{('add', 'multiply', 'subtract')[k % 3]} {prev}, %arg1 : {t}"
        lines.append(f"    %{n} = {op}")
        prev, n = f"%{n}", n + 1
    lines += [f"    return {prev} : {t}", "  }", "}"]
    return "\n".join(lines) + "\n"


def stablehlo_parse_compile_10k():
    """Parse and compile (cpu) a 10,000-op StableHLO module (xjit.stablehlo.compile)."""
    from xjit import stablehlo
    text = stablehlo_module_text()
    return {"xjit": lambda: stablehlo.compile(text, "cpu")}


ALL += [stablehlo_parse_compile_10k]


# ------------------------------------------------ batch normalization (issue 7, h-bn)

def _bn_training_formula(xp):
    """JAX's batch norm written with mean/var (as flax does), NCHW."""
    def f(a, scale, offset):
        mean = xp.mean(a, axis=(0, 2, 3))
        var = xp.var(a, axis=(0, 2, 3))
        b = lambda v: v.reshape(1, -1, 1, 1)  # noqa: E731
        return b(scale) * (a - b(mean)) / xp.sqrt(b(var) + 1e-5) + b(offset), mean, var
    return f


def batch_norm_training():
    """batch_norm_training of 32x64x56x56 float32 (NCHW, feature_index 1):
    xjit's op against the jnp.mean/var formula jitted by JAX (and numpy)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 64, 56, 56)).astype(np.float32)
    scale = rng.uniform(0.5, 2, 64).astype(np.float32)
    offset = rng.standard_normal(64).astype(np.float32)
    out = {"numpy": lambda: _bn_training_formula(np)(x, scale, offset)}
    xf = xjit.jit(lambda a, s, o: xjit.lax.batch_norm_training(a, s, o, epsilon=1e-5,
                                                               feature_index=1))
    xargs = [xjit.device_put(v) for v in (x, scale, offset)]
    out["xjit"] = lambda: block(xf(*xargs))
    if jax is not None:
        jf = jax.jit(_bn_training_formula(jjnp))
        jargs = [jax.device_put(v) for v in (x, scale, offset)]
        out["jax"] = lambda: block(jf(*jargs))
    return out


ALL += [batch_norm_training]
# ------------------------------------------------ autodiff (issue 9)

def cnn_grad_step():
    """SGD step of examples/cnn_digits.py's CNN (conv16-pool-conv32-pool-dense, batch 64
    of 8x8x1) with the gradient from grad."""
    import sys, os
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
    import cnn_digits
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, (cnn_digits.BATCH, 8, 8, 1)).astype(np.float32)
    y = rng.integers(0, 10, cnn_digits.BATCH).astype(np.int32)
    out = {}
    for name, jx in [("xjit", xjit), ("jax", jax)]:
        if jx is None:
            continue
        model = cnn_digits.Model(jx)
        args = jx.device_put((model.init(0), x, y))
        out[name] = (lambda m, a: lambda: block(m.step(*a)[1]))(model, args)
    return out


ALL += [cnn_grad_step]
# ------------------------------------------------ pooling, gather/scatter, conv epilogues (issue 7)

def _pool_input():
    return np.random.default_rng(0).standard_normal((8, 64, 56, 56)).astype(np.float32)


def avg_pool_2x2():
    """2x2/2 average pooling of 8x64x56x56 float32 (reduce_window add, then divide)."""
    x = _pool_input()
    def make(xp, lax):
        return lambda a: lax.reduce_window(a, 0.0, lax.add, (1, 1, 2, 2), (1, 1, 2, 2),
                                           "VALID") / 4.0
    return _lax_frameworks(lambda a: a.reshape(8, 64, 28, 2, 28, 2).mean(axis=(3, 5)), make, [x])


def max_pool_grad():
    """Gradient of 2x2/2 max pooling of 8x64x56x56 float32 (select_and_scatter add)."""
    x = _pool_input()
    g = np.random.default_rng(1).standard_normal((8, 64, 28, 28)).astype(np.float32)

    def np_fn(a, g):
        w = a.reshape(8, 64, 28, 2, 28, 2).transpose(0, 1, 2, 4, 3, 5).reshape(8, 64, 28, 28, 4)
        first = np.argmax(w, axis=-1)
        out = np.zeros_like(w)
        np.put_along_axis(out, first[..., None], g[..., None], axis=-1)
        return out.reshape(8, 64, 28, 28, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(a.shape)

    def make(xp, lax):
        pool = lambda a: lax.reduce_window(a, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2),
                                           "VALID")
        mod = jax if xp is not xjnp else xjit
        return mod.grad(lambda a, g: xp.vdot(pool(a), g))
    return _lax_frameworks(np_fn, make, [x, g])


def gather_rows_1m():
    """x[idx]: 1M random rows of a (1M, 16) float32 table (int32 indices)."""
    rng = np.random.default_rng(0)
    table = rng.standard_normal((1 << 20, 16)).astype(np.float32)
    idx = rng.integers(0, 1 << 20, 1 << 20).astype(np.int32)
    return _frameworks(lambda t, i: t[i], lambda xp: (lambda t, i: t[i]), [table, idx])


def take_1m():
    """jnp.take of 1M random elements of a 1M float32 vector (mode "fill" by default)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1 << 20).astype(np.float32)
    idx = rng.integers(0, 1 << 20, 1 << 20).astype(np.int32)
    return _frameworks(np.take, lambda xp: xp.take, [x, idx])


def _np_add_at(x, i, v):
    out = x.copy()
    np.add.at(out, i, v)
    return out


def scatter_add_1m():
    """x.at[idx].add(v): 1M float32 updates at random indices into a 100K vector."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(100_000).astype(np.float32)
    idx = rng.integers(0, 100_000, 1 << 20).astype(np.int32)
    v = rng.standard_normal(1 << 20).astype(np.float32)
    return _frameworks(_np_add_at, lambda xp: (lambda x, i, v: x.at[i].add(v)), [x, idx, v])


def at_add_rows_1m():
    """x.at[idx].add(v): 1M rows of 16 float32 at random indices into (100K, 16)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((100_000, 16)).astype(np.float32)
    idx = rng.integers(0, 100_000, 1 << 20).astype(np.int32)
    v = rng.standard_normal((1 << 20, 16)).astype(np.float32)
    return _frameworks(_np_add_at, lambda xp: (lambda x, i, v: x.at[i].add(v)), [x, idx, v])


def conv3x3_bias_relu_nhwc():
    """3x3 convolution + bias + ReLU, NHWC, batch 8, 64 -> 64 channels, 28x28."""
    rng = np.random.default_rng(0)
    dn = ("NHWC", "HWIO", "NHWC")
    x = rng.standard_normal((8, 28, 28, 64)).astype(np.float32)
    k = (rng.standard_normal((3, 3, 64, 64)) / 24).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)

    def make(xp, lax):
        return lambda a, w, c: xp.maximum(
            lax.conv_general_dilated(a, w, (1, 1), "SAME", dimension_numbers=dn) + c, 0.0)
    out = _lax_frameworks(None, make, [x, k, b])
    del out["numpy"]
    return out


ALL += [avg_pool_2x2, max_pool_grad, gather_rows_1m, take_1m, scatter_add_1m, at_add_rows_1m,
        conv3x3_bias_relu_nhwc]


# ------------------------------------------------ linear algebra (issue 11, h-linalg)

def _with_x64(fn):
    """``fn`` run with jax_enable_x64 on in xjit and JAX (float64 inputs)."""
    def call():
        old_x = xjit.config.jax_enable_x64
        old_j = jax.config.jax_enable_x64 if jax is not None else None
        xjit.config.update("jax_enable_x64", True)
        if jax is not None:
            jax.config.update("jax_enable_x64", True)
        try:
            return fn()
        finally:
            xjit.config.update("jax_enable_x64", old_x)
            if jax is not None:
                jax.config.update("jax_enable_x64", old_j)
    return call


def _linalg(np_fn, make, args, x64):
    if not x64:
        return _frameworks(np_fn, make, args)
    fns = _with_x64(lambda: _frameworks(np_fn, make, args))()
    return {k: (v if k == "numpy" else _with_x64(v)) for k, v in fns.items()}


def _spd(n, dtype):
    m = np.random.default_rng(0).standard_normal((n, n))
    return (m @ m.T + n * np.eye(n)).astype(dtype)


def cholesky_1024_f32():
    """Cholesky of a 1024x1024 float32 SPD matrix (LAPACK potrf)."""
    return _linalg(np.linalg.cholesky, lambda xp: xp.linalg.cholesky,
                   [_spd(1024, np.float32)], False)


def cholesky_1024_f64():
    return _linalg(np.linalg.cholesky, lambda xp: xp.linalg.cholesky,
                   [_spd(1024, np.float64)], True)


def _solve_args(dtype):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((1024, 1024)) + 32 * np.eye(1024)).astype(dtype)
    return [a, rng.standard_normal(1024).astype(dtype)]


def solve_1024_f32():
    """jnp.linalg.solve of a 1024x1024 float32 system, one right-hand side (LU)."""
    return _linalg(np.linalg.solve, lambda xp: xp.linalg.solve, _solve_args(np.float32), False)


def solve_1024_f64():
    return _linalg(np.linalg.solve, lambda xp: xp.linalg.solve, _solve_args(np.float64), True)


def svd_512_f32():
    """Full SVD (u, s, vh) of a 512x512 float32 matrix (LAPACK gesdd)."""
    a = np.random.default_rng(2).standard_normal((512, 512)).astype(np.float32)
    return _linalg(np.linalg.svd, lambda xp: xp.linalg.svd, [a], False)


ALL += [cholesky_1024_f32, cholesky_1024_f64, solve_1024_f32, solve_1024_f64, svd_512_f32]
# ------------------------------------------------ compile time (issue 12)

def _n_op_function(xp, num_ops):
    """A function of about ``num_ops`` ops on a 16x16 float32 array: element-wise
    chains with a reduction, a broadcast and a matmul every few ops."""
    def f(x, w):
        y = x
        for i in range(num_ops // 4):
            k = i % 4
            if k == 0:
                y = y @ w
            elif k == 1:
                y = y - y.sum(axis=1, keepdims=True)
            else:
                y = xp.tanh(y * 0.5 + 1.0)
        return y
    return f


def _compile_workload(num_ops):
    """Trace and compile (cpu) a fresh jitted ``num_ops``-op function each call:
    jax.jit(f).lower(x, w).compile() and the same on xjit."""
    x = np.ones((16, 16), np.float32)
    out = {"xjit": lambda: xjit.jit(_n_op_function(xjnp, num_ops)).lower(x, x).compile()}
    if jax is not None:
        out["jax"] = lambda: jax.jit(_n_op_function(jjnp, num_ops)).lower(x, x).compile()
    return out


def compile_200_ops():
    """Trace + compile a 200-op function (fresh each call)."""
    return _compile_workload(200)


def compile_2000_ops():
    """Trace + compile a 2,000-op function (fresh each call)."""
    return _compile_workload(2000)


def compile_10000_ops():
    """Trace + compile a 10,000-op function (fresh each call)."""
    return _compile_workload(10_000)


ALL += [compile_200_ops, compile_2000_ops, compile_10000_ops]
# ---- issue 11 (h-fft): FFTs (ducc0 on xjit's cpu backend, as on JAX's)

def fft_c64_1m():
    """A 2^20-point complex64 FFT."""
    r = np.random.default_rng(0)
    x = (r.standard_normal(1 << 20) + 1j * r.standard_normal(1 << 20)).astype(np.complex64)
    return _frameworks(np.fft.fft, lambda xp: xp.fft.fft, [x])


def rfft_f32_4m():
    """A 2^22-point float32 real FFT."""
    x = np.random.default_rng(0).standard_normal(1 << 22).astype(np.float32)
    return _frameworks(np.fft.rfft, lambda xp: xp.fft.rfft, [x])


ALL += [fft_c64_1m, rfft_f32_4m]
# ---- issue 12: activations and logarithms on 2048x1024 float32 (one op or a
# short chain each: the vectorised log/log1p/logistic and generated kernels)


def _activation(np_fn, name):
    x = np.random.default_rng(0).standard_normal((2048, 1024)).astype(np.float32)
    out = {"numpy": lambda: np_fn(x)}
    import xjit.nn
    xf = xjit.jit(getattr(xjit.nn, name) if hasattr(xjit.nn, name) else getattr(xjnp, name))
    xx = xjit.device_put(x)
    out["xjit"] = lambda: block(xf(xx))
    if jax is not None:
        jf = jax.jit(getattr(jax.nn, name) if hasattr(jax.nn, name) else getattr(jjnp, name))
        jx = jax.device_put(x)
        out["jax"] = lambda: block(jf(jx))
    return out


def sigmoid_2m():
    """jax.nn.sigmoid (lax.logistic) of 2M float32."""
    return _activation(lambda a: 1 / (1 + np.exp(-a)), "sigmoid")


def silu_2m():
    """jax.nn.silu, x * sigmoid(x), of 2M float32."""
    return _activation(lambda a: a / (1 + np.exp(-a)), "silu")


def gelu_2m():
    """jax.nn.gelu (tanh form) of 2M float32."""
    return _activation(lambda a: 0.5 * a * (1 + np.tanh(0.7978845608 * (a + 0.044715 * a ** 3))),
                       "gelu")


def log_softmax_rows():
    """jax.nn.log_softmax over the rows of 2048x1024 float32."""
    return _activation(lambda a: a - a.max(-1, keepdims=True)
                       - np.log(np.exp(a - a.max(-1, keepdims=True)).sum(-1, keepdims=True)),
                       "log_softmax")


def log_2m():
    """jnp.log of |x| + 0.1, 2M float32."""
    x = np.abs(np.random.default_rng(0).standard_normal((2048, 1024)).astype(np.float32)) + 0.1
    return _frameworks(np.log, lambda xp: xp.log, [x])


def log1p_2m():
    """jnp.log1p of |x|, 2M float32."""
    x = np.abs(np.random.default_rng(0).standard_normal((2048, 1024)).astype(np.float32))
    return _frameworks(np.log1p, lambda xp: xp.log1p, [x])


def softmax_rows_4096():
    """Issue 12's softmax: rows of a 4096x1024 float32 array (16 MB: half the
    L3 here, so the results are streamed to memory)."""
    return softmax_rows(4096)


ALL += [sigmoid_2m, silu_2m, gelu_2m, log_softmax_rows, log_2m, log1p_2m, softmax_rows_4096]
# ---- float64 and complex matmul (BLAS gemm on xjit's cpu backend; issue 12)

def _matmul_args(n, dtype):
    rng = np.random.default_rng(0)
    if np.dtype(dtype).kind == "c":
        return [(rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))).astype(dtype)
                for _ in range(2)]
    return [rng.standard_normal((n, n)).astype(dtype) for _ in range(2)]


def matmul_512_f64():
    """512x512 @ 512x512 float64 (x64 on)."""
    return _linalg(lambda a, b: a @ b, lambda xp: (lambda a, b: a @ b),
                   _matmul_args(512, np.float64), True)


def matmul_256_c64():
    """256x256 @ 256x256 complex64."""
    return _linalg(lambda a, b: a @ b, lambda xp: (lambda a, b: a @ b),
                   _matmul_args(256, np.complex64), False)


def _matmul_jitted(n, dtype):
    """n x n @ n x n of `dtype` (numpy has no bfloat16 matmul of its own: xjit and JAX only)."""
    args = [a.astype(dtype) for a in _matmul_args(n, np.float32)]
    out = _frameworks(lambda a, b: a @ b, lambda xp: (lambda a, b: a @ b), args)
    if dtype != np.float32:
        del out["numpy"]
    return out


def matmul_256():
    return _matmul_jitted(256, np.float32)


def matmul_1024():
    return _matmul_jitted(1024, np.float32)


def matmul_2048():
    return _matmul_jitted(2048, np.float32)


def matmul_256_bf16():
    import ml_dtypes
    return _matmul_jitted(256, ml_dtypes.bfloat16)


def matmul_1024_bf16():
    import ml_dtypes
    return _matmul_jitted(1024, ml_dtypes.bfloat16)


def matmul_2048_bf16():
    import ml_dtypes
    return _matmul_jitted(2048, ml_dtypes.bfloat16)


ALL += [matmul_512_f64, matmul_256_c64, matmul_256, matmul_1024, matmul_2048, matmul_256_bf16,
        matmul_1024_bf16, matmul_2048_bf16]
# ------------------------------------------- array ops users reach for (issue 12)

def _mat2048():
    return np.random.default_rng(0).standard_normal((2048, 2048)).astype(np.float32)


def _vec4m():
    return np.random.default_rng(0).standard_normal(4 << 20).astype(np.float32)


def argmax_rows():
    """jnp.argmax over the rows of 2048x2048 float32 (a variadic reduce)."""
    return _frameworks(lambda a: np.argmax(a, axis=1), lambda xp: (lambda a: xp.argmax(a, axis=1)),
                       [_mat2048()])


def argmax_4m():
    """jnp.argmax of 4M float32 (one long row)."""
    return _frameworks(np.argmax, lambda xp: xp.argmax, [_vec4m()])


def cumsum_4m():
    """jnp.cumsum of 4M float32."""
    return _frameworks(np.cumsum, lambda xp: xp.cumsum, [_vec4m()])


def cumsum_rows():
    """jnp.cumsum along the rows of 2048x2048 float32."""
    return _frameworks(lambda a: np.cumsum(a, axis=1), lambda xp: (lambda a: xp.cumsum(a, axis=1)),
                       [_mat2048()])


def reverse_scale_4m():
    """x[::-1] * 2 on 4M float32."""
    return _frameworks(lambda a: a[::-1] * 2, lambda xp: (lambda a: a[::-1] * 2), [_vec4m()])


def where_4m():
    """jnp.where(x > 0, x, 0.1 * x) on 4M float32 (compare and select in one pass)."""
    return _frameworks(lambda a: np.where(a > 0, a, 0.1 * a),
                       lambda xp: (lambda a: xp.where(a > 0, a, 0.1 * a)), [_vec4m()])


def pad_2048():
    """jnp.pad by one on every side of 2048x2048 float32."""
    return _frameworks(lambda a: np.pad(a, 1), lambda xp: (lambda a: xp.pad(a, 1)), [_mat2048()])


def update_slice_2048():
    """x.at[100:1000, 5:900].set(0) on 2048x2048 float32 (a copy and a dynamic_update_slice)."""
    def np_set(a):
        b = a.copy()
        b[100:1000, 5:900] = 0
        return b
    return _frameworks(np_set, lambda xp: (lambda a: a.at[100:1000, 5:900].set(0.0)), [_mat2048()])


def pairwise_sq_dist():
    """((x[:, None] - y[None]) ** 2).sum(-1) for 256 x 256 points of 256 dims."""
    rng = np.random.default_rng(0)
    args = [rng.standard_normal((256, 256)).astype(np.float32) for _ in range(2)]
    f = lambda a, b: ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)  # noqa: E731
    return _frameworks(f, lambda xp: f, args)


ALL += [argmax_rows, argmax_4m, cumsum_4m, cumsum_rows, reverse_scale_4m, where_4m, pad_2048,
        update_slice_2048, pairwise_sq_dist]


def column_sum_of_squares():
    """(x * x).sum(axis=0) on 2048x2048 float32 (a column reduction fused with its producer)."""
    return _frameworks(lambda a: (a * a).sum(0), lambda xp: (lambda a: (a * a).sum(0)),
                       [_mat2048()])


def standardize_columns():
    """(x - x.mean(0)) / x.std(0) on 2048x2048 float32 (column statistics, then spread back)."""
    f = lambda a: (a - a.mean(0)) / a.std(0)  # noqa: E731
    return _frameworks(f, lambda xp: f, [_mat2048()])


def top_k_rows():
    """lax.top_k(x, 8) over rows of 4096x1024 float32 (a sort read in its first 8)."""
    x = np.random.default_rng(0).standard_normal((4096, 1024)).astype(np.float32)
    def make(xp):
        lax = jax.lax if (jax is not None and xp is jjnp) else xjit.lax
        return lambda a: lax.top_k(a, 8)
    def np_top_k(a):
        i = np.argsort(-a, axis=1, kind="stable")[:, :8]
        return np.take_along_axis(a, i, 1), i
    return _frameworks(np_top_k, make, [x])


def quantize_int8_4m():
    """round(clip(x, -1, 1) * 127).astype(int8) on 4M float32 (a fused float -> int store)."""
    def make(xp):
        return lambda a: xp.round(xp.clip(a, -1, 1) * 127).astype(xp.int8)
    return _frameworks(make(np), make, [_vec4m()])


def pairwise_sq_dist_64():
    """((x[:, None] - y[None]) ** 2).sum(-1) for 512 x 512 points of 64 dims (short rows)."""
    rng = np.random.default_rng(0)
    args = [rng.standard_normal((512, 64)).astype(np.float32) for _ in range(2)]
    f = lambda a, b: ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)  # noqa: E731
    return _frameworks(f, lambda xp: f, args)


ALL += [column_sum_of_squares, standardize_columns, top_k_rows, quantize_int8_4m,
        pairwise_sq_dist_64]
