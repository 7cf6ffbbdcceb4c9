// Host values (numpy arrays, numpy and Python scalars, xjit.Arrays) to
// device buffers. Shared by device_put, Executable.execute and the jit path.
#pragma once

#include <memory>
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "absl/status/statusor.h"
#include "xjit/runtime/buffer.h"
#include "xjit/runtime/device.h"

namespace xjit::python {

namespace py = pybind11;

// Copies `value` into a new ready buffer on `device`. With `dtype`, the value
// is first converted to it (numpy astype rules); without, numpy's dtype is
// kept as is (no 64->32 bit canonicalization: that is the caller's policy).
// Unsupported dtypes (object, str, float128) are InvalidArgument.
// np.ascontiguousarray(value, dtype) without a Python-level call and without
// its promotion of 0-d arrays to 1-d; returns `value` itself when it already
// is a C-contiguous array of that dtype. Throws py::error_already_set.
py::array AsContiguousArray(const py::object& value, std::optional<DType> dtype = std::nullopt);

absl::StatusOr<std::shared_ptr<Buffer>> BufferFromPython(py::handle value, Device* device,
                                                         std::optional<DType> dtype = std::nullopt);

}  // namespace xjit::python
