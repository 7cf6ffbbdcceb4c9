// The C++ object behind xjit.Array: a device buffer plus JAX's weak-type flag.
// Shared by the bindings, the pytree code and the jit fast path.
#pragma once

#include <memory>

#include <pybind11/pybind11.h>

#include "xjit/runtime/buffer.h"

namespace xjit::python {

namespace py = pybind11;

struct PyArray {
  std::shared_ptr<Buffer> buffer;
  bool weak_type = false;
  py::object numpy_cache;  // numpy copy made on first read (None until then)
};

// Wraps a buffer as a new xjit.Array Python object.
py::object MakePyArray(std::shared_ptr<Buffer> buffer, bool weak_type);
// The PyArray inside `obj`, or nullptr when obj is not an xjit.Array. Cheap.
PyArray* TryGetPyArray(py::handle obj);
// JAX's error for using a donated or deleted array: RuntimeError
// "Array has been deleted with shape=float32[3]."
[[noreturn]] void ThrowArrayDeleted(const Buffer& buffer);
inline void CheckNotDeleted(const PyArray& a) {
  if (a.buffer->is_deleted()) ThrowArrayDeleted(*a.buffer);
}
// Array.delete(): deletes the buffer (shared by every array holding it) and
// drops the cached numpy view.
void DeletePyArray(PyArray& a);
// Registers the class on the module (called once from the module init).
void RegisterPyArray(py::module_& m);

}  // namespace xjit::python
