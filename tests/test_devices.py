"""Several devices per client: JAX's XLA_FLAGS=--xla_force_host_platform_device_count=N
gives N cpu devices; device_put, jit and eager ops run on the device asked for."""
import os
import pathlib
import subprocess
import sys

import xjit

SCRIPT = r"""
import numpy as np
import xjit
import xjit.numpy as jnp

devs = xjit.devices()
assert [d.id for d in devs] == [0, 1, 2], devs
assert repr(devs[2]) == "CpuDevice(id=2)" and xjit.device_count() == 3
assert len(xjit.devices("reference")) == 1  # the flag is the cpu platform's

x = xjit.device_put(np.arange(3.0), devs[2])
assert x.device == devs[2]
f = xjit.jit(lambda v: v * 2)
for _ in range(2):  # the miss, then the C++ fast path
    y = f(x)
    assert y.device == devs[2], y.device
    np.testing.assert_array_equal(np.asarray(y), [0, 2, 4])
z = f(xjit.device_put(np.arange(3.0), devs[1]))
assert z.device == devs[1]
assert f(np.arange(3.0)).device == devs[0]  # no array: the default device
assert (x + 1).device == devs[2]  # eager ops follow their operands
moved = xjit.device_put(x, devs[0])
assert moved.device == devs[0]
np.testing.assert_array_equal(np.asarray(moved), [0, 1, 2])

g = xjit.jit(lambda v: v + 1, donate_argnums=0)
w = xjit.device_put(np.ones(3, np.float32), devs[1])
out = g(w)
assert w.is_deleted() and out.device == devs[1]
print("ok")
"""


def run(env_flags):
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)
    if env_flags is not None:
        env["XLA_FLAGS"] = env_flags
    return subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, cwd=pathlib.Path(__file__).parent)


def test_forced_host_device_count():
    result = run("--xla_cpu_use_thunk_runtime=false --xla_force_host_platform_device_count=3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_default_is_one_device():
    if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
        assert [d.id for d in xjit.devices()] == [0]
    result = subprocess.run(
        [sys.executable, "-c", "import xjit; print(len(xjit.devices()))"],
        capture_output=True, text=True, cwd=pathlib.Path(__file__).parent,
        env={k: v for k, v in os.environ.items() if k != "XLA_FLAGS"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1"


def test_exit_with_work_still_queued_does_not_crash():
    # An uncaught exception right after an asynchronous LAPACK call: Python
    # exits while the worker still runs sgesdd. Exit waits for the work; it
    # used to segfault inside OpenBLAS, whose exit handlers had run.
    import subprocess
    import sys
    code = ("import numpy as np, xjit, xjit.numpy as jnp\n"
            "a = np.random.default_rng(0).standard_normal((384, 384)).astype(np.float32)\n"
            "u, s, vh = xjit.jit(jnp.linalg.svd)(a)\n"
            "raise SystemExit(3)\n")
    for _ in range(3):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert r.returncode == 3, r.stderr
