// The jit cache key: what a compiled executable was specialized on. JAX's
// rules: tree structure, static argument values, and per leaf (dtype, shape,
// weak_type) after 64->32 bit canonicalization unless x64 is on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include <pybind11/pybind11.h>

#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "xjit/ir/dtype.h"
#include "xjit/python/py_array.h"
#include "xjit/python/pytree.h"

namespace xjit::python {

namespace py = pybind11;

// The process-wide x64 switch (xjit.config.update("jax_enable_x64", ...)
// calls _xjit.set_x64). A plain bool: the hot path reads it on every call.
bool X64Enabled();
void SetX64(bool enabled);

// Any other process-wide setting a compiled executable depends on, as one
// number the Python config changes when such a setting does (today: the
// default platform, jax_platform_name). Part of every key, like x64.
int64_t JitContext();
void SetJitContext(int64_t context);

// The 32-bit type a 64-bit one becomes when x64 is off (identity otherwise).
DType CanonicalDType(DType t, bool x64);

// Where a leaf's value comes from; decides how it reaches the device.
enum class LeafSource : uint8_t { kArray, kNumpy, kBool, kInt, kFloat, kComplex };

struct LeafSignature {
  DType dtype = DType::kF32;
  bool weak_type = false;
  absl::InlinedVector<int64_t, 4> dims;

  bool operator==(const LeafSignature& o) const {
    return dtype == o.dtype && weak_type == o.weak_type && dims == o.dims;
  }
  template <typename H>
  friend H AbslHashValue(H h, const LeafSignature& s) {
    return H::combine(std::move(h), s.dtype, s.weak_type, s.dims);
  }
};

// Fills `sig` (and `source`, and `array` for an xjit.Array) for a leaf that
// is an xjit.Array, a numpy array or scalar, or a Python bool/int/float/
// complex. Returns false for anything else (the cache miss path raises).
bool ComputeLeafSignature(py::handle leaf, bool x64, LeafSignature* sig, LeafSource* source,
                          PyArray** array);

// A static argument: kept alive in the key, hashed once with Python's hash.
struct StaticArg {
  py::object name;  // None for a positional static argument
  py::object value;
  Py_hash_t hash;
};

struct CallSignature {
  PyTreeDef treedef;  // of (tuple(dynamic_args), dynamic_kwargs)
  absl::InlinedVector<StaticArg, 2> statics;  // positional in order, then kwargs by name
  absl::InlinedVector<LeafSignature, 8> leaves;
  // The device of the first xjit.Array leaf (null: none). The computation
  // runs there when it is on the default platform, as JAX runs a
  // computation where its committed inputs are (api.py, _jit_device).
  const void* first_array_device = nullptr;
  bool x64 = false;
  int64_t context = 0;
  size_t hash = 0;

  // Sets `hash` from everything above; call once the fields are final.
  void ComputeHash();
  // Static values are compared with Python == (may throw error_already_set).
  bool operator==(const CallSignature& o) const;
};

struct CallSignatureHash {
  size_t operator()(const CallSignature& s) const { return s.hash; }
};

}  // namespace xjit::python
