// The pybind11 module xjit._xjit: the only C++ that knows Python.
#include <pybind11/pybind11.h>

#include "xjit/python/bindings.h"
#include "xjit/python/parser_bindings.h"
#include "xjit/python/py_array.h"
#include "xjit/python/schema_bindings.h"
#include "xjit/python/source_location.h"
#include "xjit/python/version_info.h"
#ifndef XJIT_SKIP_JIT_BINDINGS
#include "xjit/python/jit_function.h"
#include "xjit/python/pytree.h"
#endif

namespace py = pybind11;

PYBIND11_MODULE(_xjit, m) {
  m.doc() = "xjit's C++ core: graph building, devices, buffers, compile and execute";
  // numpy's C API must be loaded before any array conversion.
  py::module_::import("numpy");
  xjit::python::RegisterVersionInfo(m);
  xjit::python::RegisterPyArray(m);
  xjit::python::RegisterBuilderBindings(m);
  xjit::python::RegisterRuntimeBindings(m);
  xjit::python::RegisterHostTransferBindings(m);
  xjit::python::RegisterCallbackBindings(m);
  xjit::python::RegisterFfiBindings(m);
  xjit::python::RegisterCudaBindings(m);
  xjit::python::RegisterParserBindings(m);
  xjit::python::RegisterSchemaBindings(m);
  xjit::python::RegisterSourceLocation(m);
#ifndef XJIT_SKIP_JIT_BINDINGS
  xjit::python::RegisterPytree(m);
  xjit::python::RegisterJit(m);
#endif
}
