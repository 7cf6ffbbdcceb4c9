// Flatten, unflatten, comparison and printing of PyTreeDef.
#include "xjit/python/pytree.h"

#include <utility>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "xjit/python/pytree_registry.h"

namespace xjit::python {
namespace {

// Deeply nested (or self-referencing) containers must raise RecursionError
// instead of overflowing the C stack.
class RecursionGuard {
 public:
  explicit RecursionGuard(const char* where) {
    if (Py_EnterRecursiveCall(where)) throw py::error_already_set();
  }
  ~RecursionGuard() { Py_LeaveRecursiveCall(); }
  RecursionGuard(const RecursionGuard&) = delete;
  RecursionGuard& operator=(const RecursionGuard&) = delete;
};

bool IsNamedTuple(py::handle obj) {
  // A namedtuple is a tuple subclass with `_fields`, the test JAX uses.
  return PyTuple_Check(obj.ptr()) && PyObject_HasAttrString(obj.ptr(), "_fields");
}

PyTreeKind KindOf(py::handle obj, const PyTreeCustomNode** custom) {
  PyTypeObject* type = Py_TYPE(obj.ptr());
  // Exact types first: they are the common case and cannot be registered.
  if (obj.ptr() == Py_None) return PyTreeKind::kNone;
  if (type == &PyTuple_Type) return PyTreeKind::kTuple;
  if (type == &PyList_Type) return PyTreeKind::kList;
  if (type == &PyDict_Type) return PyTreeKind::kDict;
  if ((*custom = LookupPyTreeCustomNode(type)) != nullptr) return PyTreeKind::kCustom;
  if (IsNamedTuple(obj)) return PyTreeKind::kNamedTuple;
  return PyTreeKind::kLeaf;
}

// Shared key list of every empty dict node: the jit path flattens an empty
// kwargs dict on each call and should not allocate for it.
const py::object& EmptyKeyList() {
  static py::object* keys = new py::object(py::list());
  return *keys;
}

py::object SortedKeys(py::handle dict) {
  if (PyDict_GET_SIZE(dict.ptr()) == 0) return EmptyKeyList();
  py::object keys = py::reinterpret_steal<py::object>(PyDict_Keys(dict.ptr()));
  if (!keys || PyList_Sort(keys.ptr()) != 0) throw py::error_already_set();
  return keys;
}

bool PyEquals(py::handle a, py::handle b) {
  if (a.ptr() == b.ptr()) return true;
  int r = PyObject_RichCompareBool(a.ptr(), b.ptr(), Py_EQ);
  if (r < 0) throw py::error_already_set();
  return r == 1;
}

std::string PyRepr(py::handle obj) { return py::repr(obj).cast<std::string>(); }

std::string TypeName(py::handle type) {
  return py::str(type.attr("__name__")).cast<std::string>();
}

}  // namespace

PyTreeDef PyTreeDef::Flatten(py::handle obj, py::handle is_leaf, PyTreeLeaves& leaves) {
  PyTreeDef def;
  if (is_leaf && is_leaf.is_none()) is_leaf = py::handle();
  def.FlattenImpl(obj, is_leaf, leaves);
  return def;
}

void PyTreeDef::FlattenImpl(py::handle obj, py::handle is_leaf, PyTreeLeaves& leaves) {
  RecursionGuard guard(" while flattening a pytree");
  const size_t index = traversal_.size();
  const size_t first_leaf = leaves.size();
  traversal_.emplace_back();
  PyTreeKind kind = PyTreeKind::kLeaf;
  const PyTreeCustomNode* custom = nullptr;
  if (!is_leaf || !py::reinterpret_borrow<py::object>(is_leaf)(obj).cast<bool>()) {
    kind = KindOf(obj, &custom);
  }
  // traversal_ may reallocate during the recursion: refer to the node by index.
  int arity = 0;
  py::object node_data;
  switch (kind) {
    case PyTreeKind::kLeaf:
      leaves.push_back(py::reinterpret_borrow<py::object>(obj));
      break;
    case PyTreeKind::kNone:
      break;
    case PyTreeKind::kTuple:
    case PyTreeKind::kNamedTuple: {
      arity = static_cast<int>(PyTuple_GET_SIZE(obj.ptr()));
      for (int i = 0; i < arity; ++i) FlattenImpl(PyTuple_GET_ITEM(obj.ptr(), i), is_leaf, leaves);
      if (kind == PyTreeKind::kNamedTuple) {
        node_data = py::reinterpret_borrow<py::object>(
            reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr())));
      }
      break;
    }
    case PyTreeKind::kList: {
      // Hold the list alive and index it each time: a callback (is_leaf,
      // custom flatten) could mutate it under us.
      py::object list = py::reinterpret_borrow<py::object>(obj);
      for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list.ptr()); ++i, ++arity) {
        py::object item = py::reinterpret_borrow<py::object>(PyList_GET_ITEM(list.ptr(), i));
        FlattenImpl(item, is_leaf, leaves);
      }
      break;
    }
    case PyTreeKind::kDict: {
      node_data = SortedKeys(obj);
      arity = static_cast<int>(PyList_GET_SIZE(node_data.ptr()));
      for (int i = 0; i < arity; ++i) {
        PyObject* value = PyDict_GetItemWithError(obj.ptr(), PyList_GET_ITEM(node_data.ptr(), i));
        if (!value) {
          if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_RuntimeError, "dict changed size during pytree flatten");
          }
          throw py::error_already_set();
        }
        FlattenImpl(py::reinterpret_borrow<py::object>(value), is_leaf, leaves);
      }
      break;
    }
    case PyTreeKind::kCustom: {
      py::object result = custom->flatten(obj);
      if (!PyTuple_Check(result.ptr()) || PyTuple_GET_SIZE(result.ptr()) != 2) {
        throw py::value_error(absl::StrCat(
            "The flatten function registered for ", PyRepr(custom->type),
            " must return a pair (children, aux_data), got ", PyRepr(result)));
      }
      node_data = py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(result.ptr(), 1));
      for (py::handle child : py::iter(PyTuple_GET_ITEM(result.ptr(), 0))) {
        FlattenImpl(child, is_leaf, leaves);
        ++arity;
      }
      break;
    }
  }
  PyTreeNode& node = traversal_[index];
  node.kind = kind;
  node.arity = arity;
  node.node_data = std::move(node_data);
  node.custom = custom;
  node.num_leaves = static_cast<int>(leaves.size() - first_leaf);
  node.num_nodes = static_cast<int>(traversal_.size() - index);
}

