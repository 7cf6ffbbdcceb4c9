"""The CUDA backend (issue 13).

Without a GPU (every CI machine): the package still imports, ``devices()``
lists the cpu only, asking for the GPU is JAX's ``RuntimeError``, and, where
the package was built with the CUDA toolkit, every program below is lowered
for the cuda backend and its generated kernels compile with NVRTC for sm_80
and sm_90 (``_xjit.cuda_codegen``: no GPU needed). With a GPU, the same
programs run on it and are compared with the cpu backend.
"""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import _xjit, lax

HAS_CUDA_BUILD = hasattr(_xjit, "cuda_codegen")


def _gpu_devices():
    try:
        return xjit.devices("gpu")
    except RuntimeError:
        return []


GPUS = _gpu_devices()
needs_build = pytest.mark.skipif(not HAS_CUDA_BUILD, reason="built without the CUDA toolkit")
needs_gpu = pytest.mark.skipif(not GPUS, reason="no CUDA GPU on this machine")

rng = np.random.default_rng(0)
F32 = rng.standard_normal((64, 48)).astype(np.float32)
F32B = rng.standard_normal((64, 48)).astype(np.float32)
I32 = rng.integers(-50, 50, (7, 9)).astype(np.int32)
W = rng.standard_normal((48, 32)).astype(np.float32)

