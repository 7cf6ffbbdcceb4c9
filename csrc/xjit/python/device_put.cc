#include "xjit/python/device_put.h"

#include <pybind11/numpy.h>

#include "absl/strings/str_cat.h"
#include "xjit/python/dtype_conversion.h"
#include "xjit/python/py_array.h"

namespace xjit::python {
namespace {

// Copies above this size release the GIL so other Python threads keep running.
constexpr int64_t kReleaseGilBytes = 1 << 20;

}  // namespace

py::array AsContiguousArray(const py::object& value, std::optional<DType> dtype) {
  auto& api = py::detail::npy_api::get();
  PyObject* descr = nullptr;
  if (dtype) {
    descr = ToNumpyDType(*dtype).release().ptr();  // PyArray_FromAny steals it
  }
  PyObject* out = api.PyArray_FromAny_(
      value.ptr(), descr, 0, 0,
      py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_ |
          py::detail::npy_api::NPY_ARRAY_ENSUREARRAY_ | py::detail::npy_api::NPY_ARRAY_FORCECAST_,
      nullptr);
  if (out == nullptr) throw py::error_already_set();
  auto arr = py::reinterpret_steal<py::array>(out);
  // Big-endian data on a little-endian machine (or the reverse) would be
  // copied raw: convert it to the same type in the native byte order.
  if (!dtype && IsByteSwapped(arr.dtype())) {
    out = api.PyArray_FromAny_(arr.ptr(), NativeByteOrder(arr.dtype()).release().ptr(), 0, 0,
                               py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ |
                                   py::detail::npy_api::NPY_ARRAY_ALIGNED_ |
                                   py::detail::npy_api::NPY_ARRAY_ENSUREARRAY_ |
                                   py::detail::npy_api::NPY_ARRAY_FORCECAST_,
                               nullptr);
    if (out == nullptr) throw py::error_already_set();
    arr = py::reinterpret_steal<py::array>(out);
  }
  return arr;
}

absl::StatusOr<std::shared_ptr<Buffer>> BufferFromPython(py::handle value, Device* device,
                                                         std::optional<DType> dtype) {
  if (device == nullptr) return absl::InvalidArgumentError("device_put: device is None");
  py::object host;
  if (PyArray* a = TryGetPyArray(value)) {
    CheckNotDeleted(*a);
    if (a->buffer->device() == device && (!dtype || *dtype == a->buffer->shape().dtype)) {
      return a->buffer;  // buffers are immutable: sharing is a valid copy
    }
    host = value.attr("_value");
  } else {
    host = py::reinterpret_borrow<py::object>(value);
  }
  py::array arr;
  try {
    arr = AsContiguousArray(host, dtype);
  } catch (py::error_already_set& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device_put: cannot convert ", py::repr(py::type::handle_of(value)).cast<std::string>(),
        " to an array: ", e.what()));
  }
  absl::StatusOr<DType> t = FromNumpyDType(arr.dtype());
  if (!t.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("device_put: ", t.status().message()));
  }
  Shape shape(*t, std::vector<int64_t>(arr.shape(), arr.shape() + arr.ndim()));
  const void* data = arr.data();
  if (shape.byte_size() >= kReleaseGilBytes) {
    py::gil_scoped_release release;
    return Buffer::FromHost(std::move(shape), data, device);
  }
  return Buffer::FromHost(std::move(shape), data, device);
}

}  // namespace xjit::python
