#include "xjit/passes/dynamic_shape_lowering.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/ir/walk.h"
#include "xjit/passes/constant_folding.h"
#include "xjit/passes/rewrite_rule.h"
#include "xjit/passes/rng_expansion.h"

namespace xjit::passes {
namespace {

bool IsLowered(Opcode op) {
  return OpcodeFamily(op) == OpFamily::kDynamicShape || op == Opcode::kRng;
}

// The operands that carry shapes (the rest are data).
std::vector<int> ShapeOperands(Opcode op) {
  switch (op) {
    case Opcode::kDynamicBroadcastInDim: return {1};
    case Opcode::kDynamicConv: return {2};
    case Opcode::kDynamicGather: return {2};
    case Opcode::kDynamicIota: return {0};
    case Opcode::kDynamicPad: return {2, 3, 4};
    case Opcode::kDynamicReshape: return {1};
    case Opcode::kSetDimensionSize: return {1};
    case Opcode::kRng: return {2};
    default: return {};
  }
}

int64_t IntAt(const Literal& l, int64_t i) {
  switch (l.shape().dtype) {
    case DType::kS8: return l.data_as<int8_t>()[i];
    case DType::kS16: return l.data_as<int16_t>()[i];
    case DType::kS32: return l.data_as<int32_t>()[i];
    case DType::kS64: return l.data_as<int64_t>()[i];
    case DType::kU8: return l.data_as<uint8_t>()[i];
    case DType::kU16: return l.data_as<uint16_t>()[i];
    case DType::kU32: return l.data_as<uint32_t>()[i];
    case DType::kU64: return static_cast<int64_t>(l.data_as<uint64_t>()[i]);
    default: return 0;
  }
}

// The integer values of `v` when known at compile time: a constant, a
// broadcast of a one-element constant, an integer convert of either.
std::optional<std::vector<int64_t>> KnownInts(const Instruction* v) {
  if (!IsInteger(v->shape().dtype)) return std::nullopt;
  const Instruction* c = v;
  while (c->opcode() == Opcode::kConvert || c->opcode() == Opcode::kReshape) {
    if (!IsInteger(c->operand(0)->shape().dtype)) return std::nullopt;
    c = c->operand(0);
  }
  if (c->opcode() == Opcode::kBroadcastInDim && c->operand(0)->opcode() == Opcode::kConstant &&
      c->operand(0)->shape().num_elements() == 1 && IsInteger(c->operand(0)->shape().dtype)) {
    return std::vector<int64_t>(v->shape().num_elements(),
                                IntAt(c->operand(0)->attrs<ConstantAttrs>().value, 0));
  }
  if (c->opcode() != Opcode::kConstant) return std::nullopt;
  const Literal& l = c->attrs<ConstantAttrs>().value;
  std::vector<int64_t> out(l.shape().num_elements());
  for (size_t i = 0; i < out.size(); ++i) out[i] = IntAt(l, i);
  return out;
}

bool Lowerable(const Instruction& instr, absl::Span<Instruction* const> operands) {
  if (!IsLowered(instr.opcode())) return false;
  for (int i : ShapeOperands(instr.opcode())) {
    if (!KnownInts(operands[i]).has_value()) return false;
  }
  return true;
}

std::string Dims(absl::Span<const int64_t> d) { return absl::StrCat("[", absl::StrJoin(d, ", "), "]"); }

absl::Status Mismatch(const Instruction& old, absl::string_view what,
                      absl::Span<const int64_t> value) {
  return absl::InvalidArgumentError(absl::StrCat(OpcodeName(old.opcode()), ": ", what, " ",
                                                 Dims(value), " does not match the result type ",
                                                 old.shape().ToString()));
}

// The static op's value must have the declared type.
absl::StatusOr<Instruction*> Checked(const Instruction& old, absl::StatusOr<Instruction*> v) {
  if (!v.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(OpcodeName(old.opcode()), ": ", v.status().message()));
  }
  if ((*v)->shape() != old.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        OpcodeName(old.opcode()), ": its shape operands give ", (*v)->shape().ToString(),
        ", not the declared result type ", old.shape().ToString()));
  }
  return v;
}