# (name, function, arguments): each a program the cuda backend runs.
PROGRAMS = [
    ("elementwise_chain", lambda x: jnp.tanh(x * 1.5 + 0.5) * jnp.exp(-x * x)
     + jnp.maximum(x, 0.1) / (1 + jnp.abs(x)), (F32,)),
    ("binary_ops", lambda x, y: (x - y, x * y, x / y, jnp.minimum(x, y), x ** 2,
                                 jnp.arctan2(x, y), jnp.remainder(x, y)), (F32, F32B)),
    ("unary_ops", lambda x: (jnp.sin(x), jnp.cos(x), jnp.log1p(jnp.abs(x)), jnp.floor(x),
                             jnp.round(x), jnp.sign(x), jnp.sqrt(jnp.abs(x)),
                             lax.logistic(x), jnp.isfinite(x)), (F32,)),
    ("compare_select", lambda x, y: jnp.where(x > y, x, y * 2), (F32, F32B)),
    ("integers", lambda a: (a // 3, a % 4, a << 2, a >> 1, a & 5, -a, jnp.abs(a),
                            a.astype(np.float32)), (I32,)),
    ("convert_f16_bf16", lambda x: (x.astype(jnp.float16) * 2, x.astype(jnp.bfloat16) + 1),
     (F32,)),
    ("sum_max_rows", lambda x: (x.sum(axis=1), x.max(axis=0), x.sum()), (F32,)),
    ("softmax", lambda x: xjit.nn.softmax(x, axis=-1), (F32,)),
    ("mean_var", lambda x: (x.mean(axis=0), x.var(axis=0)), (F32,)),
    ("matmul", lambda x, w: x @ w, (F32, W)),
    ("matmul_transposed", lambda x, w: x.T @ x + (w @ w.T).sum(), (F32, W)),
    ("batched_matmul", lambda a, b: jnp.einsum("bij,bjk->bik", a, b),
     (F32.reshape(4, 16, 48), rng.standard_normal((4, 48, 8)).astype(np.float32))),
    ("mlp_layer", lambda x, w: jnp.maximum(x @ w + 1.0, 0.0), (F32, W)),
    ("transpose_slice_reverse", lambda x: (x.T, x[3:40:2, ::-1], x[:, 5]), (F32,)),
    ("concatenate_pad", lambda x, y: (jnp.concatenate([x, y], axis=1),
                                      jnp.pad(x, ((1, 2), (3, 0)), constant_values=7.0)),
     (F32, F32B)),
    ("broadcast_iota", lambda x: x + jnp.arange(48, dtype=np.float32)[None, :]
     + jnp.arange(64, dtype=np.float32)[:, None], (F32,)),
    ("argmax_argmin", lambda x: (jnp.argmax(x, axis=1), jnp.argmin(x, axis=0),
                                 jnp.argmax(x.reshape(-1))), (F32,)),
    ("dynamic_slices", lambda x, i: (lax.dynamic_slice(x, (i, i + 1), (8, 4)),
                                     lax.dynamic_update_slice(x, jnp.ones((2, 3), np.float32),
                                                              (i * 30, i))),
     (F32, np.int32(3))),
    ("fori_loop", lambda x: lax.fori_loop(0, 10, lambda i, v: v * 0.9 + i, x), (F32,)),
    ("scan_rnn", lambda h, xs, w: lax.scan(lambda c, x: (jnp.tanh(c @ w + x), c.sum()), h, xs),
     (F32[:4, :32], rng.standard_normal((20, 4, 32)).astype(np.float32),
      (rng.standard_normal((32, 32)) * 0.1).astype(np.float32))),
    ("cond_switch", lambda x, p, k: (lax.cond(p, lambda v: v + 1, lambda v: v * 2, x),
                                     lax.switch(k, [jnp.sin, jnp.cos, jnp.tanh], x)),
     (F32, np.bool_(True), np.int32(5))),
    ("gather_take", lambda x, idx: (x[idx], jnp.take(x, idx, axis=1), x[idx, 3]),
     (F32, np.array([0, 5, 63, 2, 5], np.int32))),
    ("scatter_add_set_max", lambda x, idx, v: (x.at[idx].add(v), x.at[idx].set(v), x.at[idx].max(v),
                                               x.astype(np.int32).at[idx].min(v.astype(np.int32))),
     (F32, np.array([1, 7, 1, 40], np.int32), np.ones((4, 48), np.float32))),
    ("max_avg_pool", lambda x: (lax.reduce_window(x, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"),
                                lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME")),
     (F32.reshape(2, 8, 12, 16),)),
    ("max_pool_grad", lambda x: xjit.grad(lambda y: lax.reduce_window(
        y, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID").sum())(x), (F32.reshape(2, 8, 12, 16),)),
    ("conv_nhwc_and_grad", lambda x, k: (lax.conv_general_dilated(
        x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
        xjit.grad(lambda k: lax.conv_general_dilated(
            x, k, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")).sum())(k)),
     (F32.reshape(2, 8, 12, 16), rng.standard_normal((3, 3, 16, 4)).astype(np.float32))),
    ("cumsum", lambda x: (jnp.cumsum(x, axis=0), jnp.cumprod(x[:5], axis=1)), (F32,)),
    ("random_normal", lambda key: xjit.random.normal(key, (1000,)), (np.array([0, 42], np.uint32),)),
    ("reduce_body_with_a_constant", lambda x: lax.reduce(x, np.float32(0), lambda a, b: a + 2 * b, (1,)),
     (F32,)),
    ("sort_argsort_topk", lambda x, v: (jnp.sort(x, axis=1), jnp.argsort(x, axis=0), lax.top_k(x, 5),
                                        jnp.sort(v), jnp.argsort(v, stable=True)),
     (F32[:, :37], np.array([3, 1, 2, 3, 1, 0, 2, 3, np.nan, -0.0, 0.0, -np.inf], np.float32))),
    ("constants_and_reshape", lambda x: (x.reshape(48, 64) * np.float32(3)).reshape(-1)[:10]
     + np.arange(10, dtype=np.float32), (F32,)),
]


def _module_text(fun, args):
    return xjit.jit(fun).lower(*args).as_text()


def test_the_cpu_stays_the_default_without_a_gpu():
    assert xjit.default_backend() == "cpu"
    assert all(d.platform == "cpu" for d in xjit.devices())
    if not GPUS:
        with pytest.raises(RuntimeError, match="gpu"):
            xjit.devices("gpu")
        with pytest.raises(RuntimeError):
            xjit.devices("cuda")


@needs_build
def test_cuda_is_a_registered_platform():
    assert "cuda" in _xjit.platforms()
    assert _xjit.platforms()[0] == "cpu"
    assert _xjit.cuda_nvrtc_version().split(".")[0].isdigit()


@needs_build
@pytest.mark.parametrize("name,fun,args", PROGRAMS, ids=[p[0] for p in PROGRAMS])
@pytest.mark.parametrize("arch", [(8, 0), (9, 0)], ids=["sm80", "sm90"])
def test_kernels_compile_with_nvrtc(name, fun, args, arch):
    out = _xjit.cuda_codegen(_module_text(fun, args), *arch)
    assert out["ptx_bytes"] > 0 and out["steps"] >= 1
    if "matmul" not in name:  # a lone matmul is a cuBLASLt call, no kernel
        assert 'extern "C" __global__' in out["source"]


def _compare(got, want, what):
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (what, k)
        if g.dtype.kind in "fcV":  # V: bfloat16 and other ml_dtypes
            g64 = g.astype(np.complex128 if g.dtype.kind == "c" else np.float64)
            w64 = w.astype(np.complex128 if w.dtype.kind == "c" else np.float64)
            np.testing.assert_allclose(g64, w64, rtol=2e-5 if g.itemsize >= 4 else 1e-2,
                                       atol=1e-5, err_msg=f"{what} result {k}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{what} result {k}")


@needs_build
@pytest.mark.parametrize("name,fun,args", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_generated_kernels_run_on_the_host_like_the_cpu(name, fun, args):
    """The lowered program's kernels compiled for the host (g++, one thread:
    _xjit.cuda_emulate) compute what the cpu backend does. What this cannot
    show: races, atomics under contention, NVRTC's code, libdevice's
    rounding."""
    lowered = xjit.jit(fun).lower(*args)
    want = xjit.tree_util.tree_leaves(xjit.jit(fun)(*args))
    leaves = [np.asarray(a) for a in xjit.tree_util.tree_leaves(args)]
    leaves = [a.astype(np.float32) if a.dtype == np.float64 else a for a in leaves]
    got = _xjit.cuda_emulate(lowered.as_text(), leaves)
    _compare(got, want, name)


@needs_build
def test_an_op_without_a_gpu_kernel_says_so():
    text = _module_text(lambda x: jnp.fft.fft(x), (F32[0],))
    with pytest.raises(NotImplementedError, match="fft.*cuda backend"):
        _xjit.cuda_codegen(text)


@needs_build
def test_jax_platforms_asking_for_a_missing_gpu_is_an_error():
    if GPUS:
        pytest.skip("a GPU is present")
    xjit.config.update("jax_platforms", "cuda")
    try:
        with pytest.raises(RuntimeError, match="jax_platforms"):
            xjit.default_backend()
    finally:
        xjit.config.update("jax_platforms", None)
    xjit.config.update("jax_platforms", "cuda,cpu")
    try:
        assert xjit.default_backend() == "cpu"
    finally:
        xjit.config.update("jax_platforms", None)


@pytest.fixture
def on_gpu():
    xjit.config.update("jax_default_device", GPUS[0])
    try:
        yield GPUS[0]
    finally:
        xjit.config.update("jax_default_device", None)


def _as_list(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


@needs_gpu
@pytest.mark.parametrize("name,fun,args", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_programs_match_the_cpu(name, fun, args, on_gpu):
    got = _as_list(xjit.jit(fun)(*args))
    assert all(g.device == on_gpu for g in got)
    xjit.config.update("jax_default_device", None)
    want = _as_list(xjit.jit(fun)(*args))
    _compare(got, want, name)


@needs_gpu
def test_device_put_round_trip_and_eager_ops(on_gpu):
    x = xjit.device_put(F32, on_gpu)
    assert x.device == on_gpu
    np.testing.assert_array_equal(np.asarray(x), F32)
    np.testing.assert_allclose(np.asarray(x + 1), F32 + 1, rtol=1e-6)
    back = xjit.device_put(x, xjit.devices("cpu")[0])
    np.testing.assert_array_equal(np.asarray(back), F32)


@needs_gpu
def test_out_of_memory_is_a_clean_error_and_the_gpu_keeps_working(on_gpu):
    # A parameter broadcast (not a constant, which compile-time folding
    # would build on the host): the 4 TiB result is asked of the GPU.
    with pytest.raises(Exception, match="(?i)out of memory"):
        xjit.jit(lambda x: jnp.broadcast_to(x, (1 << 40,)) * 2)(np.float32(1))
    np.testing.assert_allclose(np.asarray(xjit.jit(lambda x: x * 2)(F32)), F32 * 2)
