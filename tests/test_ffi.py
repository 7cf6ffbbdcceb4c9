"""xjit.ffi: foreign functions built in the test with the system C++ compiler:
XLA FFI handlers compiled against jaxlib's headers (the XLA FFI C ABI),
legacy CPU custom calls, and their errors."""
import ctypes
import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

import xjit
from xjit import ffi

CXX = shutil.which("c++") or shutil.which("g++")

FFI_SOURCE = r"""
#include <cmath>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

// y = x * scale + offset, over any float32 array.
static ffi::Error ScaleImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y,
                            float scale, double offset) {
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = x.typed_data()[i] * scale + static_cast<float>(offset);
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(Scale, ScaleImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>()
        .Attr<float>("scale").Attr<double>("offset"));

// Row sums and the row count of a 2-d float64 array; `mode` picks the op.
static ffi::Error RowsImpl(ffi::Buffer<ffi::F64> x, ffi::ResultBuffer<ffi::F64> sums,
                           ffi::ResultBuffer<ffi::S32> count, std::string_view mode,
                           int64_t power) {
  auto dims = x.dimensions();
  if (dims.size() != 2) return ffi::Error::InvalidArgument("rows: expected a matrix");
  for (int64_t r = 0; r < dims[0]; ++r) {
    double s = 0;
    for (int64_t c = 0; c < dims[1]; ++c) s += std::pow(x.typed_data()[r * dims[1] + c], power);
    sums->typed_data()[r] = mode == "negate" ? -s : s;
  }
  count->typed_data()[0] = static_cast<int32_t>(dims[0]);
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(Rows, RowsImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F64>>().Ret<ffi::Buffer<ffi::F64>>()
        .Ret<ffi::Buffer<ffi::S32>>().Attr<std::string_view>("mode").Attr<int64_t>("power"));

static ffi::Error FailImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  return ffi::Error(ffi::ErrorCode::kInvalidArgument, "the handler refuses on purpose");
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(Fail, FailImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

// Scratch memory through XLA_FFI_DeviceMemory_Allocate.
static ffi::Error ScratchImpl(ffi::ScratchAllocator scratch, ffi::Buffer<ffi::F32> x,
                              ffi::ResultBuffer<ffi::F32> y) {
  auto mem = scratch.Allocate(x.element_count() * sizeof(float));
  if (!mem.has_value()) return ffi::Error::Internal("no scratch");
  float* tmp = static_cast<float*>(*mem);
  size_t n = x.element_count();
  for (size_t i = 0; i < n; ++i) tmp[i] = x.typed_data()[n - 1 - i];
  for (size_t i = 0; i < n; ++i) y->typed_data()[i] = tmp[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(Reverse, ScratchImpl,
    ffi::Ffi::Bind().Ctx<ffi::ScratchAllocator>().Arg<ffi::Buffer<ffi::F32>>()
        .Ret<ffi::Buffer<ffi::F32>>());
"""

LEGACY_SOURCE = r"""
#include <cstdint>
extern "C" void add_one(void* out, const void** in) {
  const float* x = static_cast<const float*>(in[0]);
  const int64_t* n = static_cast<const int64_t*>(in[1]);
  float* y = static_cast<float*>(out);
  for (int64_t i = 0; i < *n; ++i) y[i] = x[i] + 1.0f;
}
extern "C" void split(void* out, const void** in) {
  void** outs = static_cast<void**>(out);
  const float* x = static_cast<const float*>(in[0]);
  static_cast<float*>(outs[0])[0] = x[0];
  static_cast<float*>(outs[1])[0] = x[1];
}
"""


def _build(tmp, name, source, include=None):
    if CXX is None:
        pytest.skip("no C++ compiler")
    src = os.path.join(tmp, name + ".cc")
    lib = os.path.join(tmp, "lib" + name + ".so")
    with open(src, "w") as f:
        f.write(source)
    cmd = [CXX, "-std=c++17", "-O1", "-shared", "-fPIC", src, "-o", lib]
    if include:
        cmd[1:1] = ["-I", include]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return ctypes.cdll.LoadLibrary(lib)


def _jax_include():
    try:
        import jax.ffi
        inc = jax.ffi.include_dir()
    except Exception:  # noqa: BLE001
        return None
    return inc if os.path.exists(os.path.join(inc, "xla", "ffi", "api", "ffi.h")) else None


@pytest.fixture(scope="module")
def ffi_lib():
    inc = _jax_include()
    if inc is None:
        pytest.skip("jaxlib's XLA FFI headers are not installed")
    with tempfile.TemporaryDirectory() as tmp:
        lib = _build(tmp, "xjit_ffi_test", FFI_SOURCE, inc)
        for name in ("Scale", "Rows", "Fail", "Reverse"):
            ffi.register_ffi_target(f"test_{name.lower()}", ffi.pycapsule(getattr(lib, name)))
        yield lib


@pytest.mark.parametrize("platform", ["cpu", "reference"])
def test_typed_ffi_handler(ffi_lib, platform):
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    call = ffi.ffi_call("test_scale", xjit.ShapeDtypeStruct(x.shape, x.dtype))
    dev = xjit.devices(platform)[0]
    got = xjit.jit(lambda x: call(x, scale=np.float32(3), offset=0.5))(xjit.device_put(x, dev))
    np.testing.assert_allclose(np.asarray(got), x * 3 + 0.5, rtol=1e-6)
    eager = call(x, scale=np.float32(2), offset=-1.0)
    np.testing.assert_allclose(np.asarray(eager), x * 2 - 1, rtol=1e-6)


