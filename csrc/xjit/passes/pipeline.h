// The default optimisation pipeline every backend runs before lowering.
//
// Functional on purpose: it takes the module the user's Executable holds
// (const) and returns an optimised copy, so the original is never touched:
// the reference backend walks it and `.lower().as_text()` prints it
// unoptimised, as JAX does. A backend compiles the returned module instead.
//
// Each round prepares every rule (rewrite_rule.h) on the current module and,
// if one has work, makes one copy through all of them: dead-code
// elimination, call inlining, tuple simplification, constant folding,
// algebraic simplification, common-subexpression elimination. Rounds repeat
// until no rule has work (at most kMaxPipelineRounds); then dot_general
// canonicalisation (reshapes only) gets a sweep of its own if it has work.
// One copy per round, not per pass, keeps compile time small. Every copy is
// built through ModuleBuilder::Build, which verifies it, so a pass that
// breaks the graph is an error here, never a crash in a backend.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"

namespace xjit::passes {

inline constexpr int kMaxPipelineRounds = 8;

absl::StatusOr<std::unique_ptr<Module>> RunDefaultPipeline(const Module& module);
// The same rounds without the final copy: null when no rule had work, so a
// backend lowers `module` itself (a module fresh from the parser often has
// nothing to simplify, and copying 10,000 ops costs more than checking).
absl::StatusOr<std::unique_ptr<Module>> RunDefaultPipelineIfChanged(const Module& module);

// What every backend runs first, before anything else sees the module:
// dynamic shapes made static (dynamic_shape_lowering.h), quantized types
// lowered (quantized_op_expansion.h), narrow types computed in their compute
// types (narrow_type_expansion.h). The lowered copy, or null when the
// module has none of these (the common case: three scans, no copy).
absl::StatusOr<std::unique_ptr<Module>> LowerForBackends(const Module& module);

}  // namespace xjit::passes
