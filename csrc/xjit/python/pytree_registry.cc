#include "xjit/python/pytree_registry.h"

#include <memory>

#include "absl/container/flat_hash_map.h"

namespace xjit::python {
namespace {

using Registry = absl::flat_hash_map<PyTypeObject*, std::unique_ptr<PyTreeCustomNode>>;

// Leaked on purpose: it holds Python objects, which must not be released by a
// static destructor after the interpreter has finalized.
Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

}  // namespace

void RegisterPyTreeCustomNode(py::object type, py::object flatten, py::object unflatten) {
  if (!PyType_Check(type.ptr())) {
    throw py::type_error("register_pytree_node: expected a type, got " +
                         py::repr(type).cast<std::string>());
  }
  auto* t = reinterpret_cast<PyTypeObject*>(type.ptr());
  // The built-in node types are handled before the registry is consulted, so
  // registering them would silently do nothing; Python scalars are leaves, and
  // making them nodes would break every later flatten.
  if (t == &PyTuple_Type || t == &PyList_Type || t == &PyDict_Type || t == Py_TYPE(Py_None) ||
      t == &PyLong_Type || t == &PyFloat_Type || t == &PyComplex_Type || t == &PyBool_Type) {
    throw py::value_error("Duplicate custom PyTreeDef type registration for " +
                          py::repr(type).cast<std::string>() + ".");
  }
  auto node = std::make_unique<PyTreeCustomNode>();
  node->type = std::move(type);
  node->flatten = std::move(flatten);
  node->unflatten = std::move(unflatten);
  auto [it, inserted] = GetRegistry().try_emplace(t, std::move(node));
  if (!inserted) {
    throw py::value_error("Duplicate custom PyTreeDef type registration for " +
                          py::repr(it->second->type).cast<std::string>() + ".");
  }
}

const PyTreeCustomNode* LookupPyTreeCustomNode(PyTypeObject* type) {
  const Registry& registry = GetRegistry();
  if (registry.empty()) return nullptr;
  auto it = registry.find(type);
  return it == registry.end() ? nullptr : it->second.get();
}

}  // namespace xjit::python
