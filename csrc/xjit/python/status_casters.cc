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
  std::string message(status.message());
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

}  // namespace xjit::python
