// _xjit.user_location: the source location of a traced op, found in C++.
#pragma once

#include <pybind11/pybind11.h>

namespace xjit::python {

namespace py = pybind11;

void RegisterSourceLocation(py::module_& m);

}  // namespace xjit::python
