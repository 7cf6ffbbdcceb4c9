// _xjit.user_location(prefix): "file:line" of the innermost Python frame whose
// code's file does not start with `prefix` (the xjit package's directory), or
// "" when there is none. Every traced op asks (traceback_util.user_location);
// walking a dozen frames in Python cost a quarter of a trace, mostly the dict
// look-ups (code objects hash by content) and the loop itself.
#include "xjit/python/source_location.h"

#include <Python.h>
#include <frameobject.h>

#include "absl/container/flat_hash_map.h"

namespace xjit::python {
namespace {

// code object -> whether its file is under the prefix. It holds a reference
// to each code object, so that no other one is cached at its address.
struct CodeCache {
  py::object prefix;
  absl::flat_hash_map<PyObject*, bool> internal;

  void Clear() {
    for (const auto& entry : internal) Py_DECREF(entry.first);
    internal.clear();
  }
};

CodeCache& Cache() {
  static auto* cache = new CodeCache();  // never destroyed: no decrefs after finalisation
  return *cache;
}

py::object Filename(PyObject* code) {
  return py::reinterpret_steal<py::object>(PyObject_GetAttrString(code, "co_filename"));
}

// Whether `code` is the package's (its co_filename starts with the prefix).
bool IsInternal(CodeCache& cache, PyObject* code) {
  auto it = cache.internal.find(code);
  if (it != cache.internal.end()) return it->second;
  if (cache.internal.size() > 50'000) cache.Clear();  // code made on the fly (exec)
  py::object filename = Filename(code);
  if (!filename) throw py::error_already_set();
  Py_ssize_t match = PyUnicode_Check(filename.ptr())
                         ? PyUnicode_Tailmatch(filename.ptr(), cache.prefix.ptr(), 0,
                                               PY_SSIZE_T_MAX, -1)
                         : 0;
  if (match < 0) throw py::error_already_set();
  Py_INCREF(code);
  cache.internal.emplace(code, match == 1);
  return match == 1;
}

py::object UserLocation(py::str prefix) {
  CodeCache& cache = Cache();
  if (!cache.prefix || (cache.prefix.ptr() != prefix.ptr() && !cache.prefix.equal(prefix))) {
    cache.Clear();
    cache.prefix = prefix;
  }
  // PyFrame_GetBack makes the caller's frame object on 3.11+ (as f_back does).
  py::object frame = py::reinterpret_borrow<py::object>(
      reinterpret_cast<PyObject*>(PyEval_GetFrame()));
  while (frame) {
    auto* f = reinterpret_cast<PyFrameObject*>(frame.ptr());
    py::object code = py::reinterpret_steal<py::object>(
        reinterpret_cast<PyObject*>(PyFrame_GetCode(f)));
    if (!IsInternal(cache, code.ptr())) {
      // As f"{co_filename}:{f_lineno}" (f_lineno is None when unknown).
      int line = PyFrame_GetLineNumber(f);
      py::object filename = Filename(code.ptr());
      if (!filename) throw py::error_already_set();
      PyObject* text = line < 0 ? PyUnicode_FromFormat("%S:None", filename.ptr())
                                : PyUnicode_FromFormat("%S:%d", filename.ptr(), line);
      if (text == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(text);
    }
    frame = py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(PyFrame_GetBack(f)));
  }
  return py::str("");
}

}  // namespace

void RegisterSourceLocation(py::module_& m) {
  m.def("user_location", &UserLocation, py::arg("prefix"),
        "\"file:line\" of the innermost Python frame whose code's file does not start "
        "with prefix (\"\" when there is none).");
}

}  // namespace xjit::python
