// Pytrees in C++: flattening nested Python containers into leaves plus a
// PyTreeDef that can rebuild them. The jit fast path flattens every call's
// arguments, so this has to be cheap (no Python code for built-in nodes).
#pragma once

#include <pybind11/pybind11.h>

namespace xjit::python {

// Registers PyTreeDef, tree_flatten, tree_leaves, register_pytree_node.
void RegisterPytree(pybind11::module_& m);

}  // namespace xjit::python
