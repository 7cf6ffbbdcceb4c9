"""The core bindings of xjit._xjit (docs/bindings.md): graph building, devices,
device_put, compile/execute, xjit.Array, and bad input raising Python errors."""
import os
import subprocess
import sys
import threading

import ml_dtypes
import numpy as np
import pytest

try:  # a bare build directory on PYTHONPATH
    import _xjit
except ImportError:
    from xjit import _xjit

PLATFORMS = ["cpu", "reference"]

ALL_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
              np.uint32, np.uint64, np.float16, ml_dtypes.bfloat16, np.float32,
              np.float64, np.complex64, np.complex128]


def _add_module(shape=(2, 3), dtype="float32"):
    """main(x) = (x + 1.5, x)."""
    mb = _xjit.ModuleBuilder("jit_f")
    cb = mb.computation("main")
    x = cb.parameter(dtype, shape)
    c = cb.constant(np.asarray(1.5, dtype))
    cbig = cb.op("broadcast_in_dim", [c], {"broadcast_dimensions": [], "shape": shape})
    y = cb.op("add", [x, cbig], {}, [], "f.py:12")
    cb.finish([y, x])
    return mb.build(cb)


def _reduce_sum_module(shape, axis):
    mb = _xjit.ModuleBuilder("jit_sum")
    body = mb.computation("sum")
    a = body.parameter("float32", ())
    b = body.parameter("float32", ())
    body_comp = body.finish([body.op("add", [a, b])])
    cb = mb.computation("main")
    x = cb.parameter("float32", shape)
    zero = cb.constant(np.float32(0))
    r = cb.op("reduce", [x, zero], {"dimensions": [axis]}, [body_comp])
    cb.finish([r])
    return mb.build(cb)


# ---------------------------------------------------------------- building --

def test_builder_values_and_text():
    mb = _xjit.ModuleBuilder("jit_f")
    cb = mb.computation("main")
    x = cb.parameter("float32", (2, 3))
    assert x.shape == (2, 3) and x.dtype == "float32" and not x.is_tuple
    y = cb.op("exponential", [x], {}, [], "f.py:3")
    assert y.op == "exponential" and y.shape == (2, 3)
    t = cb.op("tuple", [x, y])
    assert t.is_tuple and t.dtype is None
    assert t.tuple_shapes == [("float32", (2, 3)), ("float32", (2, 3))]
    g = cb.op("get_tuple_element", [t], {"index": 1})
    assert g.shape == (2, 3)
    cb.finish([g])
    module = mb.build(cb)
    text = module.as_text()
    assert "stablehlo.exponential" in text and "func.func @main" in text
    assert module.parameter_shapes == [("float32", (2, 3))]
    assert module.result_shapes == [("float32", (2, 3))]
    # Values stay valid after build (the module owns the instructions).
    assert y.shape == (2, 3)
    del mb, cb
    assert x.shape == (2, 3) and "exponential" in module.as_text()


def test_constant_copies_noncontiguous_and_bfloat16():
    mb = _xjit.ModuleBuilder("m")
    cb = mb.computation("main")
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    view = base[:, ::2]  # non-contiguous
    c = cb.constant(view)
    assert c.shape == (3, 2)
    s = cb.constant(np.asarray(2, np.int32))
    assert s.shape == ()  # 0-d stays 0-d
    bf = cb.constant(np.ones((2,), ml_dtypes.bfloat16))
    assert bf.dtype == "bfloat16"
    cb.finish([c])
    module = mb.build(cb)
    base[:] = -1  # the module holds its own copy
    out = _xjit.compile(module, _xjit.devices("reference")[0]).execute([])
    np.testing.assert_array_equal(np.asarray(out[0]), np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2])


