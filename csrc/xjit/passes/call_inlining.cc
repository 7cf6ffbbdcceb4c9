#include "xjit/passes/call_inlining.h"

#include <vector>

#include "xjit/ir/walk.h"

namespace xjit::passes {
namespace {

// A composite (issue 11) is a call of its decomposition, which it may always
// be replaced by (the spec says so): inlined like one.
bool IsCallLike(Opcode op) { return op == Opcode::kCall || op == Opcode::kComposite; }

bool HasCall(const Module& module) {
  for (const Computation* c : ComputationPostOrder(module)) {
    for (const auto& instr : c->instructions()) {
      if (IsCallLike(instr->opcode())) return true;
    }
  }
  return false;
}

absl::StatusOr<CloneAction> InlineCall(const CloneContext& ctx) {
  if (!IsCallLike(ctx.old.opcode())) return CloneAction::Clone();
  const Computation& callee = *ctx.old.called_computations()[0];
  ValueMap map;
  for (size_t i = 0; i < callee.parameters().size(); ++i) {
    map[callee.parameters()[i]] = ctx.operands[i];
  }
  absl::StatusOr<std::vector<Instruction*>> results =
      ctx.cloner.CloneBody(callee, ctx.builder, map);
  if (!results.ok()) return results.status();
  if (results->size() == 1) return CloneAction::Replace((*results)[0]);
  absl::StatusOr<Instruction*> tuple =
      ctx.builder.Add(Opcode::kTuple, *std::move(results), {}, {}, ctx.old.source_location());
  if (!tuple.ok()) return tuple.status();
  return CloneAction::Replace(*tuple);
}

class CallInlining : public RewriteRule {
 public:
  bool Prepare(const Module& module) override { return HasCall(module); }
  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) override { return InlineCall(ctx); }
};

}  // namespace

std::unique_ptr<RewriteRule> MakeCallInliningRule() { return std::make_unique<CallInlining>(); }

absl::StatusOr<bool> RunCallInlining(Module& module) {
  CallInlining rule;
  return RunRule(module, rule);
}

}  // namespace xjit::passes