def test_typed_ffi_several_results_and_string_attrs(ffi_lib):
    xjit.config.update("jax_enable_x64", True)
    try:
        x = np.arange(6, dtype=np.float64).reshape(3, 2)
        call = ffi.ffi_call("test_rows", (xjit.ShapeDtypeStruct((3,), np.float64),
                                          xjit.ShapeDtypeStruct((1,), np.int32)))
        sums, count = xjit.jit(lambda x: call(x, mode="negate", power=2))(x)
        np.testing.assert_allclose(np.asarray(sums), -(x ** 2).sum(1))
        assert int(np.asarray(count)[0]) == 3
    finally:
        xjit.config.update("jax_enable_x64", False)


def test_typed_ffi_matches_jax(ffi_lib):
    import jax
    jax.ffi.register_ffi_target("test_scale", jax.ffi.pycapsule(ffi_lib.Scale), platform="cpu")
    x = np.arange(4, dtype=np.float32)
    want = jax.ffi.ffi_call("test_scale", jax.ShapeDtypeStruct(x.shape, x.dtype))(
        x, scale=np.float32(1.5), offset=2.0)
    got = ffi.ffi_call("test_scale", xjit.ShapeDtypeStruct(x.shape, x.dtype))(
        x, scale=np.float32(1.5), offset=2.0)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_scratch_allocator(ffi_lib):
    x = np.arange(5, dtype=np.float32)
    got = xjit.jit(ffi.ffi_call("test_reverse", xjit.ShapeDtypeStruct((5,), np.float32)))(x)
    np.testing.assert_array_equal(np.asarray(got), x[::-1])


def test_handler_error_is_a_python_error(ffi_lib):
    call = ffi.ffi_call("test_fail", xjit.ShapeDtypeStruct((2,), np.float32))
    with pytest.raises(TypeError, match="refuses on purpose"):
        np.asarray(xjit.jit(call)(np.ones(2, np.float32)))


def test_bad_attributes_and_types_are_python_errors(ffi_lib):
    x = np.ones(3, np.float32)
    call = ffi.ffi_call("test_scale", xjit.ShapeDtypeStruct(x.shape, x.dtype))
    # float64 attribute where the handler binds float: XLA's decoding error.
    with pytest.raises(Exception, match="scale"):
        np.asarray(call(x, scale=2.0, offset=0.0))
    with pytest.raises(Exception, match="Wrong number of attributes"):
        np.asarray(call(x, scale=np.float32(2)))
    # Wrong operand dtype: the handler's Buffer<F32> check.
    with pytest.raises(Exception, match="[Ww]rong buffer dtype|dtype"):
        np.asarray(call(np.ones(3, np.int32), scale=np.float32(1), offset=0.0))


def test_unknown_target_and_bad_registration():
    call = ffi.ffi_call("no_such_target_xyz", xjit.ShapeDtypeStruct((2,), np.float32))
    with pytest.raises(Exception, match="no_such_target_xyz"):
        np.asarray(xjit.jit(call)(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="PyCapsule"):
        ffi.register_ffi_target("bad", 3)
    with pytest.raises(ValueError, match="platform"):
        ffi.register_ffi_target("bad", ffi.pycapsule(ctypes.pythonapi.Py_IncRef), platform="cuda")
    with pytest.raises(ValueError, match="api_version"):
        ffi.register_ffi_target("bad", ffi.pycapsule(ctypes.pythonapi.Py_IncRef), api_version=7)


def test_ffi_call_under_grad_is_an_error(ffi_lib):
    call = ffi.ffi_call("test_scale", xjit.ShapeDtypeStruct((), np.float32))
    with pytest.raises(ValueError, match="cannot be differentiated"):
        xjit.grad(lambda x: call(x, scale=np.float32(2), offset=0.0))(np.float32(1))


def test_legacy_cpu_custom_call():
    with tempfile.TemporaryDirectory() as tmp:
        lib = _build(tmp, "xjit_legacy_test", LEGACY_SOURCE)
        ffi.register_ffi_target("test_add_one", ffi.pycapsule(lib.add_one), api_version=0)
        ffi.register_ffi_target("test_split", ffi.pycapsule(lib.split), api_version=0)
        x = np.arange(4, dtype=np.float32)
        xjit.config.update("jax_enable_x64", True)
        try:
            call = ffi.ffi_call("test_add_one", xjit.ShapeDtypeStruct((4,), np.float32),
                                custom_call_api_version=1)
            got = xjit.jit(call)(x, np.int64(4))
            np.testing.assert_array_equal(np.asarray(got), x + 1)
        finally:
            xjit.config.update("jax_enable_x64", False)
        split = ffi.ffi_call("test_split", (xjit.ShapeDtypeStruct((), np.float32),) * 2,
                             custom_call_api_version=1)
        a, b = xjit.jit(split)(np.array([5, 7], np.float32))
        assert (float(a), float(b)) == (5.0, 7.0)
