#include "xjit/python/status_casters.h"

#include <string>

namespace xjit::python {

namespace py = pybind11;

void ThrowIfError(const absl::Status& status) {
  if (status.ok()) return;
  PyObject* type;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument: type = PyExc_TypeError; break;
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kFailedPrecondition: type = PyExc_ValueError; break;
    case absl::StatusCode::kUnimplemented: type = PyExc_NotImplementedError; break;
    case absl::StatusCode::kResourceExhausted: type = PyExc_MemoryError; break;
    default: type = PyExc_RuntimeError; break;
  }
  // A message may quote user text that is not valid UTF-8 (parser input):
  // escape such bytes rather than raising UnicodeDecodeError.
  absl::string_view m = status.message();
  PyObject* message = PyUnicode_DecodeUTF8(m.data(), static_cast<Py_ssize_t>(m.size()),
                                           "backslashreplace");
  if (message == nullptr) throw py::error_already_set();
  PyErr_SetObject(type, message);
  Py_DECREF(message);
  throw py::error_already_set();
}

}  // namespace xjit::python
