"""Issue 7's convolution target: xjit's conv3x3+ReLU (workloads.conv3x3_relu_*)
against oneDNN alone on the same shapes, in one process.

"oneDNN alone" is onednn_alone/conv3x3_relu.cc (compiled here with g++
against the oneDNN wheel xjit builds with): oneDNN's preferred layouts, the
relu post-op, weights reordered once, the activations' reorders per call for
NCHW data. Blocks of 15 timed calls alternate between the two (the first
three of each block dropped), 12 blocks; prints the minimum and median per
call and their ratios.

    python benchmarks/conv_vs_onednn.py [NHWC] [NCHW]
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


def _alone_library():
    prefix = _onednn_prefix()
    out = os.path.join(tempfile.mkdtemp(prefix="xjit_onednn_alone_"), "libconv3x3_relu.so")
    subprocess.check_call(["g++", "-O2", "-shared", "-fPIC", "-std=c++17",
                           os.path.join(HERE, "onednn_alone", "conv3x3_relu.cc"),
                           f"-I{prefix}/include", f"-L{prefix}/lib", "-ldnnl",
                           f"-Wl,-rpath,{prefix}/lib", "-o", out])
    lib = ctypes.CDLL(out)
    lib.run.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
    return lib


def compare(lib, layout: str, blocks: int = 12, per_block: int = 18, skip: int = 3) -> None:
    nchw = layout == "NCHW"
    rng = np.random.default_rng(0)
    dn = ("NCHW", "OIHW", "NCHW") if nchw else ("NHWC", "HWIO", "NHWC")
    x = rng.standard_normal((8, 64, 28, 28) if nchw else (8, 28, 28, 64)).astype(np.float32)
    k = (rng.standard_normal((64, 64, 3, 3) if nchw else (3, 3, 64, 64)) / 24).astype(np.float32)
    f = xjit.jit(lambda a, b: xjnp.maximum(xjit.lax.conv_general_dilated(
        a, b, (1, 1), "SAME", dimension_numbers=dn), 0.0))
    xa, ka = xjit.device_put(x), xjit.device_put(k)
    for _ in range(5):
        f(xa, ka).block_until_ready()
    ours, alone = [], []
    buf = (ctypes.c_double * per_block)()
    for _ in range(blocks):
        for i in range(per_block):
            t = time.perf_counter()
            f(xa, ka).block_until_ready()
            if i >= skip:
                ours.append((time.perf_counter() - t) * 1e3)
        lib.run(int(nchw), per_block, buf)
        alone.extend(list(buf)[skip:])
    ours.sort()
    alone.sort()
    m = len(ours) // 2
    print(f"conv3x3_relu_{layout.lower()}: xjit min {ours[0]:.3f} med {ours[m]:.3f} ms | "
          f"oneDNN alone min {alone[0]:.3f} med {alone[m]:.3f} ms | "
          f"ratio min {ours[0] / alone[0]:.3f} med {ours[m] / alone[m]:.3f}", flush=True)


def main(layouts):
    if not sysconfig.get_platform().startswith("linux"):
        sys.exit("conv_vs_onednn.py: Linux only (g++ and the oneDNN wheel)")
    lib = _alone_library()
    for layout in layouts or ["NHWC", "NCHW"]:
        compare(lib, layout)


if __name__ == "__main__":
    main(sys.argv[1:])
