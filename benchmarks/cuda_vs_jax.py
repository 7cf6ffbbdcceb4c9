"""xjit's cuda backend against JAX on the same GPU (issue 13), in one process.

Each workload runs on both frameworks alternately (five rounds of
harness.time_call each; inputs already on the GPU) and prints the ratio of
the minimums and of the medians, xjit / JAX. Two more references:
- matmul: cuBLAS alone, through PyTorch's torch.matmul (cuBLAS/cuBLASLt),
  when PyTorch is installed: the target is >= 90% of its speed;
- element-wise chain: a device-to-device copy of the same bytes (torch or
  JAX), the bandwidth the chain should reach 80% of.
Workloads whose ops the cuda backend cannot run yet print the reason.

    python benchmarks/cuda_vs_jax.py [names...]   # JSON to $OUT/cuda_vs_jax.json if OUT is set
"""
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import block, time_call  # noqa: E402


def _frameworks():
    import jax
    import jax.numpy as jjnp

    import xjit
    import xjit.numpy as xjnp

    gpu = xjit.devices("gpu")[0]
    xjit.config.update("jax_default_device", gpu)
    return {"xjit": (xjit, xjnp, gpu), "jax": (jax, jjnp, jax.devices("gpu")[0])}


def _put(fw, dev, x):
    return fw.device_put(x, dev)


