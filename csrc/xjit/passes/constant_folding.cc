#include "xjit/passes/constant_folding.h"

#include <optional>

#include "xjit/ir/walk.h"
#include "xjit/passes/literal_movement.h"
#include "xjit/passes/rewrite_module.h"

namespace xjit::passes {
namespace {

// Whether `instr` (with these operands) is folded.
bool Foldable(const Instruction& instr, absl::Span<Instruction* const> operands) {
  if (instr.shape().is_tuple || instr.shape().num_elements() > kMaxFoldedElements) return false;
  switch (instr.opcode()) {
    case Opcode::kIota:
      return true;
    case Opcode::kReshape:
    case Opcode::kTranspose:
      return operands[0]->opcode() == Opcode::kConstant;
    case Opcode::kBroadcastInDim:
      return operands[0]->opcode() == Opcode::kConstant &&
             operands[0]->shape().num_elements() > 1;
    default:
      return false;
  }
}

absl::StatusOr<Literal> Fold(const Instruction& instr, absl::Span<Instruction* const> operands) {
  const Attributes& attrs = instr.attrs();
  switch (instr.opcode()) {
    case Opcode::kIota:
      return IotaLiteral(instr.shape(), attrs.dimension);
    case Opcode::kReshape:
      return ReshapeLiteral(*operands[0]->attrs().literal, instr.shape());
    case Opcode::kTranspose:
      return TransposeLiteral(*operands[0]->attrs().literal, attrs.dimensions);
    case Opcode::kBroadcastInDim:
      return BroadcastLiteral(*operands[0]->attrs().literal, instr.shape(), attrs.dimensions);
    default:
      return absl::InternalError("constant folding: not a foldable op");
  }
}

}  // namespace

absl::StatusOr<bool> RunConstantFolding(Module& module) {
  bool found = false;
  for (const Computation* c : ComputationPostOrder(module)) {
    for (const auto& instr : c->instructions()) {
      found = found || Foldable(*instr, instr->operands());
    }
  }
  if (!found) return false;
  CloneOptions options;
  options.hook = [](const CloneContext& ctx) -> absl::StatusOr<CloneAction> {
    if (!Foldable(ctx.old, ctx.operands)) return CloneAction::Clone();
    absl::StatusOr<Literal> folded = Fold(ctx.old, ctx.operands);
    if (!folded.ok()) return folded.status();
    return CloneAction::Replace(ctx.builder.Constant(*std::move(folded)));
  };
  if (absl::Status s = RewriteModule(module, options); !s.ok()) return s;
  return true;
}

}  // namespace xjit::passes
