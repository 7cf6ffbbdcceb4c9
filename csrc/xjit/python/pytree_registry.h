// User-registered pytree node types (register_pytree_node).
#pragma once

#include <pybind11/pybind11.h>

namespace xjit::python {

namespace py = pybind11;

struct PyTreeCustomNode {
  py::object type;
  py::object flatten;    // flatten(x) -> (children, aux_data)
  py::object unflatten;  // unflatten(aux_data, children_tuple) -> x
};

// Raises ValueError for a duplicate registration or a built-in node type.
void RegisterPyTreeCustomNode(py::object type, py::object flatten, py::object unflatten);
// The registration for exactly this type (subclasses are leaves, as in JAX).
const PyTreeCustomNode* LookupPyTreeCustomNode(PyTypeObject* type);

}  // namespace xjit::python
