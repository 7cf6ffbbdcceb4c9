// The jit call path (docs/bindings.md, "The jit fast path"). A hit runs no
// Python code: split statics, flatten, build the key, look it up, put the
// leaves on the device, execute asynchronously, unflatten the outputs.
#include "xjit/python/jit_function.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xjit/python/jit_arguments.h"
#include "xjit/python/jit_signature.h"
#include "xjit/python/py_array.h"
#include "xjit/python/pytree.h"
#include "xjit/python/status_casters.h"
#include "xjit/runtime/executable.h"

namespace xjit::python {
namespace {

struct JitCacheEntry {
  std::shared_ptr<Executable> executable;
  PyTreeDef out_treedef;
  absl::InlinedVector<bool, 4> out_weak_types;
  // One flag per leaf (empty: nothing donated): donate_argnums/argnames
  // resolved to leaves, fixed by the key's tree structure.
  absl::InlinedVector<bool, 8> donated;
};

// A cached entry and when it was last used (the function's use counter at
// that time): a hit only stores the counter, so the LRU costs a hit O(1).
struct CachedEntry {
  std::shared_ptr<JitCacheEntry> entry;
  uint64_t last_use = 0;
};

// The most entries one jitted function keeps (config "jax_jit_cache_size",
// JAX's pjit cache default 4096); a miss that would exceed it evicts the
// least recently used entry. Read on each insertion, so a lower limit takes
// effect at each function's next miss.
int64_t jit_cache_limit = 4096;

void SetJitCacheLimit(int64_t limit) {
  if (limit < 1) {
    throw py::value_error(absl::StrCat("jax_jit_cache_size must be at least 1, got ", limit));
  }
  jit_cache_limit = limit;
}

// config "jax_disable_jit": jitted functions run their Python function
// directly, op by op (JAX's disable_jit, for debugging). Read under the GIL.
bool jit_disabled = false;

// What one call's leaves were classified as, kept for the hit path.
struct CallLeaves {
  PyTreeLeaves objects;
  absl::InlinedVector<LeafSource, 8> sources;
  absl::InlinedVector<PyArray*, 8> arrays;
};

std::string TypeRepr(py::handle obj) {
  return py::repr(py::type::handle_of(obj)).cast<std::string>();
}

// JAX's behaviour and message: a TypeError from hash() becomes a ValueError
// that names the value; any other error propagates unchanged.
Py_hash_t HashStatic(py::handle value) {
  Py_hash_t h = PyObject_Hash(value.ptr());
  if (h != -1) return h;
  py::error_already_set error;
  if (!error.matches(PyExc_TypeError)) throw error;
  std::string message = absl::StrCat(
      "Non-hashable static arguments are not supported. An error occurred while trying to "
      "hash an object of type ", py::str(py::type::handle_of(value)).cast<std::string>(), ", ",
      py::str(value).cast<std::string>(), ". The error was:\n", error.what(), "\n");
  throw py::value_error(message);
}

class JitFunction {
 public:
  JitFunction(py::object fun, py::object cache_miss, std::vector<int> static_argnums,
              std::vector<std::string> static_argnames)
      : fun_(std::move(fun)), cache_miss_(std::move(cache_miss)),
        static_argnums_(std::move(static_argnums)) {
    if (!PyCallable_Check(cache_miss_.ptr())) throw py::type_error("cache_miss must be callable");
    // Sorted, so static kwargs enter the key in a canonical order; interned,
    // so key comparison usually succeeds on the pointer.
    std::sort(static_argnames.begin(), static_argnames.end());
    static_argnames.erase(std::unique(static_argnames.begin(), static_argnames.end()),
                          static_argnames.end());
    for (const std::string& name : static_argnames) {
      PyObject* s = PyUnicode_InternFromString(name.c_str());
      if (!s) throw py::error_already_set();
      static_argnames_.push_back(py::reinterpret_steal<py::object>(s));
    }
  }

  py::object Call(PyObject* args, PyObject* kwargs);

