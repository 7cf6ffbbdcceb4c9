#include "xjit/passes/common_subexpression_elimination.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "xjit/ir/walk.h"
#include "xjit/passes/rewrite_module.h"

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

// One instruction already seen in a computation: its value (in the graph
// being scanned or built) and its operands there.
struct Seen {
  const Instruction* old;
  std::vector<Instruction*> operands;
};

// The instructions seen so far in one computation, bucketed by a hash of
// what makes two of them the same.
class Table {
 public:
  // An earlier instruction equal to `instr` on `operands`, or null; records
  // `instr` when there is none.
  const Instruction* FindOrInsert(const Instruction& instr,
                                  absl::Span<Instruction* const> operands) {
    if (instr.opcode() == Opcode::kParameter) return nullptr;
    std::vector<Seen>& bucket = buckets_[Hash(instr, operands)];
    for (const Seen& s : bucket) {
      if (Same(*s.old, s.operands, instr, operands)) return s.old;
    }
    bucket.push_back(Seen{&instr, {operands.begin(), operands.end()}});
    return nullptr;
  }

 private:
  static size_t Hash(const Instruction& instr, absl::Span<Instruction* const> operands) {
    size_t h = absl::HashOf(instr.opcode(), operands, instr.called_computations().size(),
                            instr.shape().dims, instr.shape().dtype);
    if (instr.opcode() == Opcode::kConstant) {
      const Literal& lit = instr.attrs<ConstantAttrs>().value;
      // A prefix of the bytes tells most constants apart at a bounded cost.
      absl::string_view bytes(reinterpret_cast<const char*>(lit.data()),
                              std::min<int64_t>(lit.size_bytes(), 64));
      h = absl::HashOf(h, bytes);
    }
    return h;
  }
  static bool Same(const Instruction& a, const std::vector<Instruction*>& a_operands,
                   const Instruction& b, absl::Span<Instruction* const> b_operands) {
    return a.opcode() == b.opcode() && a.shape() == b.shape() &&
           absl::MakeConstSpan(a_operands) == b_operands &&
           a.attributes() == b.attributes() &&
           SameCallees(a.called_computations(), b.called_computations());
  }

  absl::flat_hash_map<size_t, std::vector<Seen>> buckets_;
};

bool HasDuplicates(const Module& module) {
  for (const Computation* c : ComputationPostOrder(module)) {
    Table table;
    for (const auto& instr : c->instructions()) {
      if (table.FindOrInsert(*instr, instr->operands()) != nullptr) return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<bool> RunCommonSubexpressionElimination(Module& module) {
  if (!HasDuplicates(module)) return false;
  // One table per computation being built.
  absl::flat_hash_map<const ComputationBuilder*, Table> tables;
  CloneOptions options;
  options.hook = [&tables](const CloneContext& ctx) -> absl::StatusOr<CloneAction> {
    const Instruction* earlier = tables[&ctx.builder].FindOrInsert(ctx.old, ctx.operands);
    if (earlier == nullptr) return CloneAction::Clone();
    return CloneAction::Replace(ctx.map.at(earlier));
  };
  if (absl::Status s = RewriteModule(module, options); !s.ok()) return s;
  return true;
}

}  // namespace xjit::passes
