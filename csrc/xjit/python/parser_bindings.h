// _xjit.parse_module: StableHLO text -> Module (csrc/xjit/text/parser.h).
#pragma once

#include <pybind11/pybind11.h>

namespace xjit::python {

void RegisterParserBindings(pybind11::module_& m);

}  // namespace xjit::python