PyTreeDef PyTreeDef::Tuple(absl::Span<const PyTreeDef> children) {
  PyTreeDef def;
  PyTreeNode root;
  root.kind = PyTreeKind::kTuple;
  root.arity = static_cast<int>(children.size());
  root.num_nodes = 1;
  for (const PyTreeDef& child : children) {
    root.num_leaves += child.num_leaves();
    root.num_nodes += child.num_nodes();
  }
  def.traversal_.push_back(std::move(root));
  for (const PyTreeDef& child : children) {
    def.traversal_.insert(def.traversal_.end(), child.traversal_.begin(), child.traversal_.end());
  }
  return def;
}

py::object PyTreeDef::Unflatten(absl::Span<const py::object> leaves) const {
  const size_t expected = num_leaves();
  if (leaves.size() != expected) {
    throw py::value_error(absl::StrCat(leaves.size() < expected ? "Too few" : "Too many",
                                       " leaves for PyTreeDef; expected ", expected, ", got ",
                                       leaves.size(), "."));
  }
  if (traversal_.empty()) return py::none();
  size_t node = 0;
  const py::object* leaf = leaves.data();
  return BuildImpl(node, leaf);
}

py::object PyTreeDef::BuildImpl(size_t& index, const py::object*& leaf) const {
  RecursionGuard guard(" while unflattening a pytree");
  const PyTreeNode& node = traversal_[index++];
  switch (node.kind) {
    case PyTreeKind::kLeaf:
      return *leaf++;
    case PyTreeKind::kNone:
      return py::none();
    case PyTreeKind::kTuple:
    case PyTreeKind::kNamedTuple:
    case PyTreeKind::kCustom: {
      py::tuple children(node.arity);
      for (int i = 0; i < node.arity; ++i) {
        PyTuple_SET_ITEM(children.ptr(), i, BuildImpl(index, leaf).release().ptr());
      }
      if (node.kind == PyTreeKind::kTuple) return std::move(children);
      if (node.kind == PyTreeKind::kNamedTuple) return node.node_data(*children);
      return node.custom->unflatten(node.node_data, children);
    }
    case PyTreeKind::kList: {
      py::list children(node.arity);
      for (int i = 0; i < node.arity; ++i) {
        PyList_SET_ITEM(children.ptr(), i, BuildImpl(index, leaf).release().ptr());
      }
      return std::move(children);
    }
    case PyTreeKind::kDict: {
      py::dict dict;
      for (int i = 0; i < node.arity; ++i) {
        py::object value = BuildImpl(index, leaf);
        if (PyDict_SetItem(dict.ptr(), PyList_GET_ITEM(node.node_data.ptr(), i), value.ptr())) {
          throw py::error_already_set();
        }
      }
      return std::move(dict);
    }
  }
  throw py::value_error("corrupt PyTreeDef");
}