  size_t cache_size() const { return cache_.size(); }
  void clear_cache() {
    auto cache = std::move(cache_);  // released after cache_ is valid again
    cache_.clear();
  }

  int Traverse(visitproc visit, void* arg) {
    Py_VISIT(fun_.ptr());
    Py_VISIT(cache_miss_.ptr());
    return 0;
  }
  void Clear() {
    // Moved out first: releasing them may run Python code that calls us.
    py::object fun = std::move(fun_);
    py::object cache_miss = std::move(cache_miss_);
    auto cache = std::move(cache_);
    cache_.clear();
  }

 private:
  // Fills the key and the leaves; false when a leaf is neither an array nor
  // a scalar (such calls are never cached).
  bool MakeSignature(PyObject* args, PyObject* kwargs, CallSignature& sig, CallLeaves& leaves);
  py::object Execute(const JitCacheEntry& entry, const CallSignature& sig, CallLeaves& leaves);
  py::object Miss(PyObject* args, PyObject* kwargs, bool cacheable, CallSignature& sig);
  // Evicts least recently used entries until one more fits under the limit.
  // Only a miss (which traces and compiles) pays this O(size) scan.
  void MakeRoomForOne();

  py::object fun_;
  py::object cache_miss_;
  std::vector<int> static_argnums_;
  std::vector<py::object> static_argnames_;
  absl::flat_hash_map<CallSignature, CachedEntry, CallSignatureHash> cache_;
  uint64_t use_counter_ = 0;
};

void JitFunction::MakeRoomForOne() {
  while (!cache_.empty() && static_cast<int64_t>(cache_.size()) >= jit_cache_limit) {
    auto oldest = cache_.begin();
    for (auto it = cache_.begin(); it != cache_.end(); ++it) {
      if (it->second.last_use < oldest->second.last_use) oldest = it;
    }
    // Extracted, so the key's and entry's Python objects are released after
    // the map is consistent again (releasing them may run Python code).
    auto evicted = cache_.extract(oldest);
  }
}

bool JitFunction::MakeSignature(PyObject* args, PyObject* kwargs, CallSignature& sig,
                                CallLeaves& leaves) {
  // Positional arguments: the tuple itself unless some are static.
  py::object dyn_args = py::reinterpret_borrow<py::object>(args);
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (!static_argnums_.empty()) {
    absl::InlinedVector<bool, 8> is_static(n, false);
    for (int num : static_argnums_) {
      const Py_ssize_t i = num < 0 ? num + n : num;  // negative: counted from the end
      if (i >= 0 && i < n) is_static[i] = true;
    }
    const Py_ssize_t num_static = std::count(is_static.begin(), is_static.end(), true);
    if (num_static > 0) {
      py::tuple dynamic(n - num_static);
      for (Py_ssize_t i = 0, j = 0; i < n; ++i) {
        PyObject* item = PyTuple_GET_ITEM(args, i);
        if (is_static[i]) {
          sig.statics.push_back(StaticArg{py::none(), py::reinterpret_borrow<py::object>(item),
                                          HashStatic(item)});
        } else {
          Py_INCREF(item);
          PyTuple_SET_ITEM(dynamic.ptr(), j++, item);
        }
      }
      dyn_args = std::move(dynamic);
    }
  }
  // Keyword arguments: an empty dict stands for none.
  static PyObject* empty_kwargs = PyDict_New();
  py::object dyn_kwargs = py::reinterpret_borrow<py::object>(
      kwargs && PyDict_GET_SIZE(kwargs) > 0 ? kwargs : empty_kwargs);
  if (kwargs && PyDict_GET_SIZE(kwargs) > 0 && !static_argnames_.empty()) {
    py::object copy;
    for (const py::object& name : static_argnames_) {
      PyObject* value = PyDict_GetItemWithError(kwargs, name.ptr());
      if (!value) {
        if (PyErr_Occurred()) throw py::error_already_set();
        continue;
      }
      sig.statics.push_back(StaticArg{name, py::reinterpret_borrow<py::object>(value),
                                      HashStatic(value)});
      if (!copy) copy = py::reinterpret_steal<py::object>(PyDict_Copy(kwargs));
      if (!copy || PyDict_DelItem(copy.ptr(), name.ptr()) != 0) throw py::error_already_set();
    }
    if (copy) dyn_kwargs = std::move(copy);
  }

  py::tuple tree = py::make_tuple(dyn_args, dyn_kwargs);
  sig.treedef = PyTreeDef::Flatten(tree, py::handle(), leaves.objects);
  sig.x64 = X64Enabled();
  sig.context = JitContext();
  const size_t num_leaves = leaves.objects.size();
  sig.leaves.resize(num_leaves);
  leaves.sources.resize(num_leaves);
  leaves.arrays.resize(num_leaves);
  for (size_t i = 0; i < num_leaves; ++i) {
    if (!ComputeLeafSignature(leaves.objects[i], sig.x64, &sig.leaves[i], &leaves.sources[i],
                              &leaves.arrays[i])) {
      return false;
    }
    if (sig.first_array_device == nullptr && leaves.arrays[i] != nullptr) {
      sig.first_array_device = leaves.arrays[i]->buffer->device();
    }
  }
  sig.ComputeHash();
  return true;
}

py::object JitFunction::Execute(const JitCacheEntry& entry, const CallSignature& sig,
                                CallLeaves& leaves) {
  Executable& exe = *entry.executable;
  absl::InlinedVector<std::shared_ptr<Buffer>, 8> buffers;
  buffers.reserve(leaves.objects.size());
  bool aliased = false;
  bool* may_alias = entry.out_weak_types.empty() ? nullptr : &aliased;
  for (size_t i = 0; i < leaves.objects.size(); ++i) {
    buffers.push_back(LeafToBuffer(leaves.objects[i], leaves.sources[i], leaves.arrays[i],
                                   sig.leaves[i], exe.device(), may_alias));
  }
  if (!entry.donated.empty()) {
    // A donated array's own numpy view must not keep its memory from reuse.
    for (size_t i = 0; i < leaves.arrays.size(); ++i) {
      if (entry.donated[i] && leaves.arrays[i] != nullptr) leaves.arrays[i]->numpy_cache = py::object();
    }
  }
  ResultBuffers results = ValueOrThrow(exe.Execute(buffers, absl::MakeConstSpan(entry.donated)));
  if (aliased) {
    // numpy arrays read in place: the program must be done with them before
    // the user gets control back (an error surfaces when a result is read).
    py::gil_scoped_release release;
    for (const std::shared_ptr<Buffer>& r : results) r->ready()->Await().IgnoreError();
  }
  if (results.size() != entry.out_weak_types.size()) {
    throw py::value_error(absl::StrCat("jit: the executable returned ", results.size(),
                                       " results but the cache entry expects ",
                                       entry.out_weak_types.size()));
  }
  PyTreeLeaves outputs;
  outputs.reserve(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    outputs.push_back(MakePyArray(std::move(results[i]), entry.out_weak_types[i]));
  }
  return entry.out_treedef.Unflatten(outputs);
}

// Rejects entries whose executable cannot take this call's leaves: a hit
// would otherwise fail (or worse, misinterpret) on every later call.
void CheckEntryMatches(const JitCacheEntry& entry, const CallSignature& sig) {
  const std::vector<Shape>& params = entry.executable->parameter_shapes();
  if (!entry.donated.empty() && entry.donated.size() != sig.leaves.size()) {
    throw py::value_error(absl::StrCat("jit: the cache entry donates ", entry.donated.size(),
                                       " leaves but the call has ", sig.leaves.size()));
  }
  if (params.size() != sig.leaves.size()) {
    throw py::value_error(absl::StrCat(
        "jit: the cache entry's executable takes ", params.size(),
        " parameters but the call has ", sig.leaves.size(), " array leaves"));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const LeafSignature& leaf = sig.leaves[i];
    if (params[i].is_tuple || params[i].dtype != leaf.dtype ||
        !std::equal(params[i].dims.begin(), params[i].dims.end(), leaf.dims.begin(),
                    leaf.dims.end())) {
      throw py::value_error(absl::StrCat("jit: parameter ", i, " of the cache entry's executable is ",
                                         params[i].ToString(), " but the call's leaf ", i,
                                         " has dtype ", NumpyName(leaf.dtype), " and rank ",
                                         leaf.dims.size()));
    }
  }
}

py::object JitFunction::Miss(PyObject* args, PyObject* kwargs, bool cacheable,
                             CallSignature& sig) {
  py::object cache_miss = cache_miss_;  // stays alive even if we are cleared meanwhile
  if (!cache_miss) throw py::type_error("jit function was cleared by the garbage collector");
  py::object result = py::reinterpret_steal<py::object>(PyObject_Call(cache_miss.ptr(), args, kwargs));
  if (!result) throw py::error_already_set();
  if (!PyTuple_Check(result.ptr()) || PyTuple_GET_SIZE(result.ptr()) != 2) {
    throw py::type_error("jit: cache_miss must return a tuple (outputs, entry), got " +
                         TypeRepr(result));
  }
  py::object outputs = py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(result.ptr(), 0));
  py::handle entry_obj = PyTuple_GET_ITEM(result.ptr(), 1);
  if (!cacheable || entry_obj.is_none()) return outputs;
  if (!py::isinstance<JitCacheEntry>(entry_obj)) {
    throw py::type_error("jit: cache_miss must return a JitCacheEntry or None as entry, got " +
                         TypeRepr(entry_obj));
  }
  auto entry = entry_obj.cast<std::shared_ptr<JitCacheEntry>>();
  CheckEntryMatches(*entry, sig);
  if (cache_.find(sig) == cache_.end()) MakeRoomForOne();
  cache_.insert_or_assign(std::move(sig), CachedEntry{std::move(entry), ++use_counter_});
  return outputs;
}

py::object JitFunction::Call(PyObject* args, PyObject* kwargs) {
  if (jit_disabled) {
    py::object fun = fun_;  // stays alive even if we are cleared meanwhile
    if (!fun) throw py::type_error("jit function was cleared by the garbage collector");
    PyObject* out = PyObject_Call(fun.ptr(), args, kwargs);
    if (out == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(out);
  }
  CallSignature sig;
  CallLeaves leaves;
  const bool cacheable = MakeSignature(args, kwargs, sig, leaves);
  if (cacheable) {
    auto it = cache_.find(sig);
    if (it != cache_.end()) {
      it->second.last_use = ++use_counter_;
      std::shared_ptr<JitCacheEntry> entry = it->second.entry;  // survives a clear_cache meanwhile
      return Execute(*entry, sig, leaves);
    }
  }
  leaves.objects.clear();  // do not keep the arguments alive during tracing
  return Miss(args, kwargs, cacheable, sig);
}

JitFunction* GetJitFunction(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  py::detail::value_and_holder v_h = inst->get_value_and_holder();
  return v_h.holder_constructed() ? v_h.value_ptr<JitFunction>() : nullptr;
}

// tp_call of JitFunction: a direct slot skips pybind11's overload dispatch
// and argument conversion, which would cost more than the rest of a hit.
PyObject* JitFunctionTpCall(PyObject* self, PyObject* args, PyObject* kwargs) {
  try {
    JitFunction* fn = GetJitFunction(self);
    if (!fn) throw py::type_error("JitFunction is not initialized");
    return fn->Call(args, kwargs).release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

int JitFunctionTraverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!py::detail::is_holder_constructed(self)) return 0;
  JitFunction* fn = GetJitFunction(self);
  return fn ? fn->Traverse(visit, arg) : 0;
}

int JitFunctionClear(PyObject* self) {
  if (!py::detail::is_holder_constructed(self)) return 0;
  if (JitFunction* fn = GetJitFunction(self)) fn->Clear();
  return 0;
}

}  // namespace

void RegisterJit(py::module_& m) {
  m.def("set_x64", &SetX64, py::arg("enabled"),
        "Sets the x64 flag the jit fast path keys on (config.update('jax_enable_x64')).");
  m.def("get_x64", &X64Enabled);
  m.def("set_jit_context", &SetJitContext, py::arg("context"),
        "Sets the number standing for other settings the jit cache keys on (the default platform).");
  m.def("get_jit_context", &JitContext);
  m.def("set_jit_cache_size", &SetJitCacheLimit, py::arg("limit"),
        "Sets the most entries each jitted function's cache keeps (config 'jax_jit_cache_size').");
  m.def("get_jit_cache_size", [] { return jit_cache_limit; });
  m.def("set_jit_disabled", [](bool disabled) { jit_disabled = disabled; }, py::arg("disabled"),
        "Jitted functions call their Python function directly (config 'jax_disable_jit').");
  m.def("get_jit_disabled", [] { return jit_disabled; });

  py::class_<JitCacheEntry, std::shared_ptr<JitCacheEntry>>(m, "JitCacheEntry")
      .def(py::init([](py::object executable, const PyTreeDef& out_treedef,
                       const std::vector<bool>& out_weak_types, const std::vector<bool>& donated) {
             auto entry = std::make_shared<JitCacheEntry>();
             try {
               entry->executable = executable.cast<std::shared_ptr<Executable>>();
             } catch (const py::cast_error&) {
               throw py::type_error("JitCacheEntry: expected an Executable, got " +
                                    TypeRepr(executable));
             }
             if (!entry->executable) throw py::type_error("JitCacheEntry: executable is None");
             const size_t num_results = entry->executable->result_shapes().size();
             if (out_weak_types.size() != num_results ||
                 static_cast<size_t>(out_treedef.num_leaves()) != num_results) {
               throw py::value_error(absl::StrCat(
                   "JitCacheEntry: the executable has ", num_results, " results, out_treedef has ",
                   out_treedef.num_leaves(), " leaves and out_weak_types has ",
                   out_weak_types.size(), " flags; all three must agree"));
             }
             entry->out_treedef = out_treedef;
             entry->out_weak_types.assign(out_weak_types.begin(), out_weak_types.end());
             if (std::find(donated.begin(), donated.end(), true) != donated.end()) {
               entry->donated.assign(donated.begin(), donated.end());
             }
             return entry;
           }),
           py::arg("executable"), py::arg("out_treedef"), py::arg("out_weak_types"),
           py::arg("donated") = std::vector<bool>())
      .def_property_readonly("executable", [](const JitCacheEntry& e) { return e.executable; })
      .def_property_readonly("out_treedef", [](const JitCacheEntry& e) { return e.out_treedef; })
      .def_property_readonly("out_weak_types", [](const JitCacheEntry& e) {
        return std::vector<bool>(e.out_weak_types.begin(), e.out_weak_types.end());
      })
      .def_property_readonly("donated", [](const JitCacheEntry& e) {
        return std::vector<bool>(e.donated.begin(), e.donated.end());
      });

  py::class_<JitFunction>(m, "JitFunction", py::custom_type_setup([](PyHeapTypeObject* heap) {
                            PyTypeObject* type = &heap->ht_type;
                            type->tp_call = JitFunctionTpCall;
                            type->tp_flags |= Py_TPFLAGS_HAVE_GC;
                            type->tp_traverse = JitFunctionTraverse;
                            type->tp_clear = JitFunctionClear;
                          }))
      .def(py::init<py::object, py::object, std::vector<int>, std::vector<std::string>>(),
           py::arg("fun"), py::arg("cache_miss"), py::arg("static_argnums") = std::vector<int>(),
           py::arg("static_argnames") = std::vector<std::string>())
      .def("cache_size", &JitFunction::cache_size)
      .def("clear_cache", &JitFunction::clear_cache);
}

}  // namespace xjit::python
