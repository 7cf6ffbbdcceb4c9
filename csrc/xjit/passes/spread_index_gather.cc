#include "xjit/passes/spread_index_gather.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "xjit/ir/walk.h"

namespace xjit::passes {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

int64_t Rank(const std::vector<int64_t>& sorted, int64_t x) {
  return std::lower_bound(sorted.begin(), sorted.end(), x) - sorted.begin();
}

// How a gather is rewritten: the index broadcast's source and its new dims,
// and the new gather's attributes.
struct Plan {
  Instruction* source = nullptr;         // the broadcast's operand (new graph)
  std::vector<int64_t> source_kept;      // its dims that stay (the others have size 1)
  std::vector<int64_t> spread_dims;      // broadcast_dimensions of the kept dims
  std::vector<int64_t> spread_shape;     // the indices without the batching dims
  bool append_vector_dim = false;        // a trailing index-vector dim of 1 reshaped on
  GatherAttrs attrs;
};

// `indices`: the gather's index operand in the graph the plan builds into.
std::optional<Plan> MakePlan(const Instruction& gather, Instruction* indices) {
  if (gather.opcode() != Opcode::kGather) return std::nullopt;
  const GatherAttrs& a = gather.attrs<GatherAttrs>();
  const GatherDimensionNumbers& dn = a.dimension_numbers;
  if (dn.operand_batching_dims.empty()) return std::nullopt;
  const Shape& x = gather.operand(0)->shape();
  Plan plan;
  // The index array is broadcast_in_dim(J), or that with a trailing index
  // vector dim of 1 reshaped on (as take_along_axis builds it).
  Instruction* spread = indices;
  int64_t vector_dim = dn.index_vector_dim;  // in the broadcast's dims
  if (indices->opcode() == Opcode::kReshape &&
      indices->operand(0)->opcode() == Opcode::kBroadcastInDim) {
    const std::vector<int64_t>& in = indices->operand(0)->shape().dims;
    std::vector<int64_t> appended = in;
    appended.push_back(1);
    if (indices->shape().dims != appended || dn.index_vector_dim != indices->shape().rank() - 1) {
      return std::nullopt;
    }
    spread = indices->operand(0);
    plan.append_vector_dim = true;
  } else if (indices->opcode() != Opcode::kBroadcastInDim) {
    return std::nullopt;
  }
  const Shape& b = spread->shape();
  plan.source = spread->operand(0);
  const Shape& j = plan.source->shape();
  const std::vector<int64_t>& bd = spread->attrs<BroadcastInDimAttrs>().broadcast_dimensions;
  const std::vector<int64_t>& batch = dn.start_indices_batching_dims;
  // The source repeats along every batching dim.
  std::vector<int64_t> new_pos(b.rank(), -1);
  for (int64_t d = 0, p = 0; d < b.rank(); ++d) {
    if (Contains(batch, d)) continue;
    new_pos[d] = p++;
    plan.spread_shape.push_back(b.dims[d]);
  }
  for (int64_t r = 0; r < j.rank(); ++r) {
    if (Contains(batch, bd[r])) {
      if (j.dims[r] != 1) return std::nullopt;
      continue;
    }
    plan.source_kept.push_back(r);
    plan.spread_dims.push_back(new_pos[bd[r]]);
  }
  // The result's batch positions (those not offset dims), in index-dim order.
  const int64_t out_rank = gather.shape().rank();
  std::vector<int64_t> batch_positions;
  for (int64_t p = 0; p < out_rank; ++p) {
    if (!Contains(dn.offset_dims, p)) batch_positions.push_back(p);
  }
  auto out_position = [&](int64_t index_dim) {
    int64_t k = 0;
    for (int64_t d = 0; d < index_dim; ++d) k += d != dn.index_vector_dim;
    return batch_positions[k];
  };
  // Old windows: the operand dims neither collapsed nor batching, in order,
  // at the offset dims in order; each batching pair becomes one more.
  std::vector<std::pair<int64_t, int64_t>> pairs;  // (result position, operand dim)
  std::vector<int64_t> windows;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (!Contains(dn.collapsed_slice_dims, d) && !Contains(dn.operand_batching_dims, d)) {
      windows.push_back(d);
    }
  }
  if (windows.size() != dn.offset_dims.size()) return std::nullopt;
  for (size_t i = 0; i < windows.size(); ++i) pairs.push_back({dn.offset_dims[i], windows[i]});
  for (size_t k = 0; k < batch.size(); ++k) {
    pairs.push_back({out_position(batch[k]), dn.operand_batching_dims[k]});
  }
  std::vector<int64_t> offsets, window_dims;
  for (const auto& [p, d] : pairs) {
    offsets.push_back(p);
    window_dims.push_back(d);
  }
  std::sort(offsets.begin(), offsets.end());
  std::sort(window_dims.begin(), window_dims.end());
  // The gather pairs the k-th offset dim with the k-th window dim.
  for (const auto& [p, d] : pairs) {
    if (Rank(offsets, p) != Rank(window_dims, d)) return std::nullopt;
  }
  GatherAttrs& g = plan.attrs;
  g.dimension_numbers.offset_dims = offsets;
  g.dimension_numbers.collapsed_slice_dims = dn.collapsed_slice_dims;
  g.dimension_numbers.start_index_map = dn.start_index_map;
  g.slice_sizes = a.slice_sizes;
  for (int64_t d : dn.operand_batching_dims) g.slice_sizes[d] = x.dims[d];
  g.indices_are_sorted = false;
  if (plan.append_vector_dim) {
    g.dimension_numbers.index_vector_dim = static_cast<int64_t>(plan.spread_shape.size());
  } else if (vector_dim < b.rank()) {
    g.dimension_numbers.index_vector_dim = new_pos[vector_dim];
  } else {
    g.dimension_numbers.index_vector_dim = static_cast<int64_t>(plan.spread_shape.size());
  }
  return plan;
}

