// Python surface of the pytree code (docs/bindings.md, "Pytrees (C++)").
#include <vector>

#include <pybind11/stl.h>

#include "xjit/python/pytree.h"
#include "xjit/python/pytree_registry.h"

namespace xjit::python {
namespace {

py::list ToList(PyTreeLeaves& leaves) {
  py::list list(leaves.size());
  for (size_t i = 0; i < leaves.size(); ++i) {
    PyList_SET_ITEM(list.ptr(), i, leaves[i].release().ptr());
  }
  return list;
}

}  // namespace

void RegisterPytree(py::module_& m) {
  py::class_<PyTreeDef>(m, "PyTreeDef")
      .def("unflatten",
           [](const PyTreeDef& def, py::iterable leaves) {
             PyTreeLeaves values;
             for (py::handle leaf : leaves) values.push_back(py::reinterpret_borrow<py::object>(leaf));
             return def.Unflatten(values);
           },
           py::arg("leaves"))
      .def_property_readonly("num_leaves", &PyTreeDef::num_leaves)
      .def_property_readonly("num_nodes", &PyTreeDef::num_nodes)
      .def("children", &PyTreeDef::Children)
      .def("is_leaf", &PyTreeDef::is_leaf)
      .def("node_data", &PyTreeDef::NodeData)
      .def("__eq__", [](const PyTreeDef& a, py::object b) -> py::object {
             if (!py::isinstance<PyTreeDef>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(a == b.cast<const PyTreeDef&>());
           })
      .def("__ne__", [](const PyTreeDef& a, py::object b) -> py::object {
             if (!py::isinstance<PyTreeDef>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(a != b.cast<const PyTreeDef&>());
           })
      .def("__hash__", [](const PyTreeDef& def) {
             // Python reserves -1 for errors; fold the hash into a Py_hash_t.
             Py_hash_t h = static_cast<Py_hash_t>(def.Hash());
             return h == -1 ? Py_hash_t{-2} : h;
           })
      .def("__repr__", &PyTreeDef::ToString);

  m.def("tree_flatten",
        [](py::handle obj, py::handle is_leaf) {
          PyTreeLeaves leaves;
          PyTreeDef def = PyTreeDef::Flatten(obj, is_leaf, leaves);
          return py::make_tuple(ToList(leaves), py::cast(std::move(def)));
        },
        py::arg("tree"), py::arg("is_leaf") = py::none(),
        "Flattens a pytree: returns (leaves, treedef).");
  m.def("tree_leaves",
        [](py::handle obj, py::handle is_leaf) {
          PyTreeLeaves leaves;
          PyTreeDef::Flatten(obj, is_leaf, leaves);
          return ToList(leaves);
        },
        py::arg("tree"), py::arg("is_leaf") = py::none());
  m.def("treedef_tuple",
        [](const std::vector<PyTreeDef>& children) { return PyTreeDef::Tuple(children); },
        py::arg("treedefs"), "A treedef for a tuple whose children have these treedefs.");
  m.def("register_pytree_node", &RegisterPyTreeCustomNode, py::arg("type"),
        py::arg("flatten_func"), py::arg("unflatten_func"),
        "flatten_func(x) -> (children, aux_data); unflatten_func(aux_data, children) -> x.");
}

}  // namespace xjit::python