std::vector<PyTreeDef> PyTreeDef::Children() const {
  std::vector<PyTreeDef> children;
  if (traversal_.empty()) return children;
  size_t index = 1;
  for (int i = 0; i < traversal_[0].arity; ++i) {
    const size_t end = index + traversal_[index].num_nodes;
    PyTreeDef child;
    child.traversal_.assign(traversal_.begin() + index, traversal_.begin() + end);
    children.push_back(std::move(child));
    index = end;
  }
  return children;
}

py::object PyTreeDef::NodeData() const {
  if (traversal_.empty()) return py::none();
  const PyTreeNode& root = traversal_[0];
  auto type_of = [](PyTypeObject* t) { return py::reinterpret_borrow<py::object>(
                                           reinterpret_cast<PyObject*>(t)); };
  switch (root.kind) {
    case PyTreeKind::kLeaf: return py::none();
    case PyTreeKind::kNone: return py::make_tuple(type_of(Py_TYPE(Py_None)), py::none());
    case PyTreeKind::kTuple: return py::make_tuple(type_of(&PyTuple_Type), py::none());
    case PyTreeKind::kList: return py::make_tuple(type_of(&PyList_Type), py::none());
    // A copy: the key list is shared with the treedef and must stay unchanged.
    case PyTreeKind::kDict: return py::make_tuple(type_of(&PyDict_Type), py::list(root.node_data));
    case PyTreeKind::kNamedTuple: return py::make_tuple(root.node_data, py::none());
    case PyTreeKind::kCustom: return py::make_tuple(root.custom->type, root.node_data);
  }
  return py::none();
}

bool PyTreeDef::operator==(const PyTreeDef& other) const {
  if (traversal_.size() != other.traversal_.size()) return false;
  for (size_t i = 0; i < traversal_.size(); ++i) {
    const PyTreeNode& a = traversal_[i];
    const PyTreeNode& b = other.traversal_[i];
    if (a.kind != b.kind || a.arity != b.arity || a.custom != b.custom ||
        a.num_leaves != b.num_leaves) {
      return false;
    }
    switch (a.kind) {
      case PyTreeKind::kNamedTuple:
        if (a.node_data.ptr() != b.node_data.ptr()) return false;
        break;
      case PyTreeKind::kDict:
      case PyTreeKind::kCustom:
        if (!PyEquals(a.node_data, b.node_data)) return false;
        break;
      default:
        break;
    }
  }
  return true;
}

size_t PyTreeDef::Hash() const {
  size_t h = absl::HashOf(traversal_.size());
  for (const PyTreeNode& node : traversal_) {
    const void* type = node.kind == PyTreeKind::kNamedTuple ? node.node_data.ptr()
                       : node.custom ? node.custom->type.ptr() : nullptr;
    h = absl::HashOf(h, static_cast<int>(node.kind), node.arity, type);
  }
  return h;
}

std::string PyTreeDef::ToString() const {
  std::string out = "PyTreeDef(";
  if (traversal_.empty()) {
    out += "None";
  } else {
    size_t node = 0;
    ReprImpl(node, out);
  }
  out += ")";
  return out;
}

void PyTreeDef::ReprImpl(size_t& index, std::string& out) const {
  const PyTreeNode& node = traversal_[index++];
  auto children = [&](const char* separator, auto&& before_each) {
    for (int i = 0; i < node.arity; ++i) {
      if (i > 0) out += separator;
      before_each(i);
      ReprImpl(index, out);
    }
  };
  auto nothing = [](int) {};
  switch (node.kind) {
    case PyTreeKind::kLeaf: out += "*"; return;
    case PyTreeKind::kNone: out += "None"; return;
    case PyTreeKind::kTuple:
      out += "(";
      children(", ", nothing);
      out += node.arity == 1 ? ",)" : ")";
      return;
    case PyTreeKind::kList:
      out += "[";
      children(", ", nothing);
      out += "]";
      return;
    case PyTreeKind::kDict:
      out += "{";
      children(", ", [&](int i) {
        out += PyRepr(PyList_GET_ITEM(node.node_data.ptr(), i));
        out += ": ";
      });
      out += "}";
      return;
    case PyTreeKind::kNamedTuple: {
      py::tuple fields = py::tuple(node.node_data.attr("_fields"));
      out += TypeName(node.node_data) + "(";
      children(", ", [&](int i) {
        if (i < static_cast<int>(fields.size())) out += py::str(fields[i]).cast<std::string>() + "=";
      });
      out += ")";
      return;
    }
    case PyTreeKind::kCustom:
      out += "CustomNode(" + TypeName(node.custom->type) + "[" + PyRepr(node.node_data) + "], [";
      children(", ", nothing);
      out += "])";
      return;
  }
}

}  // namespace xjit::python