class DynamicShapeLowering : public RewriteRule {
 public:
  bool Prepare(const Module& module) override {
    for (const Computation* c : ComputationPostOrder(module)) {
      for (const auto& instr : c->instructions()) {
        if (Lowerable(*instr, instr->operands())) return true;
      }
    }
    return false;
  }

  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) override {
    if (!Lowerable(ctx.old, ctx.operands)) return CloneAction::Clone();
    absl::StatusOr<Instruction*> v = Lower(ctx);
    if (!v.ok()) return v.status();
    return CloneAction::Replace(*v);
  }

 private:
  absl::StatusOr<Instruction*> Lower(const CloneContext& ctx) {
    const Instruction& old = ctx.old;
    const Shape& result = old.shape();
    ComputationBuilder& b = ctx.builder;
    auto ints = [&](int i) { return *KnownInts(ctx.operands[i]); };
    Instruction* x = ctx.operands.empty() ? nullptr : ctx.operands[0];
    switch (old.opcode()) {
      case Opcode::kDynamicBroadcastInDim: {
        std::vector<int64_t> dims = ints(1);
        if (dims != result.dims) return Mismatch(old, "output_dimensions", dims);
        return Checked(old, b.AddWithResultType(
                                Opcode::kBroadcastInDim, result, {x},
                                BroadcastInDimAttrs{
                                    old.attrs<DynamicBroadcastInDimAttrs>().broadcast_dimensions}));
      }
      case Opcode::kDynamicReshape: {
        std::vector<int64_t> dims = ints(1);
        if (dims != result.dims) return Mismatch(old, "output_shape", dims);
        return Checked(old, b.AddWithResultType(Opcode::kReshape, result, {x}));
      }
      case Opcode::kDynamicIota: {
        std::vector<int64_t> dims = ints(0);
        if (dims != result.dims) return Mismatch(old, "output_shape", dims);
        return Checked(old, b.AddWithResultType(Opcode::kIota, result, {}, old.attrs<IotaAttrs>()));
      }
      case Opcode::kDynamicPad:
        return Checked(old, b.Add(Opcode::kPad, {x, ctx.operands[1]},
                                  PadAttrs{ints(2), ints(3), ints(4)}));
      case Opcode::kDynamicGather: {
        const DynamicGatherAttrs& a = old.attrs<DynamicGatherAttrs>();
        return Checked(old, b.Add(Opcode::kGather, {x, ctx.operands[1]},
                                  GatherAttrs{a.dimension_numbers, ints(2), a.indices_are_sorted}));
      }
      case Opcode::kDynamicConv: {
        ConvolutionAttrs a = old.attrs<ConvolutionAttrs>();
        std::vector<int64_t> pad = ints(2);
        Literal padding(Shape(DType::kS64, ctx.operands[2]->shape().dims));
        for (size_t i = 0; i < pad.size(); ++i) padding.mutable_data_as<int64_t>()[i] = pad[i];
        a.padding = std::move(padding);
        return Checked(old, b.Add(Opcode::kConvolution, {x, ctx.operands[1]}, std::move(a)));
      }
      case Opcode::kGetDimensionSize:
        return b.Constant(Literal::Scalar(
            DType::kS32,
            static_cast<int32_t>(x->shape().dims[old.attrs<DimensionSizeAttrs>().dimension])));
      case Opcode::kSetDimensionSize: {
        const int64_t d = old.attrs<DimensionSizeAttrs>().dimension;
        const int64_t size = ints(1)[0];
        if (size != x->shape().dims[d]) {
          return absl::InvalidArgumentError(absl::StrCat(
              "set_dimension_size: xjit has static shapes only, so dimension ", d, " of ",
              x->shape().ToString(), " can only be set to its size ", x->shape().dims[d],
              ", got ", size));
        }
        return x;
      }
      case Opcode::kRng: {
        std::vector<int64_t> dims = ints(2);
        if (dims != result.dims) return Mismatch(old, "shape", dims);
        return Checked(old, ExpandRng(b, x, ctx.operands[1], result,
                                      old.attrs<RngAttrs>().rng_distribution, next_seed_++));
      }
      default:
        break;
    }
    return absl::InternalError(absl::StrCat(OpcodeName(old.opcode()), ": not lowered"));
  }

  uint64_t next_seed_ = 0x2545f4914f6cdd1dULL;
};

// The first op left that this pass lowers, if any.
const Instruction* FirstLeft(const Module& module) {
  for (const Computation* c : ComputationPostOrder(module)) {
    for (const auto& instr : c->instructions()) {
      if (IsLowered(instr->opcode())) return instr.get();
    }
  }
  return nullptr;
}

}  // namespace

bool HasDynamicShapeOps(const Module& module) {
  return AnyInstruction(module, [](const Instruction& instr) { return IsLowered(instr.opcode()); });
}

absl::StatusOr<std::unique_ptr<Module>> LowerDynamicShapes(const Module& module) {
  std::unique_ptr<RewriteRule> folding = MakeConstantFoldingRule();
  DynamicShapeLowering lowering;
  RewriteRule* rules[] = {folding.get(), &lowering};
  const Module* current = &module;
  std::unique_ptr<Module> lowered;
  for (int round = 0; round < 8 && FirstLeft(*current) != nullptr; ++round) {
    bool work = folding->Prepare(*current);
    work = lowering.Prepare(*current) || work;
    if (!work) break;
    absl::StatusOr<std::unique_ptr<Module>> next = Sweep(*current, rules);
    if (!next.ok()) return next.status();
    lowered = *std::move(next);
    current = lowered.get();
  }
  if (const Instruction* left = FirstLeft(*current); left != nullptr) {
    std::vector<std::string> which;
    for (int i : ShapeOperands(left->opcode())) {
      if (!KnownInts(left->operand(i)).has_value()) which.push_back(absl::StrCat("operand ", i));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        OpcodeName(left->opcode()), ": its shape operand (", absl::StrJoin(which, ", "),
        ") is not known at compile time; xjit compiles static shapes only, so it must be a "
        "constant (also after constant folding)"));
  }
  if (lowered == nullptr) return CloneModule(module);
  return lowered;
}

}  // namespace xjit::passes
