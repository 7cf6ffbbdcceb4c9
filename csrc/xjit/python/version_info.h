// _xjit.__version__ and _xjit.version_info(): what was built, with what.
#pragma once

#include <pybind11/pybind11.h>

namespace xjit::python {

namespace py = pybind11;

void RegisterVersionInfo(py::module_& m);

}  // namespace xjit::python
