#include "xjit/passes/constant_folding.h"

#include <optional>
#include <vector>

#include "xjit/ir/walk.h"
#include "xjit/passes/integer_splat_folding.h"
#include "xjit/passes/literal_movement.h"

namespace xjit::passes {
namespace {

// Whether `instr` (with these operands) is folded.
bool Foldable(const Instruction& instr, absl::Span<Instruction* const> operands) {
  const Opcode op = instr.opcode();
  if (instr.shape().is_tuple || instr.shape().num_elements() > kMaxFoldedElements) return false;
  if (op == Opcode::kIota) return true;
  if (op == Opcode::kConcatenate) {
    for (const Instruction* o : operands) {
      if (o->opcode() != Opcode::kConstant) return false;
    }
    return true;
  }
  if (op != Opcode::kReshape && op != Opcode::kTranspose && op != Opcode::kBroadcastInDim &&
      op != Opcode::kSlice && op != Opcode::kReverse) {
    return false;
  }
  if (operands[0]->opcode() != Opcode::kConstant) return false;
  return op != Opcode::kBroadcastInDim || operands[0]->shape().num_elements() > 1;
}

// The folded value of a Foldable `instr`.
absl::StatusOr<Literal> Fold(const Instruction& instr, absl::Span<Instruction* const> operands) {
  const Opcode op = instr.opcode();
  if (op == Opcode::kIota) {
    return IotaLiteral(instr.shape(), instr.attrs<IotaAttrs>().iota_dimension);
  }
  if (op == Opcode::kConcatenate) {
    std::vector<const Literal*> parts;
    for (const Instruction* o : operands) parts.push_back(&o->attrs<ConstantAttrs>().value);
    return ConcatenateLiterals(parts, instr.attrs<ConcatenateAttrs>().dimension);
  }
  const Literal& x = operands[0]->attrs<ConstantAttrs>().value;
  if (op == Opcode::kReshape) return ReshapeLiteral(x, instr.shape());
  if (op == Opcode::kSlice) {
    const SliceAttrs& slice = instr.attrs<SliceAttrs>();
    return SliceLiteral(x, instr.shape(), slice.start_indices, slice.strides);
  }
  if (op == Opcode::kReverse) return ReverseLiteral(x, instr.attrs<ReverseAttrs>().dimensions);
  if (op == Opcode::kTranspose) {
    return TransposeLiteral(x, instr.attrs<TransposeAttrs>().permutation);
  }
  return BroadcastLiteral(x, instr.shape(),
                          instr.attrs<BroadcastInDimAttrs>().broadcast_dimensions);
}

class ConstantFolding : public RewriteRule {
 public:
  bool Prepare(const Module& module) override {
    for (const Computation* c : ComputationPostOrder(module)) {
      for (const auto& instr : c->instructions()) {
        if (Foldable(*instr, instr->operands()) ||
            FoldIntegerSplats(*instr, instr->operands()).has_value()) {
          return true;
        }
      }
    }
    return false;
  }
  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) override {
    if (std::optional<Literal> splat = FoldIntegerSplats(ctx.old, ctx.operands)) {
      // The one value, spread as the op's operands were (a splat backends
      // read in place).
      Instruction* value = ctx.builder.Constant(*std::move(splat));
      if (ctx.old.shape().rank() == 0) return CloneAction::Replace(value);
      absl::StatusOr<Instruction*> spread =
          ctx.builder.AddWithResultType(Opcode::kBroadcastInDim, ctx.old.shape(), {value},
                                        BroadcastInDimAttrs{}, {}, ctx.old.source_location());
      if (!spread.ok()) return spread.status();
      return CloneAction::Replace(*spread);
    }
    if (!Foldable(ctx.old, ctx.operands)) return CloneAction::Clone();
    absl::StatusOr<Literal> folded = Fold(ctx.old, ctx.operands);
    if (!folded.ok()) return folded.status();
    return CloneAction::Replace(ctx.builder.Constant(*std::move(folded)));
  }
};

}  // namespace

std::unique_ptr<RewriteRule> MakeConstantFoldingRule() { return std::make_unique<ConstantFolding>(); }

absl::StatusOr<bool> RunConstantFolding(Module& module) {
  ConstantFolding rule;
  return RunRule(module, rule);
}

}  // namespace xjit::passes
