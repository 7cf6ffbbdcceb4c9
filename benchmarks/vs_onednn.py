"""xjit against oneDNN alone on the same work, in one process: issue 7's
convolution target (conv3x3+ReLU, workloads.conv3x3_relu_*) and issue 12's
matmul target (n x n float32 at 256, 512, 1024, 2048).

"oneDNN alone" is a small C++ program compiled here with g++ against the
oneDNN wheel xjit builds with: onednn_alone/conv3x3_relu.cc (oneDNN's
preferred layouts, the relu post-op, weights reordered once, the
activations' reorders per call for NCHW data) and onednn_alone/matmul.cc
(row-major operands, the primitive created once, as benchdnn runs it).
Blocks of timed calls alternate between the two (the first three of each
block dropped), 12 blocks; prints the minimum and median per call and their
ratios.

    python benchmarks/vs_onednn.py [NHWC] [NCHW] [matmul]
"""
import ctypes
import os
import subprocess
import sys
import sysconfig
import tempfile
import time

import numpy as np

import xjit
import xjit.numpy as xjnp

HERE = os.path.dirname(os.path.abspath(__file__))


def _onednn_prefix() -> str:
    tool = os.path.join(HERE, "..", "tools", "find_onednn.py")
    cmake_dir = subprocess.check_output([sys.executable, tool], text=True).strip()
    return os.path.dirname(os.path.dirname(os.path.dirname(cmake_dir)))  # <prefix>/lib/cmake/dnnl


def _alone_library(source: str):
    """onednn_alone/<source>.cc built and loaded; its run(int, int, double*)."""
    prefix = _onednn_prefix()
    out = os.path.join(tempfile.mkdtemp(prefix="xjit_onednn_alone_"), f"lib{source}.so")
    subprocess.check_call(["g++", "-O2", "-shared", "-fPIC", "-std=c++17",
                           os.path.join(HERE, "onednn_alone", f"{source}.cc"),
                           f"-I{prefix}/include", f"-L{prefix}/lib", "-ldnnl",
                           f"-Wl,-rpath,{prefix}/lib", "-o", out])
    lib = ctypes.CDLL(out)
    lib.run.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
    return lib


def _alternate(name, ours_call, alone_call, blocks=12, per_block=18, skip=3):
    """Blocks of per_block calls of each, alternating; prints minimum and median."""
    for _ in range(5):
        ours_call()
    ours, alone = [], []
    buf = (ctypes.c_double * per_block)()
    for _ in range(blocks):
        for i in range(per_block):
            t = time.perf_counter()
            ours_call()
            if i >= skip:
                ours.append((time.perf_counter() - t) * 1e3)
        alone_call(per_block, buf)
        alone.extend(list(buf)[skip:])
    ours.sort()
    alone.sort()
    m = len(ours) // 2
    print(f"{name}: xjit min {ours[0]:.3f} med {ours[m]:.3f} ms | "
          f"oneDNN alone min {alone[0]:.3f} med {alone[m]:.3f} ms | "
          f"ratio min {ours[0] / alone[0]:.3f} med {ours[m] / alone[m]:.3f}", flush=True)


def compare_matmul(lib, n: int) -> None:
    rng = np.random.default_rng(0)
    a = xjit.device_put(rng.standard_normal((n, n)).astype(np.float32))
    b = xjit.device_put(rng.standard_normal((n, n)).astype(np.float32))
    f = xjit.jit(lambda x, y: x @ y)
    per_block = max(4, min(18, int(2e9 / n ** 3)))
    _alternate(f"matmul_{n}", lambda: f(a, b).block_until_ready(),
               lambda reps, buf: lib.run(n, reps, buf), per_block=per_block,
               skip=min(3, per_block - 2))


def compare_conv(lib, layout: str) -> None:
    nchw = layout == "NCHW"
    rng = np.random.default_rng(0)
    dn = ("NCHW", "OIHW", "NCHW") if nchw else ("NHWC", "HWIO", "NHWC")
    x = rng.standard_normal((8, 64, 28, 28) if nchw else (8, 28, 28, 64)).astype(np.float32)
    k = (rng.standard_normal((64, 64, 3, 3) if nchw else (3, 3, 64, 64)) / 24).astype(np.float32)
    f = xjit.jit(lambda a, b: xjnp.maximum(xjit.lax.conv_general_dilated(
        a, b, (1, 1), "SAME", dimension_numbers=dn), 0.0))
    xa, ka = xjit.device_put(x), xjit.device_put(k)
    _alternate(f"conv3x3_relu_{layout.lower()}", lambda: f(xa, ka).block_until_ready(),
               lambda reps, buf: lib.run(int(nchw), reps, buf))


def main(names):
    if not sysconfig.get_platform().startswith("linux"):
        sys.exit("vs_onednn.py: Linux only (g++ and the oneDNN wheel)")
    names = names or ["NHWC", "NCHW", "matmul"]
    layouts = [n for n in names if n in ("NHWC", "NCHW")]
    if layouts:
        lib = _alone_library("conv3x3_relu")
        for layout in layouts:
            compare_conv(lib, layout)
    if "matmul" in names:
        lib = _alone_library("matmul")
        for n in (256, 512, 1024, 2048):
            compare_matmul(lib, n)


if __name__ == "__main__":
    main(sys.argv[1:])