absl::StatusOr<Instruction*> RewriteGather(const CloneContext& ctx, const Plan& plan) {
  const std::string& loc = ctx.old.source_location();
  ComputationBuilder& b = ctx.builder;
  Instruction* source = plan.source;
  const Shape& j = source->shape();
  if (static_cast<int64_t>(plan.source_kept.size()) != j.rank()) {
    std::vector<int64_t> dims;
    for (int64_t r : plan.source_kept) dims.push_back(j.dims[r]);
    absl::StatusOr<Instruction*> squeezed =
        b.AddWithResultType(Opcode::kReshape, Shape(j.dtype, dims), {source}, {}, {}, loc);
    if (!squeezed.ok()) return squeezed.status();
    source = *squeezed;
  }
  absl::StatusOr<Instruction*> indices =
      b.AddWithResultType(Opcode::kBroadcastInDim, Shape(j.dtype, plan.spread_shape), {source},
                          BroadcastInDimAttrs{plan.spread_dims}, {}, loc);
  if (!indices.ok()) return indices.status();
  if (plan.append_vector_dim) {
    std::vector<int64_t> dims = plan.spread_shape;
    dims.push_back(1);
    indices = b.AddWithResultType(Opcode::kReshape, Shape(j.dtype, dims), {*indices}, {}, {}, loc);
    if (!indices.ok()) return indices.status();
  }
  return b.Add(Opcode::kGather, {ctx.operands[0], *indices}, plan.attrs, {}, loc);
}

class SpreadIndexGather : public RewriteRule {
 public:
  bool Prepare(const Module& module) override {
    for (const Computation* c : ComputationPostOrder(module)) {
      for (const auto& instr : c->instructions()) {
        if (instr->opcode() == Opcode::kGather && MakePlan(*instr, instr->operand(1))) return true;
      }
    }
    return false;
  }

  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) override {
    if (ctx.old.opcode() != Opcode::kGather) return CloneAction::Clone();
    const std::optional<Plan> plan = MakePlan(ctx.old, ctx.operands[1]);
    if (!plan) return CloneAction::Clone();
    absl::StatusOr<Instruction*> value = RewriteGather(ctx, *plan);
    if (!value.ok()) return value.status();
    // The plan's shapes are the old gather's by construction; a mismatch
    // would be a bug here, so keep the old form (the new ops are dead).
    if ((*value)->shape() != ctx.old.shape()) return CloneAction::Clone();
    return CloneAction::Replace(*value);
  }
};

}  // namespace

std::unique_ptr<RewriteRule> MakeSpreadIndexGatherRule() {
  return std::make_unique<SpreadIndexGather>();
}

absl::StatusOr<bool> RunSpreadIndexGather(Module& module) {
  SpreadIndexGather rule;
  return RunRule(module, rule);
}

}  // namespace xjit::passes
