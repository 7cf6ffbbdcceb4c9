#include "xjit/passes/gather_linearization.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "xjit/ir/literal.h"
#include "xjit/ir/walk.h"

namespace xjit::passes {
namespace {

// The columns of a point gather's index vectors (the concatenation's
// operands, one per component), or empty when `gather` is not one.
std::vector<Instruction*> PointColumns(const Instruction& gather, Instruction* indices) {
  if (gather.opcode() != Opcode::kGather) return {};
  const GatherAttrs& a = gather.attrs<GatherAttrs>();
  const GatherDimensionNumbers& dn = a.dimension_numbers;
  const Shape& x = gather.operand(0)->shape();
  const Shape& idx = indices->shape();
  const int64_t n = x.rank();
  if (n < 2 || !dn.offset_dims.empty() || !dn.operand_batching_dims.empty() ||
      static_cast<int64_t>(dn.collapsed_slice_dims.size()) != n ||
      static_cast<int64_t>(dn.start_index_map.size()) != n ||
      dn.index_vector_dim != idx.rank() - 1 || idx.dims.back() != n) {
    return {};
  }
  for (int64_t s : a.slice_sizes) {
    if (s != 1) return {};
  }
  // The flat index must fit the index type.
  const int64_t limit = idx.dtype == DType::kS32   ? std::numeric_limits<int32_t>::max()
                        : idx.dtype == DType::kS64 ? std::numeric_limits<int64_t>::max()
                                                   : 0;
  if (x.num_elements() == 0 || x.num_elements() > limit) return {};
  if (indices->opcode() != Opcode::kConcatenate ||
      indices->attrs<ConcatenateAttrs>().dimension != dn.index_vector_dim ||
      static_cast<int64_t>(indices->operands().size()) != n) {
    return {};
  }
  std::vector<Instruction*> columns;
  for (Instruction* piece : indices->operands()) {
    if (piece->shape().dims.back() != 1) return {};
    columns.push_back(piece);
  }
  return columns;
}

absl::StatusOr<Instruction*> Splat(ComputationBuilder& b, DType t, int64_t v, const Shape& like,
                                   const std::string& loc) {
  Literal scalar = t == DType::kS32 ? Literal::Scalar(t, static_cast<int32_t>(v))
                                    : Literal::Scalar(t, static_cast<int64_t>(v));
  return b.AddWithResultType(Opcode::kBroadcastInDim, like, {b.Constant(std::move(scalar))},
                             BroadcastInDimAttrs{{}}, {}, loc);
}

class GatherLinearization : public RewriteRule {
 public:
  bool Prepare(const Module& module) override {
    for (const Computation* c : ComputationPostOrder(module)) {
      for (const auto& instr : c->instructions()) {
        if (instr->opcode() == Opcode::kGather &&
            !PointColumns(*instr, instr->operand(1)).empty()) {
          return true;
        }
      }
    }
    return false;
  }

  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) override {
    if (ctx.old.opcode() != Opcode::kGather) return CloneAction::Clone();
    const std::vector<Instruction*> columns = PointColumns(ctx.old, ctx.operands[1]);
    if (columns.empty()) return CloneAction::Clone();
    const std::string& loc = ctx.old.source_location();
    ComputationBuilder& b = ctx.builder;
    const Shape& x = ctx.operands[0]->shape();
    const Shape& column = columns[0]->shape();
    const DType t = column.dtype;
    const std::vector<int64_t>& map = ctx.old.attrs<GatherAttrs>().dimension_numbers.start_index_map;
    std::vector<int64_t> strides(x.rank(), 1);
    for (int64_t d = x.rank() - 2; d >= 0; --d) strides[d] = strides[d + 1] * x.dims[d + 1];
    Instruction* flat = nullptr;
    for (size_t c = 0; c < columns.size(); ++c) {
      const int64_t dim = map[c];
      absl::StatusOr<Instruction*> lo = Splat(b, t, 0, column, loc);
      absl::StatusOr<Instruction*> hi = Splat(b, t, x.dims[dim] - 1, column, loc);
      if (!lo.ok()) return lo.status();
      if (!hi.ok()) return hi.status();
      absl::StatusOr<Instruction*> term = b.Add(Opcode::kClamp, {*lo, columns[c], *hi}, {}, {}, loc);
      if (!term.ok()) return term.status();
      if (strides[dim] != 1) {
        absl::StatusOr<Instruction*> stride = Splat(b, t, strides[dim], column, loc);
        if (!stride.ok()) return stride.status();
        term = b.Add(Opcode::kMultiply, {*term, *stride}, {}, {}, loc);
        if (!term.ok()) return term.status();
      }
      if (flat == nullptr) {
        flat = *term;
      } else {
        absl::StatusOr<Instruction*> sum = b.Add(Opcode::kAdd, {flat, *term}, {}, {}, loc);
        if (!sum.ok()) return sum.status();
        flat = *sum;
      }
    }
    absl::StatusOr<Instruction*> operand = b.AddWithResultType(
        Opcode::kReshape, Shape(x.dtype, {x.num_elements()}), {ctx.operands[0]}, {}, {}, loc);
    if (!operand.ok()) return operand.status();
    GatherAttrs attrs;
    attrs.dimension_numbers.collapsed_slice_dims = {0};
    attrs.dimension_numbers.start_index_map = {0};
    attrs.dimension_numbers.index_vector_dim = column.rank() - 1;
    attrs.slice_sizes = {1};
    attrs.indices_are_sorted = false;
    absl::StatusOr<Instruction*> gathered =
        b.Add(Opcode::kGather, {*operand, flat}, attrs, {}, loc);
    if (!gathered.ok()) return gathered.status();
    return CloneAction::Replace(*gathered);
  }
};

}  // namespace

std::unique_ptr<RewriteRule> MakeGatherLinearizationRule() {
  return std::make_unique<GatherLinearization>();
}

absl::StatusOr<bool> RunGatherLinearization(Module& module) {
  GatherLinearization rule;
  return RunRule(module, rule);
}

}  // namespace xjit::passes
