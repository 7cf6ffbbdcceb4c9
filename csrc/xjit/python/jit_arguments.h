// Turns the leaves of a jit call into device buffers on a cache hit.
#pragma once

#include <memory>

#include <pybind11/pybind11.h>

#include "xjit/python/jit_signature.h"
#include "xjit/python/py_array.h"
#include "xjit/runtime/buffer.h"
#include "xjit/runtime/device.h"

namespace xjit::python {

namespace py = pybind11;

// The buffer for `leaf`, converted to sig.dtype (canonicalization), on
// `device`. Throws the Python exception (OverflowError for a Python int that
// does not fit int32/int64, as JAX does). A large, 16-byte aligned,
// C-contiguous numpy array of sig.dtype on a host device is read in place,
// not copied (as JAX does on the CPU); `*aliased` is then set, and the
// caller must keep `leaf` alive and wait for the results before returning,
// so that the user cannot change the array while the program reads it.
// `aliased` null: always copy (a program without results gives nothing to
// wait for).
std::shared_ptr<Buffer> LeafToBuffer(py::handle leaf, LeafSource source, PyArray* array,
                                     const LeafSignature& sig, Device* device, bool* aliased);

}  // namespace xjit::python
