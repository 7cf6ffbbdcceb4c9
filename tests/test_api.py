"""Top-level API: devices, device_put, config, environment info."""
import numpy as np
import pytest

import xjit


def test_devices_and_backend():
    assert xjit.default_backend() == "cpu"
    devs = xjit.devices()
    assert devs and devs[0].platform == "cpu"
    assert xjit.device_count() == len(devs)
    assert xjit.local_devices() == devs or len(xjit.local_devices()) == len(devs)
    ref = xjit.devices("reference")
    assert ref[0].platform == "reference"
    with pytest.raises(RuntimeError, match="Unknown backend"):
        xjit.devices("tpu")


def test_device_put_arrays_scalars_and_pytrees():
    a = xjit.device_put(np.arange(3))
    assert isinstance(a, xjit.Array) and a.dtype == np.int32 and not a.weak_type
    s = xjit.device_put(2.0)
    assert s.weak_type and s.dtype == np.float32
    tree = xjit.device_put({"x": np.ones(2, np.float64), "y": [True]})
    assert tree["x"].dtype == np.float32 and tree["y"][0].dtype == np.bool_
    ref = xjit.devices("reference")[0]
    r = xjit.device_put(a, ref)
    assert r.device.platform == "reference"
    np.testing.assert_array_equal(np.asarray(r), [0, 1, 2])


def test_config_x64_flag():
    assert xjit.config.jax_enable_x64 is False
    xjit.config.update("jax_enable_x64", True)
    try:
        assert xjit.device_put(np.arange(2)).dtype == np.int64
        assert xjit.device_put(1.0).dtype == np.float64
    finally:
        xjit.config.update("jax_enable_x64", False)
    assert xjit.device_put(np.arange(2)).dtype == np.int32
    with pytest.raises(AttributeError):
        xjit.config.update("jax_no_such_flag", 1)


def test_platform_name_selects_default_device():
    xjit.config.update("jax_platform_name", "reference")
    try:
        assert xjit.default_backend() == "reference"
        assert xjit.device_put(np.ones(2)).device.platform == "reference"
    finally:
        xjit.config.update("jax_platform_name", None)


def test_print_environment_info(capsys):
    xjit.print_environment_info()
    out = capsys.readouterr().out
    for word in ("xjit", "numpy", "oneDNN", "cpu"):
        assert word in out


def test_shape_dtype_struct_lowering():
    spec = xjit.ShapeDtypeStruct((2, 3), np.float32)
    text = xjit.jit(lambda x: xjit.lax.mul(x, 2.0)).lower(spec).as_text()
    assert "stablehlo.multiply" in text and "2x3xf32" in text


def test_eval_shape_runs_nothing_and_reports_avals():
    calls = []

    def f(x, y):
        calls.append(1)
        return {"s": xjit.lax.add(x, y), "n": xjit.lax.reduce_sum(x, (0,))}

    spec = xjit.ShapeDtypeStruct((4, 2), np.float32)
    out = xjit.eval_shape(f, spec, np.ones((4, 2), np.float32))
    assert out["s"].shape == (4, 2) and out["s"].dtype == np.float32
    assert out["n"].shape == (2,)
    assert len(calls) == 1


def test_block_until_ready_returns_its_argument():
    tree = {"a": xjit.device_put(np.arange(3)), "b": [1]}
    assert xjit.block_until_ready(tree) is tree


def test_disable_jit_runs_python_op_by_op():
    seen = []

    @xjit.jit
    def f(x, n):
        seen.append(type(x).__name__)
        if x.sum() > 0:  # concrete under disable_jit; an error when traced
            return x * n
        return x - n

    x = np.arange(3.0, dtype=np.float32)
    with xjit.disable_jit():
        np.testing.assert_array_equal(np.asarray(f(x, 2)), x * 2)
        np.testing.assert_array_equal(np.asarray(f(-x, 2)), -x - 2)
        assert xjit.config.jax_disable_jit
    assert seen == ["ndarray", "ndarray"]
    assert not xjit.config.jax_disable_jit
    with pytest.raises(Exception):
        f(x, 2)  # traced again: Python control flow on a tracer
    g = xjit.jit(lambda x: x + 1)
    with xjit.disable_jit():
        with xjit.disable_jit(False):
            assert float(g(1.0)) == 2.0 and g._cache_size() == 1
        assert xjit.config.jax_disable_jit
    xjit.config.update("jax_disable_jit", True)
    try:
        assert float(g(np.float32(3))) == 4.0 and g._cache_size() == 1
    finally:
        xjit.config.update("jax_disable_jit", False)


def test_device_get_and_make_jaxpr():
    tree = {"a": xjit.device_put(np.arange(3, dtype=np.int32)), "b": [1.5, None]}
    got = xjit.device_get(tree)
    assert isinstance(got["a"], np.ndarray) and got["a"].dtype == np.int32
    np.testing.assert_array_equal(got["a"], [0, 1, 2])
    assert got["b"] == [1.5, None]
    text = str(xjit.make_jaxpr(lambda x: x * 2.0)(np.ones(2, np.float32)))
    assert "stablehlo.multiply" in text or "multiply" in text


@pytest.mark.parametrize("preset,want", [
    (None, "GOMP_SPINCOUNT=1000 OMP_WAIT_POLICY=active"),
    ({"OMP_WAIT_POLICY": "ACTIVE"}, "GOMP_SPINCOUNT=None OMP_WAIT_POLICY=ACTIVE"),
    ({"GOMP_SPINCOUNT": "50"}, "GOMP_SPINCOUNT=50 OMP_WAIT_POLICY=None"),
])
def test_openmp_spins_briefly_unless_the_user_says_otherwise(preset, want):
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(preset or {})
    code = ("import os, xjit; g = os.environ.get; "
            "print(f\"GOMP_SPINCOUNT={g('GOMP_SPINCOUNT')} OMP_WAIT_POLICY={g('OMP_WAIT_POLICY')}\")")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == want



def test_native_settings_fill_in_only_what_the_user_left_unset():
    from xjit._src import native_settings
    env = {}
    native_settings.apply(env)
    assert env == native_settings.OPENMP
    kept = {"OMP_WAIT_POLICY": "passive"}
    native_settings.apply(kept)
    assert kept == {"OMP_WAIT_POLICY": "passive"}
