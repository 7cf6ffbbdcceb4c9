"""Timing helpers shared by the workload files: a workload gives one callable
per framework; the runner times them in the same process and prints ratios."""
import statistics
import time


def time_call(fn, min_time=0.2, max_reps=10000, settle_time=0.15):
    """Median seconds per call of fn() (fn must block until its result is ready).

    Before timing, fn runs for settle_time seconds: the frameworks timed before
    it leave thread pools spinning (OpenBLAS's pthreads, used by numpy and by
    JAX's LAPACK calls, spin about 0.1 s after each call), and those would
    take the cores from the first timed calls on this 2-core machine."""
    fn()  # warm-up / compile
    start = time.perf_counter()
    while time.perf_counter() - start < settle_time:
        fn()
    times = []
    start = time.perf_counter()
    while (time.perf_counter() - start < min_time or len(times) < 5) and len(times) < max_reps:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def block(x):
    """Waits for an xjit or jax result (pytrees of arrays)."""
    if isinstance(x, dict):
        block(list(x.values()))
    elif isinstance(x, (tuple, list)):
        for y in x:
            block(y)
    elif hasattr(x, "block_until_ready"):
        x.block_until_ready()
    return x
