// The default optimisation pipeline every backend runs before lowering.
//
// Functional on purpose: it takes the module the user's Executable holds
// (const) and returns an optimised copy, so the original is never touched:
// the reference backend walks it and `.lower().as_text()` prints it
// unoptimised, as JAX does. A backend compiles the returned module instead.
//
// Order: calls are inlined once; then tuple simplification, constant
// folding, algebraic simplification, common-subexpression elimination and
// dead-code elimination repeat until none changes anything (at most
// kMaxPipelineRounds rounds); then dot_general canonicalisation (reshapes
// only) and a last dead-code elimination. Every rewrite builds the
// new module through ModuleBuilder::Build, which verifies it, so a pass that
// breaks the graph is an error here, never a crash in a backend.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"

namespace xjit::passes {

inline constexpr int kMaxPipelineRounds = 8;

absl::StatusOr<std::unique_ptr<Module>> RunDefaultPipeline(const Module& module);

}  // namespace xjit::passes
