#include "xjit/passes/dot_canonicalization.h"

#include <cstdint>
#include <vector>

#include "xjit/ir/walk.h"

namespace xjit::passes {
namespace {

// How one dot_general is rewritten: each operand's permutation into group
// order ([batch, free, contracting] for the lhs, [batch, contracting, free]
// for the rhs) and the group sizes.
struct Plan {
  std::vector<int64_t> lhs_permutation, rhs_permutation;
  std::vector<int64_t> lhs_groups, rhs_groups;  // collapsed dims, empty groups left out
  int64_t lhs_contracting = -1, rhs_contracting = -1;  // in the collapsed operands
  bool batch = false;
};

bool IsIdentity(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

int64_t Product(const std::vector<int64_t>& dims, const std::vector<int64_t>& which) {
  int64_t n = 1;
  for (int64_t d : which) n *= dims[d];
  return n;
}

// Appends the groups in order as the permutation, and their sizes (non-empty
// groups only) as collapsed dimensions.
void Arrange(const std::vector<int64_t>& dims, const std::vector<std::vector<int64_t>>& groups,
             std::vector<int64_t>& permutation, std::vector<int64_t>& collapsed) {
  for (const std::vector<int64_t>& g : groups) {
    permutation.insert(permutation.end(), g.begin(), g.end());
    if (!g.empty()) collapsed.push_back(Product(dims, g));
  }
}

// The plan for `dot`, or false when it is left alone.
bool MakePlan(const Instruction& dot, const DotCanonicalizationOptions& options, Plan& plan) {
  if (dot.opcode() != Opcode::kDotGeneral) return false;
  const DotDimensionNumbers& dn = dot.attrs<DotGeneralAttrs>().dot_dimension_numbers;
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  std::vector<int64_t> lhs_free = dn.LhsFreeDimensions(lhs.rank());
  std::vector<int64_t> rhs_free = dn.RhsFreeDimensions(rhs.rank());
  const auto& batch = dn.lhs_batching_dimensions;
  const auto& contracting = dn.lhs_contracting_dimensions;
  if (batch.size() <= 1 && contracting.size() <= 1 && lhs_free.size() <= 1 &&
      rhs_free.size() <= 1) {
    return false;
  }
  Arrange(lhs.dims, {batch, lhs_free, contracting}, plan.lhs_permutation, plan.lhs_groups);
  Arrange(rhs.dims, {dn.rhs_batching_dimensions, dn.rhs_contracting_dimensions, rhs_free},
          plan.rhs_permutation, plan.rhs_groups);
  if (!options.transpose_operands &&
      (!IsIdentity(plan.lhs_permutation) || !IsIdentity(plan.rhs_permutation))) {
    return false;
  }
  plan.batch = !batch.empty();
  if (!contracting.empty()) {
    plan.lhs_contracting = static_cast<int64_t>(plan.lhs_groups.size()) - 1;
    plan.rhs_contracting = plan.batch ? 1 : 0;
  }
  return true;
}

// reshape(transpose(x)) into the collapsed form; each step only if needed.
absl::StatusOr<Instruction*> Collapse(Instruction* x, const std::vector<int64_t>& permutation,
                                      const std::vector<int64_t>& collapsed,
                                      ComputationBuilder& b, const std::string& loc) {
  if (!IsIdentity(permutation)) {
    absl::StatusOr<Instruction*> moved =
        b.Add(Opcode::kTranspose, {x}, TransposeAttrs{permutation}, {}, loc);
    if (!moved.ok()) return moved.status();
    x = *moved;
  }
  if (x->shape().dims == collapsed) return x;
  return b.AddWithResultType(Opcode::kReshape, Shape(x->shape().dtype, collapsed), {x}, {}, {},
                             loc);
}

absl::StatusOr<Instruction*> RewriteDot(const CloneContext& ctx, const Plan& plan) {
  const std::string& loc = ctx.old.source_location();
  absl::StatusOr<Instruction*> lhs =
      Collapse(ctx.operands[0], plan.lhs_permutation, plan.lhs_groups, ctx.builder, loc);
  if (!lhs.ok()) return lhs.status();
  absl::StatusOr<Instruction*> rhs =
      Collapse(ctx.operands[1], plan.rhs_permutation, plan.rhs_groups, ctx.builder, loc);
  if (!rhs.ok()) return rhs.status();
  DotGeneralAttrs dot;
  DotDimensionNumbers& dn = dot.dot_dimension_numbers;
  if (plan.batch) {
    dn.lhs_batching_dimensions = {0};
    dn.rhs_batching_dimensions = {0};
  }
  if (plan.lhs_contracting >= 0) {
    dn.lhs_contracting_dimensions = {plan.lhs_contracting};
    dn.rhs_contracting_dimensions = {plan.rhs_contracting};
  }
  absl::StatusOr<Instruction*> product =
      ctx.builder.Add(Opcode::kDotGeneral, {*lhs, *rhs}, dot, {}, loc);
  if (!product.ok()) return product.status();
  if ((*product)->shape() == ctx.old.shape()) return *product;
  return ctx.builder.AddWithResultType(Opcode::kReshape, ctx.old.shape(), {*product}, {}, {}, loc);
}

class DotCanonicalization : public RewriteRule {
 public:
  explicit DotCanonicalization(const DotCanonicalizationOptions& options) : options_(options) {}

  bool Prepare(const Module& module) override {
    for (const Computation* c : ComputationPostOrder(module)) {
      for (const auto& instr : c->instructions()) {
        Plan plan;
        if (MakePlan(*instr, options_, plan)) return true;
      }
    }
    return false;
  }

  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) override {
    Plan plan;
    if (!MakePlan(ctx.old, options_, plan)) return CloneAction::Clone();
    absl::StatusOr<Instruction*> value = RewriteDot(ctx, plan);
    if (!value.ok()) return value.status();
    return CloneAction::Replace(*value);
  }

 private:
  DotCanonicalizationOptions options_;
};

}  // namespace

std::unique_ptr<RewriteRule> MakeDotCanonicalizationRule(
    const DotCanonicalizationOptions& options) {
  return std::make_unique<DotCanonicalization>(options);
}

absl::StatusOr<bool> RunDotCanonicalization(Module& module,
                                            const DotCanonicalizationOptions& options) {
  DotCanonicalization rule(options);
  return RunRule(module, rule);
}

}  // namespace xjit::passes
