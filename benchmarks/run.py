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


def main(filters):
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"numpy {np.__version__}; jax {'yes' if workloads.jax else 'not installed'}")
    print(f"{'workload':24s} {'numpy':>12s} {'xjit':>12s} {'jax':>12s} {'xjit/numpy':>11s} {'xjit/jax':>9s}")
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
        print(f"{workload.__name__:24s} {fmt(npt) if npt else '           -'} {fmt(xjt)} "
              f"{fmt(jxt) if jxt else '           -'} "
              f"{(f'{xjt / npt:10.2f}x') if npt else '          -'} "
              f"{(f'{xjt / jxt:8.2f}x') if jxt else '        -'}")


if __name__ == "__main__":
    main(sys.argv[1:])
