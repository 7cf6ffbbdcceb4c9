// Pytrees in C++: flattening nested Python containers into leaves plus a
// PyTreeDef that can rebuild them. The jit fast path flattens every call's
// arguments, so built-in nodes (None, tuple, list, dict, namedtuple) are
// handled without running any Python code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <pybind11/pybind11.h>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"

namespace xjit::python {

namespace py = pybind11;

struct PyTreeCustomNode;  // pytree_registry.h

enum class PyTreeKind : uint8_t { kLeaf, kNone, kTuple, kList, kDict, kNamedTuple, kCustom };

struct PyTreeNode {
  PyTreeKind kind = PyTreeKind::kLeaf;
  int arity = 0;
  // dict: the sorted keys (a list); namedtuple: its type; custom: aux data.
  py::object node_data;
  const PyTreeCustomNode* custom = nullptr;  // only for kCustom
  int num_leaves = 0;  // in this subtree
  int num_nodes = 0;   // in this subtree, this node included
};

// Leaves as collected by Flatten: inline storage covers typical jit calls
// without a heap allocation.
using PyTreeLeaves = absl::InlinedVector<py::object, 8>;

// A tree structure as a flat preorder vector of nodes.
class PyTreeDef {
 public:
  PyTreeDef() = default;

  // Flattens `obj` into a new treedef, appending its leaves to `leaves`.
  // `is_leaf` (may be a null handle or None) is called on every subtree and
  // stops the descent where it returns true. Throws on Python errors.
  static PyTreeDef Flatten(py::handle obj, py::handle is_leaf, PyTreeLeaves& leaves);
  // A tuple node whose children are `children` (JAX's treedef_tuple).
  static PyTreeDef Tuple(absl::Span<const PyTreeDef> children);

  // Rebuilds the tree; ValueError when the count differs from num_leaves().
  py::object Unflatten(absl::Span<const py::object> leaves) const;

  int num_leaves() const { return traversal_.empty() ? 0 : traversal_.front().num_leaves; }
  int num_nodes() const { return static_cast<int>(traversal_.size()); }
  bool is_leaf() const { return traversal_.size() == 1 && traversal_[0].kind == PyTreeKind::kLeaf; }
  // Subtrees of the root, in order (empty for a leaf or None).
  std::vector<PyTreeDef> Children() const;
  // JAX's node_data(): None for a leaf, else (node type, data).
  py::object NodeData() const;

  // Node data is compared with Python == (may throw error_already_set).
  bool operator==(const PyTreeDef& other) const;
  bool operator!=(const PyTreeDef& other) const { return !(*this == other); }
  // Structure only (kinds, arities, node types): cheap and needs no Python.
  size_t Hash() const;
  std::string ToString() const;  // "PyTreeDef((*, {'a': *}))"

  const absl::InlinedVector<PyTreeNode, 8>& traversal() const { return traversal_; }

 private:
  void FlattenImpl(py::handle obj, py::handle is_leaf, PyTreeLeaves& leaves);
  py::object BuildImpl(size_t& node, const py::object*& leaf) const;
  void ReprImpl(size_t& node, std::string& out) const;

  absl::InlinedVector<PyTreeNode, 8> traversal_;
};

// Registers PyTreeDef, tree_flatten, tree_leaves, register_pytree_node.
void RegisterPytree(pybind11::module_& m);

}  // namespace xjit::python
