#include "xjit/python/jit_arguments.h"

#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <pybind11/numpy.h>

#include "xjit/python/device_put.h"
#include "xjit/python/dtype_conversion.h"
#include "xjit/runtime/platform.h"
#include "xjit/python/status_casters.h"

namespace xjit::python {
namespace {

std::shared_ptr<Buffer> ScalarBuffer(DType dtype, const void* data, Device* device) {
  return ValueOrThrow(Buffer::FromHost(Shape(dtype, {}), data, device));
}

[[noreturn]] void ThrowIntOverflow(py::handle leaf, DType dtype) {
  std::string message = "Python int " + py::str(leaf).cast<std::string>() +
                        " too large to convert to " + std::string(NumpyName(dtype));
  PyErr_SetString(PyExc_OverflowError, message.c_str());
  throw py::error_already_set();
}

std::shared_ptr<Buffer> IntBuffer(py::handle leaf, DType dtype, Device* device) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(leaf.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow != 0) ThrowIntOverflow(leaf, dtype);
  if (dtype == DType::kS64) {
    int64_t value = v;
    return ScalarBuffer(dtype, &value, device);
  }
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    ThrowIntOverflow(leaf, dtype);
  }
  int32_t value = static_cast<int32_t>(v);
  return ScalarBuffer(dtype, &value, device);
}

// Smaller arrays are copied: the copy is cheap, and aliasing makes the call
// wait for its results.
constexpr int64_t kAliasMinBytes = int64_t{1} << 16;
// What numpy's allocator gives (and XLA's CPU minimum); the kernels assume
// no more than element alignment (unaligned vector loads), oneDNN none.
constexpr uintptr_t kAliasAlignment = 16;

std::shared_ptr<Buffer> AliasNumpy(py::handle leaf, const LeafSignature& sig, Device* device) {
  if (!device->platform_impl().HostVisibleMemory() || !py::isinstance<py::array>(leaf)) {
    return nullptr;
  }
  auto arr = py::reinterpret_borrow<py::array>(leaf);
  constexpr int kFlags = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ |
                         py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if ((arr.flags() & kFlags) != kFlags || arr.nbytes() < kAliasMinBytes ||
      reinterpret_cast<uintptr_t>(arr.data()) % kAliasAlignment != 0 ||
      IsByteSwapped(arr.dtype())) {
    return nullptr;
  }
  absl::StatusOr<DType> t = FromNumpyDType(arr.dtype());
  if (!t.ok() || *t != sig.dtype) return nullptr;
  Shape shape(*t, std::vector<int64_t>(arr.shape(), arr.shape() + arr.ndim()));
  absl::StatusOr<std::shared_ptr<Buffer>> b =
      Buffer::WrapHostMemory(std::move(shape), const_cast<void*>(arr.data()), device);
  return b.ok() ? *std::move(b) : nullptr;
}

}  // namespace

std::shared_ptr<Buffer> LeafToBuffer(py::handle leaf, LeafSource source, PyArray* array,
                                     const LeafSignature& sig, Device* device, bool* aliased) {
  switch (source) {
    case LeafSource::kArray:
      CheckNotDeleted(*array);
      if (array->buffer->device() == device) return array->buffer;
      break;  // another device: BufferFromPython copies it over
    case LeafSource::kNumpy:
      if (aliased == nullptr) break;
      if (std::shared_ptr<Buffer> b = AliasNumpy(leaf, sig, device)) {
        *aliased = true;
        return b;
      }
      break;
    case LeafSource::kBool: {
      uint8_t value = leaf.ptr() == Py_True ? 1 : 0;
      return ScalarBuffer(DType::kPred, &value, device);
    }
    case LeafSource::kInt:
      return IntBuffer(leaf, sig.dtype, device);
    case LeafSource::kFloat: {
      double v = PyFloat_AsDouble(leaf.ptr());
      if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
      if (sig.dtype == DType::kF64) return ScalarBuffer(sig.dtype, &v, device);
      float f = static_cast<float>(v);
      return ScalarBuffer(sig.dtype, &f, device);
    }
    case LeafSource::kComplex: {
      Py_complex c = PyComplex_AsCComplex(leaf.ptr());
      if (c.real == -1.0 && PyErr_Occurred()) throw py::error_already_set();
      if (sig.dtype == DType::kC128) {
        std::complex<double> v(c.real, c.imag);
        return ScalarBuffer(sig.dtype, &v, device);
      }
      std::complex<float> v(static_cast<float>(c.real), static_cast<float>(c.imag));
      return ScalarBuffer(sig.dtype, &v, device);
    }
  }
  // numpy arrays and scalars: numpy does the (canonicalizing) cast and makes
  // the data contiguous; no copy when it already is of the right type.
  return ValueOrThrow(BufferFromPython(leaf, device, sig.dtype));
}

}  // namespace xjit::python
