#include "xjit/passes/point_linearization.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "xjit/ir/literal.h"
#include "xjit/passes/built_value.h"
#include "xjit/ir/walk.h"

namespace xjit::passes {
namespace {

// What the gather and scatter forms share: the operand, its index vectors'
// dim and the operand dim each component addresses.
struct PointForm {
  const Shape* operand = nullptr;
  int64_t index_vector_dim = 0;
  const std::vector<int64_t>* map = nullptr;
};

std::optional<PointForm> GatherForm(const Instruction& gather) {
  const GatherAttrs& a = gather.attrs<GatherAttrs>();
  const GatherDimensionNumbers& dn = a.dimension_numbers;
  const Shape& x = gather.operand(0)->shape();
  if (!dn.offset_dims.empty() || !dn.operand_batching_dims.empty() ||
      static_cast<int64_t>(dn.collapsed_slice_dims.size()) != x.rank()) {
    return std::nullopt;
  }
  for (int64_t s : a.slice_sizes) {
    if (s != 1) return std::nullopt;
  }
  return PointForm{&x, dn.index_vector_dim, &dn.start_index_map};
}

std::optional<PointForm> ScatterForm(const Instruction& scatter) {
  if (scatter.operands().size() != 3) return std::nullopt;  // one operand, indices, updates
  const ScatterDimensionNumbers& dn =
      scatter.attrs<ScatterAttrs>().scatter_dimension_numbers;
  const Shape& x = scatter.operand(0)->shape();
  if (!dn.update_window_dims.empty() || !dn.input_batching_dims.empty() ||
      static_cast<int64_t>(dn.inserted_window_dims.size()) != x.rank()) {
    return std::nullopt;
  }
  return PointForm{&x, dn.index_vector_dim, &dn.scatter_dims_to_operand_dims};
}

// The columns of a point gather's or scatter's index vectors (the
// concatenation's operands, one per component), or empty when `instr` is not
// one. `indices` is its index operand in the graph being built.
std::vector<Instruction*> PointColumns(const Instruction& instr, Instruction* indices) {
  std::optional<PointForm> form;
  if (instr.opcode() == Opcode::kGather) form = GatherForm(instr);
  if (instr.opcode() == Opcode::kScatter) form = ScatterForm(instr);
  if (!form) return {};
  const Shape& x = *form->operand;
  const Shape& idx = indices->shape();
  const int64_t n = x.rank();
  if (n < 2 || static_cast<int64_t>(form->map->size()) != n ||
      form->index_vector_dim != idx.rank() - 1 || idx.dims.back() != n) {
    return {};
  }
  // The flat index, and the flat size as scatter's "outside", must fit.
  const int64_t limit = idx.dtype == DType::kS32   ? std::numeric_limits<int32_t>::max()
                        : idx.dtype == DType::kS64 ? std::numeric_limits<int64_t>::max()
                                                   : 0;
  if (x.num_elements() == 0 || x.num_elements() > limit) return {};
  if (indices->opcode() != Opcode::kConcatenate ||
      indices->attrs<ConcatenateAttrs>().dimension != form->index_vector_dim ||
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

// Appends element-wise ops over one index column's shape.
class ColumnMath {
 public:
  ColumnMath(ComputationBuilder& b, const Shape& column, const std::string& loc)
      : b_(b), column_(column), loc_(loc) {}

  absl::StatusOr<Instruction*> Splat(int64_t v) {
    const DType t = column_.dtype;
    Literal scalar = t == DType::kS32 ? Literal::Scalar(t, static_cast<int32_t>(v))
                                      : Literal::Scalar(t, static_cast<int64_t>(v));
    return b_.AddWithResultType(Opcode::kBroadcastInDim, column_, {b_.Constant(std::move(scalar))},
                                BroadcastInDimAttrs{{}}, {}, loc_);
  }
  absl::StatusOr<Instruction*> Op(Opcode op, std::vector<Instruction*> operands,
                                  Attributes attrs = {}) {
    return b_.Add(op, std::move(operands), std::move(attrs), {}, loc_);
  }
  absl::StatusOr<Instruction*> Compare(Instruction* a, Instruction* b, ComparisonDirection d) {
    CompareAttrs attrs;
    attrs.comparison_direction = d;
    return Op(Opcode::kCompare, {a, b}, attrs);
  }

 private:
  ComputationBuilder& b_;
  const Shape& column_;
  const std::string& loc_;
};

// The flat index of each point: gather clamps every column to its dim;
// scatter keeps the columns and says where any is outside (`*outside`).
absl::StatusOr<Instruction*> FlatIndex(ColumnMath& m, const std::vector<Instruction*>& columns,
                                       const Shape& x, const std::vector<int64_t>& map,
                                       bool clamp, Instruction** outside) {
  std::vector<int64_t> strides(x.rank(), 1);
  for (int64_t d = x.rank() - 2; d >= 0; --d) strides[d] = strides[d + 1] * x.dims[d + 1];
  Instruction* flat = nullptr;
  *outside = nullptr;
  for (size_t c = 0; c < columns.size(); ++c) {
    const int64_t dim = map[c];
    Instruction* term = columns[c];
    XJIT_ASSIGN_OR_RETURN(zero, m.Splat(0));
    if (clamp) {
      XJIT_ASSIGN_OR_RETURN(last, m.Splat(x.dims[dim] - 1));
      XJIT_ASSIGN_OR_RETURN(clamped, m.Op(Opcode::kClamp, {zero, term, last}));
      term = clamped;
    } else {
      XJIT_ASSIGN_OR_RETURN(size, m.Splat(x.dims[dim]));
      XJIT_ASSIGN_OR_RETURN(below, m.Compare(term, zero, ComparisonDirection::kLt));
      XJIT_ASSIGN_OR_RETURN(above, m.Compare(term, size, ComparisonDirection::kGe));
      XJIT_ASSIGN_OR_RETURN(out, m.Op(Opcode::kOr, {below, above}));
      if (*outside == nullptr) {
        *outside = out;
      } else {
        XJIT_ASSIGN_OR_RETURN(either, m.Op(Opcode::kOr, {*outside, out}));
        *outside = either;
      }
    }
    if (strides[dim] != 1) {
      XJIT_ASSIGN_OR_RETURN(stride, m.Splat(strides[dim]));
      XJIT_ASSIGN_OR_RETURN(scaled, m.Op(Opcode::kMultiply, {term, stride}));
      term = scaled;
    }
    if (flat == nullptr) {
      flat = term;
    } else {
      XJIT_ASSIGN_OR_RETURN(sum, m.Op(Opcode::kAdd, {flat, term}));
      flat = sum;
    }
  }
  return flat;
}

absl::StatusOr<Instruction*> RewriteGather(const CloneContext& ctx,
                                           const std::vector<Instruction*>& columns) {
  const std::string& loc = ctx.old.source_location();
  const Shape& x = ctx.operands[0]->shape();
  ColumnMath m(ctx.builder, columns[0]->shape(), loc);
  Instruction* outside = nullptr;
  XJIT_ASSIGN_OR_RETURN(flat, FlatIndex(m, columns, x, ctx.old.attrs<GatherAttrs>()
                                                   .dimension_numbers.start_index_map,
                                 /*clamp=*/true, &outside));
  XJIT_ASSIGN_OR_RETURN(operand, ctx.builder.AddWithResultType(Opcode::kReshape,
                                                        Shape(x.dtype, {x.num_elements()}),
                                                        {ctx.operands[0]}, {}, {}, loc));
  GatherAttrs attrs;
  attrs.dimension_numbers.collapsed_slice_dims = {0};
  attrs.dimension_numbers.start_index_map = {0};
  attrs.dimension_numbers.index_vector_dim = columns[0]->shape().rank() - 1;
  attrs.slice_sizes = {1};
  return ctx.builder.Add(Opcode::kGather, {operand, flat}, attrs, {}, loc);
}

absl::StatusOr<Instruction*> RewriteScatter(const CloneContext& ctx,
                                            const std::vector<Instruction*>& columns) {
  const std::string& loc = ctx.old.source_location();
  const Shape& x = ctx.operands[0]->shape();
  const ScatterAttrs& old = ctx.old.attrs<ScatterAttrs>();
  const std::vector<int64_t>& map = old.scatter_dimension_numbers.scatter_dims_to_operand_dims;
  ColumnMath m(ctx.builder, columns[0]->shape(), loc);
  Instruction* outside = nullptr;
  XJIT_ASSIGN_OR_RETURN(inside_flat, FlatIndex(m, columns, x, map, /*clamp=*/false, &outside));
  XJIT_ASSIGN_OR_RETURN(past_end, m.Splat(x.num_elements()));
  XJIT_ASSIGN_OR_RETURN(flat, m.Op(Opcode::kSelect, {outside, past_end, inside_flat}));
  XJIT_ASSIGN_OR_RETURN(operand, ctx.builder.AddWithResultType(Opcode::kReshape,
                                                        Shape(x.dtype, {x.num_elements()}),
                                                        {ctx.operands[0]}, {}, {}, loc));
  absl::StatusOr<Computation*> body =
      ctx.cloner.CloneComputation(*ctx.old.called_computations()[0]);
  if (!body.ok()) return body.status();
  ScatterAttrs attrs;
  attrs.scatter_dimension_numbers.inserted_window_dims = {0};
  attrs.scatter_dimension_numbers.scatter_dims_to_operand_dims = {0};
  attrs.scatter_dimension_numbers.index_vector_dim = columns[0]->shape().rank() - 1;
  // Row-major order of in-range points is their flat order when the columns
  // come in dim order; distinct points stay distinct.
  bool in_order = true;
  for (size_t c = 0; c < map.size(); ++c) in_order = in_order && map[c] == static_cast<int64_t>(c);
  attrs.indices_are_sorted = old.indices_are_sorted && in_order;
  attrs.unique_indices = old.unique_indices;
  XJIT_ASSIGN_OR_RETURN(scattered, ctx.builder.Add(Opcode::kScatter, {operand, flat, ctx.operands[2]},
                                            attrs, {*body}, loc));
  return ctx.builder.AddWithResultType(Opcode::kReshape, x, {scattered}, {}, {}, loc);
}

bool IsPointIndexing(const Instruction& instr, Instruction* indices) {
  return !PointColumns(instr, indices).empty();
}

class PointLinearization : public RewriteRule {
 public:
  bool Prepare(const Module& module) override {
    for (const Computation* c : ComputationPostOrder(module)) {
      for (const auto& instr : c->instructions()) {
        const Opcode op = instr->opcode();
        if ((op == Opcode::kGather || op == Opcode::kScatter) &&
            IsPointIndexing(*instr, instr->operand(1))) {
          return true;
        }
      }
    }
    return false;
  }

  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) override {
    const Opcode op = ctx.old.opcode();
    if (op != Opcode::kGather && op != Opcode::kScatter) return CloneAction::Clone();
    const std::vector<Instruction*> columns = PointColumns(ctx.old, ctx.operands[1]);
    if (columns.empty()) return CloneAction::Clone();
    absl::StatusOr<Instruction*> value =
        op == Opcode::kGather ? RewriteGather(ctx, columns) : RewriteScatter(ctx, columns);
    if (!value.ok()) return value.status();
    return CloneAction::Replace(*value);
  }
};

}  // namespace

std::unique_ptr<RewriteRule> MakePointLinearizationRule() {
  return std::make_unique<PointLinearization>();
}

absl::StatusOr<bool> RunPointLinearization(Module& module) {
  PointLinearization rule;
  return RunRule(module, rule);
}

}  // namespace xjit::passes
