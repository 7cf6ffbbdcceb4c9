"""Runs every workload for numpy, xjit and JAX (when installed) in one process
and prints medians and xjit's ratio to each (ratio < 1: xjit is faster).

    python benchmarks/run.py [name-substring ...]
"""
import os
import platform
import sys

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402

import workloads  # noqa: E402
from harness import time_call  # noqa: E402


def fmt(seconds):
    return f"{seconds * 1e6:10.1f}us" if seconds < 1e-2 else f"{seconds * 1e3:10.2f}ms"


def copy_bandwidth(nbytes=64 << 20, threads=2):
    """Bytes a second (read + written) of a plain copy split over `threads`
    threads (numpy's copy releases the GIL), the best of 20: the bound the
    memory-bound workloads are held to."""
    from concurrent.futures import ThreadPoolExecutor
    src = np.ones(nbytes // 4, np.float32)
    dst = np.zeros_like(src)
    parts = np.array_split(np.arange(src.size), threads)
    bounds = [(p[0], p[-1] + 1) for p in parts]
    with ThreadPoolExecutor(threads) as pool:
        def copy():
            for f in [pool.submit(np.copyto, dst[a:b], src[a:b]) for a, b in bounds]:
                f.result()
        best = min(time_call(copy, min_time=0.02, settle_time=0.02) for _ in range(20))
    return 2 * nbytes / best


def bandwidth_report(xjit_times, jax_times):
    """Each memory-bound workload's bytes a second against the 2-thread copy's."""
    if not xjit_times:
        return
    copy = copy_bandwidth()
    print(f"\nbandwidth: plain 2-thread copy of 64 MB {copy / 1e9:.1f} GB/s")
    for name, t in xjit_times.items():
        moved = workloads.BYTES_MOVED[name]
        line = f"  {name:24s} xjit {moved / t / 1e9:5.1f} GB/s ({moved / t / copy:4.0%} of the copy)"
        if name in jax_times:
            line += f", jax {moved / jax_times[name] / 1e9:5.1f} GB/s ({moved / jax_times[name] / copy:4.0%})"
        print(line)


def main(filters):
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"numpy {np.__version__}; jax {'yes' if workloads.jax else 'not installed'}")
    print(f"{'workload':24s} {'numpy':>12s} {'xjit':>12s} {'jax':>12s} {'xjit/numpy':>11s} {'xjit/jax':>9s}")
    xjit_bound, jax_bound = {}, {}  # memory-bound workloads' times
    for workload in workloads.ALL:
        if filters and not any(f in workload.__name__ for f in filters):
            continue
        try:
            fns = workload()
        except ImportError as e:  # e.g. scikit-learn, which only the demo installs
            print(f"{workload.__name__:24s} skipped: {e}")
            continue
        times = {name: time_call(fn) for name, fn in fns.items()}
        npt, xjt, jxt = times.get("numpy"), times.get("xjit"), times.get("jax")
        if workload.__name__ in workloads.BYTES_MOVED:
            xjit_bound[workload.__name__] = xjt
            if jxt:
                jax_bound[workload.__name__] = jxt
        print(f"{workload.__name__:24s} {fmt(npt) if npt else '           -'} {fmt(xjt)} "
              f"{fmt(jxt) if jxt else '           -'} "
              f"{(f'{xjt / npt:10.2f}x') if npt else '          -'} "
              f"{(f'{xjt / jxt:8.2f}x') if jxt else '        -'}")
    bandwidth_report(xjit_bound, jax_bound)


if __name__ == "__main__":
    main(sys.argv[1:])
