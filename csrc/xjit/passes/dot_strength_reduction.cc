#include "xjit/passes/dot_strength_reduction.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xjit/ir/literal.h"
#include "xjit/ir/walk.h"

namespace xjit::passes {
namespace {

// How a dot is rewritten: which operand is the matrix (the one with free
// dimensions; the lhs when neither has), the vector's dims as matrix dims,
// the matrix dims summed, and the order of the sum's dims that gives the
// dot's [batch, lhs free, rhs free] (empty when already in order).
struct Plan {
  int matrix = 0;
  std::vector<int64_t> spread;  // vector dim -> matrix dim (increasing)
  std::vector<int64_t> summed;  // matrix contracting dims, sorted
  std::vector<int64_t> permutation;
};

bool Reducible(DType t) { return t == DType::kF32 || t == DType::kF64; }

// Smaller matrices keep the dot: backends run small products in one tight
// kernel, where the multiply and sum are two ops with their own overheads
// (a 64x64 tanh RNN step in a scan: 0.73x -> 1.4x JAX's time reduced).
constexpr int64_t kMinMatrixElements = 16384;

std::optional<Plan> MakePlan(const Instruction& dot) {
  if (dot.opcode() != Opcode::kDotGeneral) return std::nullopt;
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  if (!Reducible(dot.shape().dtype) || lhs.dtype != dot.shape().dtype ||
      rhs.dtype != dot.shape().dtype) {
    return std::nullopt;
  }
  const DotDimensionNumbers& dn = dot.attrs<DotGeneralAttrs>().dot_dimension_numbers;
  const bool lhs_vector = dn.LhsFreeDimensions(lhs.rank()).empty();
  const bool rhs_vector = dn.RhsFreeDimensions(rhs.rank()).empty();
  if (!lhs_vector && !rhs_vector) return std::nullopt;
  Plan plan;
  plan.matrix = rhs_vector ? 0 : 1;
  const Shape& matrix = plan.matrix == 0 ? lhs : rhs;
  if (matrix.num_elements() < kMinMatrixElements) return std::nullopt;
  const auto& m_batch = plan.matrix == 0 ? dn.lhs_batching_dimensions : dn.rhs_batching_dimensions;
  const auto& m_contract =
      plan.matrix == 0 ? dn.lhs_contracting_dimensions : dn.rhs_contracting_dimensions;
  const auto& v_batch = plan.matrix == 0 ? dn.rhs_batching_dimensions : dn.lhs_batching_dimensions;
  const auto& v_contract =
      plan.matrix == 0 ? dn.rhs_contracting_dimensions : dn.lhs_contracting_dimensions;
  const int64_t v_rank = static_cast<int64_t>(v_batch.size() + v_contract.size());
  plan.spread.assign(v_rank, -1);
  for (size_t i = 0; i < v_batch.size(); ++i) plan.spread[v_batch[i]] = m_batch[i];
  for (size_t i = 0; i < v_contract.size(); ++i) plan.spread[v_contract[i]] = m_contract[i];
  // Unsorted spreads would need a transpose of the vector: left to the GEMM.
  if (!std::is_sorted(plan.spread.begin(), plan.spread.end()) ||
      std::adjacent_find(plan.spread.begin(), plan.spread.end()) != plan.spread.end()) {
    return std::nullopt;
  }
  plan.summed = m_contract;
  std::sort(plan.summed.begin(), plan.summed.end());
  // The sum keeps the matrix's other dims in their order; the dot puts its
  // batch dims (in the listed order) before the free ones.
  std::vector<int64_t> kept, wanted(m_batch.begin(), m_batch.end());
  for (int64_t d = 0; d < matrix.rank(); ++d) {
    if (!std::binary_search(plan.summed.begin(), plan.summed.end(), d)) kept.push_back(d);
  }
  for (int64_t d : kept) {
    if (std::find(m_batch.begin(), m_batch.end(), d) == m_batch.end()) wanted.push_back(d);
  }
  if (wanted != kept) {
    for (int64_t d : wanted) {
      plan.permutation.push_back(std::find(kept.begin(), kept.end(), d) - kept.begin());
    }
  }
  return plan;
}

class DotStrengthReduction : public RewriteRule {
 public:
  bool Prepare(const Module& module) override {
    add_bodies_.clear();
    for (const Computation* c : ComputationPostOrder(module)) {
      for (const auto& instr : c->instructions()) {
        if (MakePlan(*instr)) return true;
      }
    }
    return false;
  }

  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) override {
    const std::optional<Plan> plan = MakePlan(ctx.old);
    if (!plan) return CloneAction::Clone();
    const std::string& loc = ctx.old.source_location();
    Instruction* matrix = ctx.operands[plan->matrix];
    Instruction* vector = ctx.operands[1 - plan->matrix];
    const DType dtype = ctx.old.shape().dtype;
    absl::StatusOr<Instruction*> spread =
        ctx.builder.AddWithResultType(Opcode::kBroadcastInDim, matrix->shape(), {vector},
                                      BroadcastInDimAttrs{plan->spread}, {}, loc);
    if (!spread.ok()) return spread.status();
    // lhs * rhs in the dot's order (the product's bits do not depend on it).
    std::vector<Instruction*> factors = {matrix, *spread};
    if (plan->matrix == 1) std::swap(factors[0], factors[1]);
    absl::StatusOr<Instruction*> value =
        ctx.builder.Add(Opcode::kMultiply, factors, {}, {}, loc);
    if (!value.ok()) return value.status();
    if (!plan->summed.empty()) {
      absl::StatusOr<Computation*> add = AddBody(ctx.cloner.target(), dtype);
      if (!add.ok()) return add.status();
      Instruction* zero = ctx.builder.Constant(Literal(Shape(dtype, {})));  // zero bytes: +0
      value = ctx.builder.Add(Opcode::kReduce, {*value, zero}, ReduceAttrs{plan->summed}, {*add},
                              loc);
      if (!value.ok()) return value.status();
    }
    if (!plan->permutation.empty()) {
      value = ctx.builder.Add(Opcode::kTranspose, {*value}, TransposeAttrs{plan->permutation}, {},
                              loc);
      if (!value.ok()) return value.status();
    }
    return CloneAction::Replace(*value);
  }

 private:
  // One scalar add computation per type and sweep.
  absl::StatusOr<Computation*> AddBody(ModuleBuilder& module, DType dtype) {
    auto it = add_bodies_.find(dtype);
    if (it != add_bodies_.end()) return it->second;
    ComputationBuilder* body = module.NewComputation(
        absl::StrCat("dot_sum_", static_cast<int>(dtype), "_", add_bodies_.size()));
    Instruction* a = body->Parameter(Shape(dtype, {}));
    Instruction* b = body->Parameter(Shape(dtype, {}));
    absl::StatusOr<Instruction*> sum = body->Add(Opcode::kAdd, {a, b});
    if (!sum.ok()) return sum.status();
    absl::StatusOr<Computation*> done = body->Finish({*sum});
    if (!done.ok()) return done.status();
    add_bodies_[dtype] = *done;
    return *done;
  }

  absl::flat_hash_map<DType, Computation*> add_bodies_;
};

}  // namespace

std::unique_ptr<RewriteRule> MakeDotStrengthReductionRule() {
  return std::make_unique<DotStrengthReduction>();
}

absl::StatusOr<bool> RunDotStrengthReduction(Module& module) {
  DotStrengthReduction rule;
  return RunRule(module, rule);
}

}  // namespace xjit::passes
