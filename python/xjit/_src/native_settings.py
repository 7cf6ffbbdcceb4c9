"""Settings the native libraries under ``_xjit`` read from the environment
once, when they load: ``xjit/__init__.py`` applies them before it imports
``_xjit``. A value the user set is always kept."""

# OpenMP workers spin only briefly (GOMP_SPINCOUNT=1000, about 10 us by
# libgomp's own estimate) before they sleep between parallel regions.
# libgomp's default spin (300000) made calls 20-150x slower whenever the
# 2-core VM had other work, because spinning workers held the cores the
# working threads needed; passive waiting (no spin) made OpenBLAS's
# factorizations, with their many short parallel regions, 3-6x slower on a
# quiet machine (docs/performance.md).
#
# OMP_WAIT_POLICY=active keeps that spin when libgomp's threads outnumber the
# cores: it then switches to a "throttled" count, min(100, GOMP_SPINCOUNT)
# without a policy and min(1000, GOMP_SPINCOUNT) with the active one. The
# caller's thread (inline runs) and the device's thread each own a team, so on
# 2 cores that is always the case once both have run a parallel region: with
# 100 spins the worker slept between every two regions, and each region paid
# two wake-ups of an idle vCPU, about 100 us (cnn_grad_step: 1050 us against
# 250 us with the policy set; docs/performance.md).
OPENMP = {"GOMP_SPINCOUNT": "1000", "OMP_WAIT_POLICY": "active"}


def apply(environ):
    """Sets the defaults above in `environ` (os.environ) where the user set none."""
    if "OMP_WAIT_POLICY" not in environ and "GOMP_SPINCOUNT" not in environ:
        environ.update(OPENMP)
