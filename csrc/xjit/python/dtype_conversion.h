// numpy dtype <-> xjit DType, with bfloat16 from ml_dtypes.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "absl/status/statusor.h"
#include "xjit/ir/dtype.h"

namespace xjit::python {

namespace py = pybind11;

py::dtype ToNumpyDType(DType t);
// The element type only: byte order is not looked at (see IsByteSwapped).
absl::StatusOr<DType> FromNumpyDType(const py::dtype& dt);

// Whether data of dtype `dt` is stored in the non-native byte order ('>i4' on
// x86): such data must be converted (NativeByteOrder) before it is copied.
bool IsByteSwapped(const py::dtype& dt);
py::dtype NativeByteOrder(const py::dtype& dt);

}  // namespace xjit::python

namespace xjit::python {

// A dtype given as a name ("float32", "f32", "bfloat16") or anything
// np.dtype() accepts (np.float32, np.dtype(...), ml_dtypes.bfloat16).
absl::StatusOr<DType> DTypeFromPython(py::handle obj);

}  // namespace xjit::python
