// The JVP rule table (jvp_rules.cc) and what a rule is shown (internal to
// transforms/). A rule appends the instructions computing the tangent of one
// instruction from its operands' tangents; the driver (jvp.cc) has already
// cloned the instruction's primal value, except for ops that inline a body
// (call, fusion), whose rule produces primal and tangent together.
#pragma once

#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/transforms/emitter.h"

namespace xjit::transforms {

// A value of the original graph in the new one: one part for an array, one
// per element for a tuple-shaped value (multi-result reduce, call).
using Parts = std::vector<Value>;

class JvpDriver;

// What a checkpoint lets the forward computation keep (JAX's
// checkpoint_policies); everything else is recomputed (custom_rules.h).
enum class RematPolicy { kNothingSaveable, kEverythingSaveable, kDotsSaveable, kDotsNoBatchSaveable };
// Primal values made inside a checkpoint, with its policy.
using RematMap = absl::flat_hash_map<const Instruction*, RematPolicy>;

struct JvpContext {
  const Instruction& old;
  std::vector<Parts> primal_operands;   // new primal value of each operand
  std::vector<Parts> tangent_operands;  // their tangents; a null part is a symbolic zero
  Parts results;                        // the cloned primal result (empty for inlining ops)
  Emitter& e;
  JvpDriver& driver;

  Value x(int i) const { return primal_operands[i][0]; }
  Value t(int i) const { return tangent_operands[i][0]; }
  Value y() const { return results[0]; }
  // The tangent of operand i, zeros of its shape when it is a symbolic zero.
  ValueOr TOrZeros(int i);
};

// Tangent parts of the result (and, for inlining ops, the primal parts).
struct JvpOut {
  Parts primals;   // set by inlining rules; others may set it to replace the clone
  Parts tangents;  // one per result part; null = symbolic zero
};
using JvpRule = absl::StatusOr<JvpOut> (*)(JvpContext& ctx);

// The rule of `op`, or nullptr when it has none yet (the driver then raises
// "jvp: no JVP rule for '<op>' yet").
JvpRule JvpRuleFor(Opcode op);
// Whether `op`'s rule builds the primal itself (it inlines a called body).
bool JvpRuleInlines(Opcode op);

// The op of a reduce body (a, b) -> op(a, b) (or op(b, a) for a commutative op), if it is one.
std::optional<Opcode> ReduceBodyOp(const Computation& body);

// Appends a copy of `old` onto `operands` (values of `b`), sharing its called computations.
absl::StatusOr<Value> CloneOnto(ComputationBuilder& b, const Instruction& old,
                                std::vector<Value> operands);

// Differentiates computations in place inside the computation being built.
class JvpDriver {
 public:
  JvpDriver(ModuleBuilder& module, ComputationBuilder& builder)
      : emitter_(module, builder) {}
  Emitter& emitter() { return emitter_; }
  // Clones `source`'s instructions with its parameters bound to
  // `primal_params` (and their tangents, null = zero); returns the results'
  // primal values and tangents.
  absl::StatusOr<std::pair<Parts, Parts>> Run(const Computation& source, const Parts& primal_params,
                                              const Parts& tangent_params);

  // Inside Vjp: custom_vjp calls linearise through their bwd rule (a plain
  // JVP of one is an error, as in JAX), and checkpointed values are recorded.
  void SetForVjp(RematMap* remat) { remat_ = remat; }
  bool for_vjp() const { return remat_ != nullptr; }
  // Records the instructions built since index `from` as made inside a
  // checkpoint with `policy` (an inner checkpoint's record wins).
  void MarkRemat(size_t from, RematPolicy policy) {
    if (remat_ == nullptr) return;
    const auto& ins = emitter_.builder().computation()->instructions();
    for (size_t i = from; i < ins.size(); ++i) remat_->try_emplace(ins[i].get(), policy);
  }

 private:
  Emitter emitter_;
  RematMap* remat_ = nullptr;
};

}  // namespace xjit::transforms
