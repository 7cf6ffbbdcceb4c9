#include "xjit/passes/common_subexpression_elimination.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "xjit/ir/walk.h"

namespace xjit::passes {
namespace {

bool SameComputation(const Computation& a, const Computation& b);

// Called computations are the same when they are one, or compute the same
// thing the same way: tracing makes a fresh body for every reduce.
bool SameCallees(const std::vector<Computation*>& a, const std::vector<Computation*>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && !SameComputation(*a[i], *b[i])) return false;
  }
  return true;
}

// Instruction by instruction, with operands compared by position.
bool SameComputation(const Computation& a, const Computation& b) {
  const auto& ai = a.instructions();
  const auto& bi = b.instructions();
  if (ai.size() != bi.size() || a.results().size() != b.results().size()) return false;
  for (size_t i = 0; i < a.results().size(); ++i) {
    if (a.results()[i]->id() != b.results()[i]->id()) return false;
  }
  for (size_t i = 0; i < ai.size(); ++i) {
    const Instruction& x = *ai[i];
    const Instruction& y = *bi[i];
    if (x.opcode() != y.opcode() || x.shape() != y.shape() ||
        x.operands().size() != y.operands().size() || x.attributes() != y.attributes() ||
        !SameCallees(x.called_computations(), y.called_computations())) {
      return false;
    }
    for (size_t j = 0; j < x.operands().size(); ++j) {
      if (x.operand(j)->id() != y.operand(j)->id()) return false;
    }
  }
  return true;
}

// Instructions kept so far in one computation, bucketed by a hash of what
// makes two of them the same.
class Table {
 public:
  // A kept instruction equal to `instr` on `operands`, or null.
  Instruction* Find(const Instruction& instr, absl::Span<Instruction* const> operands) const {
    auto it = buckets_.find(Hash(instr, operands));
    if (it == buckets_.end()) return nullptr;
    for (Instruction* kept : it->second) {
      if (Same(*kept, instr, operands)) return kept;
    }
    return nullptr;
  }
  void Insert(Instruction* kept) { buckets_[Hash(*kept, kept->operands())].push_back(kept); }
  // Room for `n` instructions (no rehashing while a computation fills it).
  void Reserve(size_t n) { buckets_.reserve(n); }

 private:
  static size_t Hash(const Instruction& instr, absl::Span<Instruction* const> operands) {
    return absl::HashOf(instr.opcode(), operands, instr.called_computations().size(),
                        instr.shape(), instr.attributes());
  }
  static bool Same(const Instruction& kept, const Instruction& b,
                   absl::Span<Instruction* const> b_operands) {
    return kept.opcode() == b.opcode() && kept.shape() == b.shape() &&
           absl::MakeConstSpan(kept.operands()) == b_operands &&
           kept.attributes() == b.attributes() &&
           SameCallees(kept.called_computations(), b.called_computations());
  }

  // Buckets hold one instruction but for hash collisions: inline, so that
  // no instruction costs an allocation of its own.
  absl::flat_hash_map<size_t, absl::InlinedVector<Instruction*, 1>> buckets_;
};

// Parameters are distinct inputs; an op with side effects must run each time.
bool Mergeable(const Instruction& instr) {
  return instr.opcode() != Opcode::kParameter && !HasSideEffects(instr);
}

class CommonSubexpressionElimination : public RewriteRule {
 public:
  bool Prepare(const Module& module) override {
    tables_.clear();
    for (const Computation* c : ComputationPostOrder(module)) {
      Table table;
      table.Reserve(c->instructions().size());
      for (const auto& instr : c->instructions()) {
        if (!Mergeable(*instr)) continue;
        if (table.Find(*instr, instr->operands()) != nullptr) return true;
        table.Insert(instr.get());
      }
    }
    return false;
  }

  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) override {
    if (!Mergeable(ctx.old)) return CloneAction::Clone();
    auto [table, fresh] = tables_.try_emplace(&ctx.builder);
    if (fresh) table->second.Reserve(ctx.source.instructions().size());
    if (Instruction* kept = table->second.Find(ctx.old, ctx.operands)) {
      return CloneAction::Replace(kept);
    }
    absl::StatusOr<Instruction*> clone = ctx.cloner.CloneInstruction(
        ctx.old, {ctx.operands.begin(), ctx.operands.end()}, ctx.builder);
    if (!clone.ok()) return clone.status();
    // Looked up again: cloning a region added its builder's table, which may
    // have moved this one.
    tables_[&ctx.builder].Insert(*clone);
    return CloneAction::Replace(*clone);
  }

 private:
  // One table per computation being built.
  absl::flat_hash_map<const ComputationBuilder*, Table> tables_;
};

}  // namespace

std::unique_ptr<RewriteRule> MakeCommonSubexpressionEliminationRule() {
  return std::make_unique<CommonSubexpressionElimination>();
}

absl::StatusOr<bool> RunCommonSubexpressionElimination(Module& module) {
  CommonSubexpressionElimination rule;
  return RunRule(module, rule);
}

}  // namespace xjit::passes
