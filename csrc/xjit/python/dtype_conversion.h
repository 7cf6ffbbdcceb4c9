// numpy dtype <-> xjit DType, with bfloat16 from ml_dtypes.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "absl/status/statusor.h"
#include "xjit/ir/dtype.h"

namespace xjit::python {

namespace py = pybind11;

py::dtype ToNumpyDType(DType t);
absl::StatusOr<DType> FromNumpyDType(const py::dtype& dt);

}  // namespace xjit::python