def workloads(frameworks):
    rng = np.random.default_rng(0)
    out = {}

    def add(name, build, *arrays, flops=None, bytes_moved=None):
        out[name] = (build, arrays, flops, bytes_moved)

    n = 4096
    a32 = rng.standard_normal((n, n), dtype=np.float32)
    b32 = rng.standard_normal((n, n), dtype=np.float32)
    add("matmul_4096_f32", lambda fw, np_: (lambda a, b: a @ b), a32, b32, flops=2 * n ** 3)
    add("matmul_4096_bf16", lambda fw, np_: (lambda a, b: (a.astype(np_.bfloat16) @ b.astype(np_.bfloat16))),
        a32, b32, flops=2 * n ** 3)
    x64m = rng.standard_normal(64 << 20, dtype=np.float32)
    add("elementwise_chain_64m",
        lambda fw, np_: (lambda x: np_.tanh(x * 1.5 + 0.5) * np_.exp(-x * x)
                         + np_.maximum(x, 0.1) / (1 + np_.abs(x))),
        x64m, bytes_moved=8 * x64m.size)
    rows = rng.standard_normal((4096, 4096), dtype=np.float32)
    add("softmax_rows_4096", lambda fw, np_: (lambda x: fw.nn.softmax(x, axis=-1)), rows)
    img = rng.standard_normal((64, 56, 56, 64), dtype=np.float32)
    ker = (rng.standard_normal((3, 3, 64, 64)) * 0.05).astype(np.float32)
    add("conv3x3_relu_nhwc",
        lambda fw, np_: (lambda x, k: np_.maximum(fw.lax.conv_general_dilated(
            x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")), 0.0)), img, ker)
    w1 = (rng.standard_normal((784, 512)) * 0.05).astype(np.float32)
    w2 = (rng.standard_normal((512, 512)) * 0.05).astype(np.float32)
    w3 = (rng.standard_normal((512, 10)) * 0.05).astype(np.float32)
    xb = rng.standard_normal((128, 784), dtype=np.float32)
    yb = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)]

    def mlp_step(fw, np_):
        def loss(ws, x, y):
            h = np_.maximum(x @ ws[0], 0.0)
            h = np_.maximum(h @ ws[1], 0.0)
            logits = h @ ws[2]
            return -np_.mean(np_.sum(fw.nn.log_softmax(logits) * y, axis=-1))

        def step(w1, w2, w3, x, y):
            g = fw.grad(loss)((w1, w2, w3), x, y)
            return tuple(w - 0.01 * gw for w, gw in zip((w1, w2, w3), g))
        return step
    add("mlp_train_step", mlp_step, w1, w2, w3, xb, yb)
    h0 = rng.standard_normal((8, 256), dtype=np.float32)
    xs = rng.standard_normal((1000, 8, 256), dtype=np.float32)
    wr = (rng.standard_normal((256, 256)) * 0.05).astype(np.float32)
    add("scan_rnn_1000",
        lambda fw, np_: (lambda h, xs, w: fw.lax.scan(
            lambda c, x: (np_.tanh(c @ w + x), None), h, xs)[0]), h0, xs, wr)
    add("dispatch_1_arg", lambda fw, np_: (lambda x: x + 1), np.ones(16, np.float32))
    return out


def _reference_matmul(a, b, dtype_name):
    """Seconds per torch.matmul (cuBLAS) of a @ b in float32 or bfloat16."""
    try:
        import torch
    except ImportError:
        return None
    dtype = torch.bfloat16 if dtype_name == "bf16" else torch.float32
    ta = torch.from_numpy(a).cuda().to(dtype)
    tb = torch.from_numpy(b).cuda().to(dtype)

    def run():
        torch.matmul(ta, tb)
        torch.cuda.synchronize()
    return time_call(run, min_time=0.3)


def _copy_time(nbytes):
    try:
        import torch
    except ImportError:
        return None
    src = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)

    def run():
        dst.copy_(src)
        torch.cuda.synchronize()
    return time_call(run, min_time=0.3)


def main(names):
    try:
        frameworks = _frameworks()
    except (RuntimeError, ImportError) as e:
        print(f"cuda_vs_jax: needs an NVIDIA GPU and JAX with CUDA: {e}")
        return
    table = []
    for name, (build, arrays, flops, bytes_moved) in workloads(frameworks).items():
        if names and name not in names:
            continue
        fns = {}
        for key, (fw, np_, dev) in frameworks.items():
            args = [_put(fw, dev, a) for a in arrays]
            f = fw.jit(build(fw, np_))
            fns[key] = (lambda f=f, args=args: block(f(*args)))
        row = {"workload": name}
        try:
            t0 = time.perf_counter()
            fns["xjit"]()
            row["xjit_first_call_s"] = time.perf_counter() - t0
        except Exception as e:  # an op the cuda backend does not run yet
            row["xjit_error"] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
            print(f"{name:24s} xjit cannot run it: {row['xjit_error']}", flush=True)
            table.append(row)
            continue
        xs, js = [], []
        for _ in range(5):
            xs.append(time_call(fns["xjit"], min_time=0.2, settle_time=0.05))
            js.append(time_call(fns["jax"], min_time=0.2, settle_time=0.05))
        xs.sort()
        js.sort()
        row.update(xjit_us=xs[0] * 1e6, jax_us=js[0] * 1e6, ratio_min=xs[0] / js[0],
                   ratio_median=xs[2] / js[2])
        extra = ""
        if flops:
            row["xjit_tflops"] = flops / xs[0] / 1e12
            ref = _reference_matmul(arrays[0], arrays[1], "bf16" if "bf16" in name else "f32")
            if ref:
                row["cublas_us"] = ref * 1e6
                row["of_cublas"] = ref / xs[0]
                extra = f"  {row['xjit_tflops']:.0f} TFLOP/s, {row['of_cublas']:.0%} of cuBLAS alone"
        if bytes_moved:
            row["xjit_gb_s"] = bytes_moved / xs[0] / 1e9
            copy = _copy_time(bytes_moved // 2)
            if copy:
                row["copy_gb_s"] = bytes_moved / copy / 1e9
                extra = (f"  {row['xjit_gb_s']:.0f} GB/s = {row['xjit_gb_s'] / row['copy_gb_s']:.0%}"
                         f" of a copy's")
        print(f"{name:24s} xjit {xs[0] * 1e6:10.1f}us  jax {js[0] * 1e6:10.1f}us  "
              f"ratio(min) {row['ratio_min']:.2f}  ratio(median) {row['ratio_median']:.2f}{extra}",
              flush=True)
        table.append(row)
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "cuda_vs_jax.json"), "w") as f:
            json.dump(table, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
