// _xjit.op_schema(): the op table (ir/opcode.h) with each op's traits, its
// attribute fields (ir/attributes.h) and the backends that implement it, for
// tools/gen_ops_md.py and anyone who wants to ask Python about ops.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace xjit::python {

void RegisterSchemaBindings(pybind11::module_& m);

}  // namespace xjit::python