@pytest.mark.parametrize("platform", PLATFORMS)
def test_compile_execute_against_numpy(platform):
    module = _add_module()
    device = _xjit.devices(platform)[0]
    exe = _xjit.compile(module, device)
    assert "stablehlo.add" in exe.as_text()
    assert exe.parameter_shapes == [("float32", (2, 3))]
    assert exe.result_shapes == [("float32", (2, 3)), ("float32", (2, 3))]
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = _xjit.device_put(x, device)
    y, same = exe.execute([a])
    assert isinstance(y, _xjit.Array)
    np.testing.assert_array_equal(np.asarray(y), x + 1.5)
    np.testing.assert_array_equal(np.asarray(same), x)
    assert y.device == device and y.dtype == np.float32 and y.shape == (2, 3)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_reduce_with_region(platform):
    module = _reduce_sum_module((3, 4), 1)
    exe = _xjit.compile(module, _xjit.devices(platform)[0])
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    (out,) = exe.execute([_xjit.device_put(x, exe.device)])
    np.testing.assert_allclose(np.asarray(out), x.sum(1), rtol=1e-6)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_async_chain_keeps_order(platform):
    device = _xjit.devices(platform)[0]
    exe = _xjit.compile(_add_module((4,)), device)
    a = _xjit.device_put(np.zeros(4, np.float32), device)
    for _ in range(200):
        a, _ = exe.execute([a])
    np.testing.assert_allclose(np.asarray(a), np.full(4, 300.0, np.float32))


def test_execute_with_weak_types_and_numpy_args():
    exe = _xjit.compile(_add_module(()), _xjit.devices("cpu")[0])
    outs = exe.execute_with_weak_types([np.float32(1)], [True, False])
    assert [o.weak_type for o in outs] == [True, False]
    assert float(np.asarray(outs[0])) == 2.5
    assert "weak_type=True" in repr(outs[0])
    with pytest.raises(ValueError):
        exe.execute_with_weak_types([np.float32(1)], [True])


def test_threads_execute_concurrently():
    device = _xjit.devices("cpu")[0]
    exe = _xjit.compile(_add_module((8,)), device)
    errors = []

    def work(k):
        try:
            a = _xjit.device_put(np.full(8, k, np.float32), device)
            for _ in range(50):
                a, _ = exe.execute([a])
            np.testing.assert_allclose(np.asarray(a), np.full(8, k + 75.0))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# ---------------------------------------------------------- devices/arrays --

def test_platforms_devices_version():
    assert set(PLATFORMS) <= set(_xjit.platforms())
    assert _xjit.platforms()[0] == "cpu"
    (cpu,) = _xjit.devices()
    assert repr(cpu) == "CpuDevice(id=0)" and cpu.id == 0
    assert cpu.platform == "cpu" and cpu.device_kind == "cpu"
    assert repr(_xjit.devices("reference")[0]) == "ReferenceDevice(id=0)"
    assert _xjit.devices("cpu")[0] == cpu and hash(_xjit.devices("cpu")[0]) == hash(cpu)
    info = _xjit.version_info()
    assert info["xjit"] == "0.1.0" and info["onednn"].startswith("3.")
    assert "cpu" in info["backends"] and info["compiler"]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_device_put_roundtrip_all_dtypes(dtype):
    x = (np.arange(6).reshape(2, 3) % 3).astype(dtype)
    a = _xjit.device_put(x, _xjit.devices()[0])
    assert a.dtype == np.dtype(dtype) and a.shape == (2, 3) and a.ndim == 2 and a.size == 6
    assert a.nbytes == x.nbytes and not a.weak_type
    np.testing.assert_array_equal(np.asarray(a), x)


def test_device_put_edge_cases():
    d = _xjit.devices()[0]
    s = _xjit.device_put(np.float32(3.0), d, weak_type=True)
    assert s.shape == () and s.weak_type and float(np.asarray(s)) == 3.0
    e = _xjit.device_put(np.zeros((0, 3), np.int32), d)
    assert e.shape == (0, 3) and np.asarray(e).shape == (0, 3)
    nc = np.arange(20, dtype=np.float64).reshape(4, 5).T
    np.testing.assert_array_equal(np.asarray(_xjit.device_put(nc, d)), nc)
    py = _xjit.device_put(2, d)  # Python scalars keep numpy's dtype (no canonicalization)
    assert py.shape == () and int(np.asarray(py)) == 2
    conv = _xjit.device_put(np.arange(3.0), d, dtype="float32")
    assert conv.dtype == np.float32
    # An Array on the same device with the same flags is returned as is.
    assert _xjit.device_put(conv, d) is conv
    moved = _xjit.device_put(conv, _xjit.devices("reference")[0])
    assert moved.device.platform == "reference"
    np.testing.assert_array_equal(np.asarray(moved), np.asarray(conv))


