// The jit call path in C++: JitFunction (flatten, signature, cache lookup,
// execute) and JitCacheEntry. Python runs only on a cache miss.
#pragma once

#include <pybind11/pybind11.h>

namespace xjit::python {

// Registers JitFunction, JitCacheEntry and set_x64/get_x64.
void RegisterJit(pybind11::module_& m);

}  // namespace xjit::python
