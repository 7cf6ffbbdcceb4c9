// xjit.Array: a thin Python face over a device Buffer. MakePyArray and
// TryGetPyArray sit on the jit hot path, so they avoid Python attribute
// lookups and go through the cached type object directly.
#include "xjit/python/py_array.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "xjit/python/dtype_conversion.h"
#include "xjit/python/status_casters.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/runtime/device.h"
#include "xjit/runtime/platform.h"

namespace xjit::python {
namespace {

PyTypeObject* g_array_type = nullptr;

py::tuple DimsTuple(const Shape& s) {
  py::tuple t(s.dims.size());
  for (size_t i = 0; i < s.dims.size(); ++i) {
    PyTuple_SET_ITEM(t.ptr(), i, PyLong_FromLongLong(s.dims[i]));
  }
  return t;
}

absl::Status AwaitReleasingGil(const Buffer& b) {
  Event* ready = b.ready();
  if (ready->IsReady()) return ready->Await();  // no GIL round trip when done
  py::gil_scoped_release release;
  return ready->Await();
}

// Waits for the buffer, then exposes it as a read-only numpy array. Host
// memory is viewed without a copy: the view keeps the buffer alive and
// counts as an external reference, so donation never reuses memory a view
// can still read, and users cannot write it. Other memory is copied out.
py::object NumpyValue(PyArray& self) {
  CheckNotDeleted(self);
  if (self.numpy_cache && !self.numpy_cache.is_none()) return self.numpy_cache;
  Buffer& b = *self.buffer;
  ThrowIfError(AwaitReleasingGil(b));
  const Shape& s = b.shape();
  if (!b.device()->platform_impl().HostVisibleMemory()) {
    py::array copy(ToNumpyDType(s.dtype), std::vector<py::ssize_t>(s.dims.begin(), s.dims.end()));
    {
      py::gil_scoped_release release;
      ThrowIfError(b.CopyToHost(copy.mutable_data()));
    }
    py::detail::array_proxy(copy.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    self.numpy_cache = copy;
    return copy;
  }
  std::vector<py::ssize_t> shape(s.dims.begin(), s.dims.end());
  std::vector<py::ssize_t> strides(s.dims.size());
  py::ssize_t stride = ByteWidth(s.dtype);
  for (size_t i = s.dims.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= s.dims[i] == 0 ? 1 : s.dims[i];
  }
  auto* keep_alive = new std::shared_ptr<Buffer>(self.buffer);
  b.AddExternalReference();
  py::capsule owner(keep_alive, [](void* p) {
    auto* held = static_cast<std::shared_ptr<Buffer>*>(p);
    (*held)->DropExternalReference();
    delete held;
  });
  py::array arr(ToNumpyDType(s.dtype), std::move(shape), std::move(strides), b.data(), owner);
  py::detail::array_proxy(arr.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  self.numpy_cache = arr;
  return arr;
}

py::object ArrayDunder(PyArray& self, py::object dtype, py::object copy) {
  py::object value = NumpyValue(self);
  bool want_copy = !copy.is_none() && copy.cast<bool>();
  bool copy_forbidden = !copy.is_none() && !copy.cast<bool>();
  if (!dtype.is_none()) {
    py::dtype want = py::dtype::from_args(dtype);
    if (!want.equal(py::reinterpret_borrow<py::array>(value).dtype())) {
      if (copy_forbidden) {
        throw py::value_error("Unable to avoid a copy while converting the dtype of an xjit.Array");
      }
      return value.attr("astype")(want);
    }
  }
  if (want_copy) return value.attr("copy")();
  return value;
}

std::string ArrayRepr(PyArray& self) {
  py::object value = NumpyValue(self);
  std::string r = py::module_::import("numpy").attr("array_repr")(value).cast<std::string>();
  // numpy: "array([1., 2.], dtype=float32)" -> JAX: "Array([1., 2.], dtype=float32)"
  if (r.rfind("array", 0) == 0) r = "Array" + r.substr(5);
  if (self.weak_type && !r.empty() && r.back() == ')') {
    r.insert(r.size() - 1, ", weak_type=True");
  }
  return r;
}

}  // namespace

void ThrowArrayDeleted(const Buffer& buffer) {
  const Shape& s = buffer.shape();
  std::string message = absl::StrCat("Array has been deleted with shape=", NumpyName(s.dtype), "[",
                                     absl::StrJoin(s.dims, ","), "].");
  PyErr_SetString(PyExc_RuntimeError, message.c_str());
  throw py::error_already_set();
}

void DeletePyArray(PyArray& a) {
  a.buffer->Delete();
  a.numpy_cache = py::none();
}

py::object MakePyArray(std::shared_ptr<Buffer> buffer, bool weak_type) {
  PyArray value;
  value.buffer = std::move(buffer);
  value.weak_type = weak_type;
  return py::cast(std::move(value), py::return_value_policy::move);
}

PyArray* TryGetPyArray(py::handle obj) {
  if (!obj || g_array_type == nullptr) return nullptr;
  PyTypeObject* type = Py_TYPE(obj.ptr());
  if (type != g_array_type && !PyType_IsSubtype(type, g_array_type)) return nullptr;
  auto* inst = reinterpret_cast<py::detail::instance*>(obj.ptr());
  // A subclass whose __init__ never ran has no value yet.
  return static_cast<PyArray*>(inst->get_value_and_holder(nullptr, false).value_ptr());
}

void RegisterPyArray(py::module_& m) {
  py::class_<PyArray> cls(m, "Array");
  cls.attr("__module__") = "xjit";
  cls.attr("__array_priority__") = 100;
  cls.def_property_readonly("shape", [](const PyArray& a) { return DimsTuple(a.buffer->shape()); })
      .def_property_readonly("dtype",
                             [](const PyArray& a) { return ToNumpyDType(a.buffer->shape().dtype); })
      .def_property_readonly("ndim", [](const PyArray& a) { return a.buffer->shape().rank(); })
      .def_property_readonly("size",
                             [](const PyArray& a) { return a.buffer->shape().num_elements(); })
      .def_property_readonly("nbytes", [](const PyArray& a) { return a.buffer->shape().byte_size(); })
      .def_property_readonly("weak_type", [](const PyArray& a) { return a.weak_type; })
      .def_property_readonly(
          "device", [](const PyArray& a) { return a.buffer->device(); },
          py::return_value_policy::reference)
      .def("is_ready", [](const PyArray& a) { return a.buffer->ready()->IsReady(); })
      .def("block_until_ready",
           [](py::object self) {
             PyArray& a = self.cast<PyArray&>();
             CheckNotDeleted(a);
             ThrowIfError(AwaitReleasingGil(*a.buffer));
             return self;
           })
      .def_property_readonly("_value", [](PyArray& a) { return NumpyValue(a); })
      // JAX API details that cost nothing on host memory.
      .def("copy_to_host_async", [](const PyArray&) {})
      .def("is_deleted", [](const PyArray& a) { return a.buffer->is_deleted(); })
      .def("delete", &DeletePyArray)
      .def("on_device_size_in_bytes", [](const PyArray& a) { return a.buffer->shape().byte_size(); })
      .def("unsafe_buffer_pointer",
           [](const PyArray& a) {
             CheckNotDeleted(a);
             return reinterpret_cast<uintptr_t>(a.buffer->data());
           })
      .def("__array__", &ArrayDunder, py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def("__repr__", &ArrayRepr);
  g_array_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
}

}  // namespace xjit::python