def test_array_value_is_read_only_and_cached():
    a = _xjit.device_put(np.arange(4, dtype=np.float32), _xjit.devices()[0])
    v = np.asarray(a)
    assert not v.flags.writeable
    with pytest.raises(ValueError):
        v[0] = 5
    assert a._value is a._value
    w = np.array(a)  # a copy is writable
    w[0] = 9
    assert np.asarray(a)[0] == 0
    f64 = np.asarray(a, dtype=np.float64)
    assert f64.dtype == np.float64
    assert a.block_until_ready() is a and a.is_ready()


def test_array_class_accepts_python_methods():
    assert repr(_xjit.Array) == "<class 'xjit.Array'>"
    _xjit.Array._test_double = lambda self: np.asarray(self) * 2
    try:
        a = _xjit.device_put(np.ones(2, np.float32), _xjit.devices()[0])
        np.testing.assert_array_equal(a._test_double(), [2, 2])
    finally:
        del _xjit.Array._test_double
    with pytest.raises(TypeError):
        _xjit.Array()  # only the runtime makes Arrays


def test_sync_dispatch_env():
    code = ("import numpy as np, sys; sys.path[:0] = %r\n"
            "try:\n import _xjit\nexcept ImportError:\n from xjit import _xjit\n"
            "from test_bindings import _add_module\n"
            "exe = _xjit.compile(_add_module(), _xjit.devices()[0])\n"
            "out = exe.execute([np.ones((2, 3), np.float32)])\n"
            "assert out[0].is_ready()\n"
            "print(float(np.asarray(out[0]).sum()))\n") % (sys.path[:3] + [os.path.dirname(__file__)],)
    env = dict(os.environ, XJIT_SYNC_DISPATCH="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "15.0"


# -------------------------------------------------------------- bad input --

def test_execute_argument_errors():
    device = _xjit.devices()[0]
    exe = _xjit.compile(_add_module(), device)
    with pytest.raises(TypeError, match="takes 1 arguments but got 0"):
        exe.execute([])
    bad = _xjit.device_put(np.zeros((2, 3), np.int32), device)
    with pytest.raises(TypeError, match=r"Argument 0 .*tensor<2x3xi32>.*tensor<2x3xf32>"):
        exe.execute([bad])
    with pytest.raises(TypeError, match="Argument 0"):
        exe.execute([_xjit.device_put(np.zeros((3, 2), np.float32), device)])
    other = _xjit.device_put(np.zeros((2, 3), np.float32), _xjit.devices("reference")[0])
    with pytest.raises(TypeError, match="ReferenceDevice"):
        exe.execute([other])
    with pytest.raises(TypeError):
        exe.execute([object()])
    with pytest.raises(TypeError):
        exe.execute(5)


def test_builder_errors():
    mb = _xjit.ModuleBuilder("m")
    cb = mb.computation("main")
    x = cb.parameter("float32", (2,))
    i = cb.parameter("int32", (2,))
    with pytest.raises(TypeError, match="add"):
        cb.op("add", [x, i])  # mixed dtypes
    with pytest.raises(ValueError, match="no_such_key"):
        cb.op("transpose", [x], {"no_such_key": 1})
    with pytest.raises(ValueError, match="not_an_op"):
        cb.op("not_an_op", [x])
    with pytest.raises(TypeError):
        cb.op("transpose", [x], {"permutation": "ab"})
    with pytest.raises(ValueError):
        cb.op("transpose", [x], {"permutation": [3]})
    with pytest.raises(TypeError):
        cb.parameter("float128", (2,))
    with pytest.raises(TypeError):
        cb.parameter("float32", (-1,))
    with pytest.raises(TypeError):
        cb.constant(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        cb.constant(np.array([object()]))
    other = _xjit.ModuleBuilder("n").computation("main")
    y = other.parameter("float32", (2,))
    with pytest.raises(TypeError, match="another computation"):
        cb.op("add", [x, y])
    with pytest.raises(TypeError):
        cb.op("add", [x, None])
    with pytest.raises(ValueError):
        mb.build(cb)  # not finished
    unfinished = mb.computation("scratch")
    dangling = unfinished.parameter("float32", ())
    cb.finish([x])
    with pytest.raises(ValueError, match="finished"):
        cb.op("negate", [x])
    module = mb.build(cb)
    assert module.name == "m"
    with pytest.raises(ValueError):
        mb.build(cb)
    with pytest.raises(ValueError):
        mb.computation("late")
    with pytest.raises(ValueError):
        unfinished.parameter("float32", ())
    with pytest.raises(ValueError):
        dangling.shape  # its computation died with build()
    assert x.shape == (2,)


def test_attributes_are_checked_per_op():
    mb = _xjit.ModuleBuilder("m")
    cb = mb.computation("main")
    x = cb.parameter("float32", (2, 3))
    # Another op's key is rejected with the op's name and its own keys.
    with pytest.raises(ValueError, match=r"add: unknown attribute 'dimensions' \(it takes none\)"):
        cb.op("add", [x, x], {"dimensions": [5, 6]})
    with pytest.raises(ValueError, match=r"known: start_indices, limit_indices, strides\)"):
        cb.op("slice", [x], {"permutation": [1, 0]})
    # The result type is only for ops that declare one.
    with pytest.raises(ValueError, match="transpose: unknown attribute 'shape'"):
        cb.op("transpose", [x], {"permutation": [1, 0], "shape": (3, 2)})
    # Mistyped values: TypeError; a bad enum name: ValueError.
    with pytest.raises(TypeError, match="compare: attribute 'comparison_direction'"):
        cb.op("compare", [x, x], {"comparison_direction": 1})
    with pytest.raises(ValueError, match="unknown comparison direction 'LESS'"):
        cb.op("compare", [x, x], {"comparison_direction": "LESS"})
    with pytest.raises(TypeError, match="dot_general: attribute 'lhs_contracting_dimensions'"):
        cb.op("dot_general", [x, x], {"lhs_contracting_dimensions": 1.5})
    # A nested struct's fields are keys of their own.
    d = cb.op("dot_general", [x, x], {"lhs_contracting_dimensions": [1],
                                      "rhs_contracting_dimensions": [1]})
    assert d.shape == (2, 2)
    r = cb.op("reshape", [x], {"shape": (6,)})
    assert (r.shape, r.dtype) == ((6,), "float32")


def test_device_errors():
    with pytest.raises(RuntimeError, match="Unknown backend"):
        _xjit.devices("tpu")
    with pytest.raises(TypeError):
        _xjit.device_put(np.array([object()]), _xjit.devices()[0])
    with pytest.raises(TypeError):
        _xjit.device_put(np.zeros(2, np.longdouble), _xjit.devices()[0])
    with pytest.raises(TypeError):
        _xjit.device_put(np.zeros(2), "cpu")
    with pytest.raises(TypeError):
        _xjit.compile("not a module", _xjit.devices()[0])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_can_execute():
    device = _xjit.devices()[0]
    exe = _xjit.compile(_add_module((2,)), device)
    exe.execute([np.zeros(2, np.float32)])[0].block_until_ready()  # worker thread exists
    pid = os.fork()
    if pid == 0:  # child: no worker thread survives the fork
        code = 1
        try:
            out = exe.execute([np.ones(2, np.float32)])[0]
            code = 0 if np.asarray(out).tolist() == [2.5, 2.5] else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
