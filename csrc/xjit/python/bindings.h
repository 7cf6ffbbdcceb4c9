// Registration entry points of the core bindings, called from module.cc.
#pragma once

#include <pybind11/pybind11.h>

#include "xjit/ir/shape.h"

namespace xjit::python {

namespace py = pybind11;

// ModuleBuilder, ComputationBuilder, Value, Computation, Module.
void RegisterBuilderBindings(py::module_& m);
// Device, devices, platforms, device_put, compile, Executable, version_info.
void RegisterRuntimeBindings(py::module_& m);
// Infeed/outfeed queues and send/recv channels of the host platforms.
void RegisterHostTransferBindings(py::module_& m);
// The custom_call target of host callbacks (pure_callback, debug.print, ...).
void RegisterCallbackBindings(py::module_& m);
// xjit.ffi: foreign functions registered as custom_call targets.
void RegisterFfiBindings(py::module_& m);
// cuda_codegen (CUDA builds only): the cuda backend's lowering + NVRTC, no GPU needed.
void RegisterCudaBindings(py::module_& m);

// (dtype_name, dims_tuple) for an array shape; (None, [elements...]) for a tuple.
py::tuple ShapeToPython(const Shape& shape);

}  // namespace xjit::python
