#include "xjit/passes/pipeline.h"

#include <utility>
#include <vector>

#include "xjit/builder/rewriter.h"
#include "xjit/ir/walk.h"
#include "xjit/passes/algebraic_simplification.h"
#include "xjit/passes/call_inlining.h"
#include "xjit/passes/common_subexpression_elimination.h"
#include "xjit/passes/constant_folding.h"
#include "xjit/passes/dead_code_elimination.h"
#include "xjit/passes/dot_canonicalization.h"
#include "xjit/passes/dot_strength_reduction.h"
#include "xjit/passes/dynamic_shape_lowering.h"
#include "xjit/passes/narrow_type_expansion.h"
#include "xjit/passes/point_linearization.h"
#include "xjit/passes/quantized_op_expansion.h"
#include "xjit/passes/spread_index_gather.h"
#include "xjit/passes/tuple_simplification.h"

namespace xjit::passes {

absl::StatusOr<std::unique_ptr<Module>> RunDefaultPipeline(const Module& module) {
  absl::StatusOr<std::unique_ptr<Module>> optimised = RunDefaultPipelineIfChanged(module);
  if (!optimised.ok() || *optimised != nullptr) return optimised;
  return CloneModule(module);
}

namespace {

// Deletes, in place, the instructions a sweep's rewrites left unused (an
// operand an algebraic rule forwarded, say): otherwise the next round would
// find dead code and clone the whole module again only to drop it.
void DropDeadInstructions(Module& module) {
  for (const auto& c : module.computations()) {
    std::vector<bool> keep = LiveInstructions(*c);
    bool dead = false;
    for (const auto& instr : c->instructions()) {
      if (instr->opcode() == Opcode::kParameter) keep[instr->id()] = true;
      dead = dead || !keep[instr->id()];
    }
    if (dead) c->RemoveInstructions(keep);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<Module>> RunDefaultPipelineIfChanged(const Module& module) {
  // Dead code first (nothing is rewritten only to be dropped), CSE last (it
  // clones what it keeps).
  std::unique_ptr<RewriteRule> owned_rules[] = {
      MakeDeadCodeEliminationRule(),      MakeCallInliningRule(),
      MakeTupleSimplificationRule(),      MakeConstantFoldingRule(),
      MakeAlgebraicSimplificationRule(),  MakeDotStrengthReductionRule(),
      MakePointLinearizationRule(),      MakeSpreadIndexGatherRule(),
      MakeCommonSubexpressionEliminationRule(),
  };
  std::vector<RewriteRule*> rules;
  for (const auto& r : owned_rules) rules.push_back(r.get());

  // `current` is the input until the first sweep makes a copy.
  const Module* current = &module;
  std::unique_ptr<Module> optimised;
  auto sweep = [&](absl::Span<RewriteRule* const> with) -> absl::Status {
    absl::StatusOr<std::unique_ptr<Module>> next = Sweep(*current, with);
    if (!next.ok()) return next.status();
    optimised = *std::move(next);
    DropDeadInstructions(*optimised);
    current = optimised.get();
    return absl::OkStatus();
  };
  for (int round = 0; round < kMaxPipelineRounds; ++round) {
    bool work = false;
    for (RewriteRule* r : rules) work = r->Prepare(*current) || work;  // prepare every rule
    if (!work) break;
    if (absl::Status s = sweep(rules); !s.ok()) return s;
  }
  std::unique_ptr<RewriteRule> dots = MakeDotCanonicalizationRule();
  if (dots->Prepare(*current)) {
    RewriteRule* last[] = {dots.get()};
    if (absl::Status s = sweep(last); !s.ok()) return s;
  }
  return optimised;
}

absl::StatusOr<std::unique_ptr<Module>> LowerForBackends(const Module& module) {
  using Lowering = absl::StatusOr<std::unique_ptr<Module>> (*)(const Module&);
  struct Step {
    bool (*has_work)(const Module&);
    Lowering lower;
  };
  constexpr Step kSteps[] = {{HasDynamicShapeOps, LowerDynamicShapes},
                             {HasQuantizedTypes, ExpandQuantizedOps},
                             {HasNarrowTypes, ExpandNarrowTypes}};
  std::unique_ptr<Module> lowered;
  for (const Step& step : kSteps) {
    const Module& current = lowered != nullptr ? *lowered : module;
    if (!step.has_work(current)) continue;
    absl::StatusOr<std::unique_ptr<Module>> next = step.lower(current);
    if (!next.ok()) return next.status();
    lowered = *std::move(next);
  }
  return lowered;
}

}  // namespace xjit::passes
