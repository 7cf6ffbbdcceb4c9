"""Times workloads of workloads.py on xjit and JAX alternately (five rounds of
harness.time_call each) and prints the ratio of the minimums and of the
medians: on a shared, noisy machine a single run of run.py can put a burst of
outside load on one framework only.

    python benchmarks/alternate.py softmax_rows layer_norm
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workloads  # noqa: E402
from harness import time_call  # noqa: E402


def main(names):
    for name in names:
        fns = getattr(workloads, name)()
        if "jax" not in fns:
            print(f"{name}: JAX is not installed")
            continue
        xs, js = [], []
        for _ in range(5):
            xs.append(time_call(fns["xjit"], min_time=0.1, settle_time=0.05))
            js.append(time_call(fns["jax"], min_time=0.1, settle_time=0.05))
        xs.sort()
        js.sort()
        print(f"{name:28s} xjit {xs[0] * 1e6:9.1f}us  jax {js[0] * 1e6:9.1f}us  "
              f"ratio(min) {xs[0] / js[0]:.2f}  ratio(median) {xs[2] / js[2]:.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
