// Lowers the ops whose shapes come from operand values (issue 11):
// dynamic_broadcast_in_dim, dynamic_conv, dynamic_gather, dynamic_iota,
// dynamic_pad, dynamic_reshape, get_dimension_size, set_dimension_size and
// rng. Each becomes its static op (rng: rng_bit_generator and arithmetic,
// passes/rng_expansion.h) once its shape operands are constants, also after
// constant folding (which runs alongside, to a fixed point). xjit compiles
// static shapes only, so one left over is an error that names the op and
// says its shape operand is not known at compile time. Both backends run it
// first (the reference backend on its own copy of the module).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"

namespace xjit::passes {

// Whether `module` holds an op this pass lowers.
bool HasDynamicShapeOps(const Module& module);

// A copy of `module` without them, or the error above.
absl::StatusOr<std::unique_ptr<Module>> LowerDynamicShapes(const Module& module);

}  // namespace xjit::passes
