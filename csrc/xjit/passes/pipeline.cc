#include "xjit/passes/pipeline.h"

#include <utility>

#include "xjit/builder/rewriter.h"
#include "xjit/passes/algebraic_simplification.h"
#include "xjit/passes/call_inlining.h"
#include "xjit/passes/common_subexpression_elimination.h"
#include "xjit/passes/constant_folding.h"
#include "xjit/passes/dead_code_elimination.h"
#include "xjit/passes/dot_canonicalization.h"
#include "xjit/passes/tuple_simplification.h"

namespace xjit::passes {
namespace {

using PassFn = absl::StatusOr<bool> (*)(Module&);

absl::StatusOr<bool> RunDots(Module& module) { return RunDotCanonicalization(module); }

// Runs `passes` in order; true when one changed the module.
absl::StatusOr<bool> RunAll(Module& module, std::initializer_list<PassFn> passes) {
  bool changed = false;
  for (PassFn pass : passes) {
    absl::StatusOr<bool> c = pass(module);
    if (!c.ok()) return c.status();
    changed = changed || *c;
  }
  return changed;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Module>> RunDefaultPipeline(const Module& module) {
  absl::StatusOr<std::unique_ptr<Module>> copy = CloneModule(module);
  if (!copy.ok()) return copy.status();
  Module& m = **copy;
  if (absl::StatusOr<bool> c = RunCallInlining(m); !c.ok()) return c.status();
  for (int round = 0; round < kMaxPipelineRounds; ++round) {
    absl::StatusOr<bool> changed =
        RunAll(m, {RunTupleSimplification, RunConstantFolding, RunAlgebraicSimplification,
                   RunCommonSubexpressionElimination, RunDeadCodeElimination});
    if (!changed.ok()) return changed.status();
    if (!*changed) break;
  }
  if (absl::StatusOr<bool> c = RunAll(m, {RunDots, RunDeadCodeElimination}); !c.ok()) {
    return c.status();
  }
  return copy;
}

}  // namespace xjit::passes
