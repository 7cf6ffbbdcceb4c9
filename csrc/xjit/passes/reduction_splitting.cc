#include "xjit/passes/reduction_splitting.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "xjit/ir/reduce_body.h"
#include "xjit/ir/walk.h"

namespace xjit::passes {
namespace {

// Whether applying the init value once per partial result, and again to
// their combination, is the same as applying it once.
bool InitMayRepeat(const Instruction& reduce, Opcode body) {
  switch (body) {
    case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kAnd: case Opcode::kOr:
      return true;  // idempotent: op(op(a, c), c) == op(a, c)
    case Opcode::kAdd: {
      const Instruction* init = reduce.operand(1);
      if (init->opcode() != Opcode::kConstant) return false;
      const Literal& value = init->attrs<ConstantAttrs>().value;
      return std::all_of(value.data(), value.data() + value.size_bytes(),
                         [](uint8_t b) { return b == 0; });
    }
    default:
      return false;
  }
}

// Row lengths of the row reductions (over dim 1 of a 2-D reshape) each value
// already has: a full reduction of the value split into the same rows reads
// the same rows, and fusion then reads them once for both (multi-output row
// fusion, passes/elementwise_fusion.h).
using SiblingRows = absl::flat_hash_map<const Instruction*, int64_t>;

void AddSiblingRows(const Instruction& instr, const ReductionSplittingOptions& o,
                    SiblingRows& rows) {
  if (instr.opcode() != Opcode::kReduce || instr.operands().size() != 2) return;
  const Instruction* view = instr.operand(0);
  if (view->opcode() != Opcode::kReshape || view->shape().is_tuple || view->shape().rank() != 2 ||
      instr.attrs<ReduceAttrs>().dimensions != std::vector<int64_t>{1}) {
    return;
  }
  const int64_t row = view->shape().dims[1];
  if (row >= o.min_row && row <= o.max_row && view->shape().dims[0] >= 2) {
    rows.emplace(view->operand(0), row);
  }
}

// K for `reduce`, or nullopt when it is left alone.
std::optional<int64_t> RowSize(const Instruction& reduce, const ReductionSplittingOptions& o,
                               const SiblingRows& sibling_rows) {
  if (reduce.opcode() != Opcode::kReduce || reduce.operands().size() != 2 ||
      reduce.called_computations().size() != 1) {
    return std::nullopt;
  }
  const Shape& x = reduce.operand(0)->shape();
  if (x.is_tuple || x.rank() == 0 ||
      static_cast<int64_t>(reduce.attrs<ReduceAttrs>().dimensions.size()) != x.rank()) {
    return std::nullopt;
  }
  const int64_t n = x.num_elements();
  if (n < o.min_elements) return std::nullopt;
  const std::optional<Opcode> body = RecogniseReduceBody(reduce);
  if (!body || !InitMayRepeat(reduce, *body)) return std::nullopt;
  if (auto it = sibling_rows.find(reduce.operand(0)); it != sibling_rows.end()) return it->second;
  for (int64_t k = o.max_row / o.row_multiple * o.row_multiple; k >= o.min_row;
       k -= o.row_multiple) {
    if (n % k == 0 && n / k >= 2) return k;
  }
  return std::nullopt;
}

class ReductionSplitting : public RewriteRule {
 public:
  explicit ReductionSplitting(const ReductionSplittingOptions& options) : options_(options) {}

  bool Prepare(const Module& module) override {
    sibling_rows_.clear();
    const std::vector<Computation*> computations = ComputationPostOrder(module);
    for (const Computation* c : computations) {
      for (const auto& instr : c->instructions()) AddSiblingRows(*instr, options_, sibling_rows_);
    }
    for (const Computation* c : computations) {
      for (const auto& instr : c->instructions()) {
        if (RowSize(*instr, options_, sibling_rows_)) return true;
      }
    }
    return false;
  }

  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) override {
    const std::optional<int64_t> k = RowSize(ctx.old, options_, sibling_rows_);
    if (!k) return CloneAction::Clone();
    const std::string& loc = ctx.old.source_location();
    absl::StatusOr<Computation*> body =
        ctx.cloner.CloneComputation(*ctx.old.called_computations()[0]);
    if (!body.ok()) return body.status();
    const Shape& x = ctx.old.operand(0)->shape();
    absl::StatusOr<Instruction*> rows = ctx.builder.AddWithResultType(
        Opcode::kReshape, Shape(x.dtype, {x.num_elements() / *k, *k}), {ctx.operands[0]}, {}, {},
        loc);
    if (!rows.ok()) return rows.status();
    absl::StatusOr<Instruction*> partial = ctx.builder.Add(
        Opcode::kReduce, {*rows, ctx.operands[1]}, ReduceAttrs{{1}}, {*body}, loc);
    if (!partial.ok()) return partial.status();
    absl::StatusOr<Instruction*> total = ctx.builder.Add(
        Opcode::kReduce, {*partial, ctx.operands[1]}, ReduceAttrs{{0}}, {*body}, loc);
    if (!total.ok()) return total.status();
    return CloneAction::Replace(*total);
  }

 private:
  ReductionSplittingOptions options_;
  SiblingRows sibling_rows_;
};

}  // namespace

std::unique_ptr<RewriteRule> MakeReductionSplittingRule(const ReductionSplittingOptions& options) {
  return std::make_unique<ReductionSplitting>(options);
}

absl::StatusOr<std::unique_ptr<Module>> SplitReductionsIfChanged(
    const Module& module, const ReductionSplittingOptions& options) {
  ReductionSplitting rule(options);
  if (!rule.Prepare(module)) return std::unique_ptr<Module>();
  RewriteRule* rules[] = {&rule};
  return Sweep(module, rules);
}

absl::StatusOr<bool> RunReductionSplitting(Module& module,
                                           const ReductionSplittingOptions& options) {
  ReductionSplitting rule(options);
  return RunRule(module, rule);
}

}  // namespace xjit::passes
