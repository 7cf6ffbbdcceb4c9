// Narrow element types (sub-byte integers, small floats: ir/dtype.h) are
// computed in a wider type, as the spec allows ("through f32 where that gives
// the exactly rounded result"): every op on them becomes
//   convert(op(convert(x -> C), ...) -> N)
// with C = NarrowComputeType(N), so each result is rounded (floats) or wraps
// (integers) exactly as an op of type N. Region bodies (reduce, sort,
// scatter, ...) are rewritten the same way, so a reduce rounds after every
// step. What stays narrow is what only moves bytes: parameters, constants,
// reshape, transpose, slice, gather, control flow and the like
// (RunsOnNarrowStorage), plus the converts ir/narrow_convert.h lists; every
// other convert or bitcast is chained through those.
//
// Both backends run it first (after dynamic shapes), so their kernels never
// compute on a narrow type: they see them only in the ops above.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"

namespace xjit::passes {

// Whether `module` holds a value of a narrow element type.
bool HasNarrowTypes(const Module& module);

// Whether a backend runs `instr` on narrow storage as it is (bytes moved,
// never computed on). The pass leaves exactly these ops narrow.
bool RunsOnNarrowStorage(const Instruction& instr);

// A copy of `module` in which only those ops touch narrow types.
absl::StatusOr<std::unique_ptr<Module>> ExpandNarrowTypes(const Module& module);

}  // namespace xjit::passes
