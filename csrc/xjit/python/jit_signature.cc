#include "xjit/python/jit_signature.h"

#include <pybind11/numpy.h>

#include "xjit/python/dtype_conversion.h"

namespace xjit::python {
namespace {

bool g_x64 = false;
int64_t g_jit_context = 0;

// The numpy dtype behind a descr, or nullopt for types xjit cannot hold
// (object, str, longdouble, datetime ...).
bool DTypeOfDescr(PyObject* descr, DType* out) {
  absl::StatusOr<DType> t = FromNumpyDType(py::reinterpret_borrow<py::dtype>(descr));
  if (!t.ok()) return false;
  *out = *t;
  return true;
}

bool IsNumpyScalar(py::handle obj) {
  // numpy.generic, looked up once; its subclasses are every numpy scalar type.
  static PyObject* generic =
      py::object(py::module_::import("numpy").attr("generic")).release().ptr();
  return PyObject_TypeCheck(obj.ptr(), reinterpret_cast<PyTypeObject*>(generic));
}

}  // namespace

bool X64Enabled() { return g_x64; }
void SetX64(bool enabled) { g_x64 = enabled; }
int64_t JitContext() { return g_jit_context; }
void SetJitContext(int64_t context) { g_jit_context = context; }

DType CanonicalDType(DType t, bool x64) {
  if (x64) return t;
  switch (t) {
    case DType::kS64: return DType::kS32;
    case DType::kU64: return DType::kU32;
    case DType::kF64: return DType::kF32;
    case DType::kC128: return DType::kC64;
    default: return t;
  }
}

bool ComputeLeafSignature(py::handle leaf, bool x64, LeafSignature* sig, LeafSource* source,
                          PyArray** array) {
  PyObject* obj = leaf.ptr();
  *array = nullptr;
  sig->dims.clear();
  if (PyArray* a = TryGetPyArray(leaf)) {
    // An Array keeps its own type: it was canonicalized when it was made.
    const Shape& shape = a->buffer->shape();
    sig->dtype = shape.dtype;
    sig->weak_type = a->weak_type;
    sig->dims.assign(shape.dims.begin(), shape.dims.end());
    *source = LeafSource::kArray;
    *array = a;
    return true;
  }
  // Exact Python scalars first (the common case), then numpy, then Python
  // scalar subclasses: np.float64 subclasses float but is a strong type.
  if (PyBool_Check(obj)) {  // bool is an int subclass but strong in JAX
    sig->dtype = DType::kPred;
    sig->weak_type = false;
    *source = LeafSource::kBool;
    return true;
  }
  auto python_scalar = [&](DType t32, DType t64, LeafSource src) {
    sig->dtype = x64 ? t64 : t32;
    sig->weak_type = true;
    *source = src;
    return true;
  };
  if (PyLong_CheckExact(obj)) return python_scalar(DType::kS32, DType::kS64, LeafSource::kInt);
  if (PyFloat_CheckExact(obj)) return python_scalar(DType::kF32, DType::kF64, LeafSource::kFloat);
  if (PyComplex_CheckExact(obj)) {
    return python_scalar(DType::kC64, DType::kC128, LeafSource::kComplex);
  }
  auto& api = py::detail::npy_api::get();
  if (api.PyArray_Check_(obj)) {
    const py::detail::PyArray_Proxy* proxy = py::detail::array_proxy(obj);
    DType t;
    if (!DTypeOfDescr(proxy->descr, &t)) return false;
    sig->dtype = CanonicalDType(t, x64);
    sig->weak_type = false;
    sig->dims.assign(proxy->dimensions, proxy->dimensions + proxy->nd);
    *source = LeafSource::kNumpy;
    return true;
  }
  if (IsNumpyScalar(leaf)) {
    py::object descr = py::reinterpret_steal<py::object>(api.PyArray_DescrFromScalar_(obj));
    if (!descr) {
      PyErr_Clear();
      return false;
    }
    DType t;
    if (!DTypeOfDescr(descr.ptr(), &t)) return false;
    sig->dtype = CanonicalDType(t, x64);
    sig->weak_type = false;
    *source = LeafSource::kNumpy;
    return true;
  }
  if (PyLong_Check(obj)) return python_scalar(DType::kS32, DType::kS64, LeafSource::kInt);
  if (PyFloat_Check(obj)) return python_scalar(DType::kF32, DType::kF64, LeafSource::kFloat);
  if (PyComplex_Check(obj)) return python_scalar(DType::kC64, DType::kC128, LeafSource::kComplex);
  return false;
}

void CallSignature::ComputeHash() {
  size_t h = absl::HashOf(treedef.Hash(), x64, context, leaves.size(), first_array_device);
  for (const StaticArg& s : statics) h = absl::HashOf(h, s.hash);
  for (const LeafSignature& leaf : leaves) h = absl::HashOf(h, leaf);
  hash = h;
}

bool CallSignature::operator==(const CallSignature& o) const {
  if (hash != o.hash || x64 != o.x64 || context != o.context ||
      first_array_device != o.first_array_device || leaves != o.leaves ||
      statics.size() != o.statics.size()) {
    return false;
  }
  for (size_t i = 0; i < statics.size(); ++i) {
    const StaticArg& a = statics[i];
    const StaticArg& b = o.statics[i];
    if (a.hash != b.hash) return false;
    if (a.name.ptr() != b.name.ptr()) {
      // Names are interned strings in practice; compare by value to be safe.
      if (a.name.is_none() || b.name.is_none() || !a.name.equal(b.name)) return false;
    }
    if (a.value.ptr() != b.value.ptr()) {
      int eq = PyObject_RichCompareBool(a.value.ptr(), b.value.ptr(), Py_EQ);
      if (eq < 0) throw py::error_already_set();
      if (eq == 0) return false;
    }
  }
  return treedef == o.treedef;
}

}  // namespace xjit::python
