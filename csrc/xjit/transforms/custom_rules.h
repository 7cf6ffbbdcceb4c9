// Functions with user rules (custom_jvp, custom_vjp) and rematerialised
// functions (checkpoint) in the graph.
//
// Each is a `call` whose first callee is the function itself (what a backend
// runs: it inlines the call like any other) and whose name starts with a
// marker; the rules are traced sub-computations, carried as the call's
// further callees, that the transforms use instead of differentiating the
// function:
//
//   xjit_custom_jvp_<n>_*   callees (f, rule); operands (args..., captures...).
//                           rule: (args..., captures..., tangents of the
//                           float args...) -> (results..., tangents of the
//                           float results...). <n> = number of args.
//   xjit_custom_vjp_<n>_*   callees (f, fwd, bwd). fwd: (args..., captures...)
//                           -> (results..., residuals...); bwd: (residuals...,
//                           cotangents of the float results...) ->
//                           (cotangents of the float args...).
//   xjit_custom_lin_<r>_*   made by the JVP of a custom_vjp call inside Vjp
//                           only: the tangents as a linear function of
//                           (residuals..., arg tangents...), r residuals;
//                           callees (zeros, bwd). Its transpose calls bwd;
//                           it is never run forward.
//   xjit_linear_call_<r>_*  jax.custom_derivatives.linear_call: callees (f,
//                           t), both named with this prefix; operands
//                           (residuals..., linear args...), r residuals.
//                           f: the linear function run forward; t: its
//                           transpose, (residuals..., cotangents of f's
//                           results...) -> (cotangents of the linear args...).
//                           Its JVP is itself on the tangents (residuals get
//                           none); its transpose is the call (t, f).
//   xjit_checkpoint_<p>_*   callee f; <p> the policy (nothing, everything,
//                           dots, dotsnobatch): under Vjp, f's primal values
//                           that the policy does not save are recomputed in
//                           the backward computation instead of being saved.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xjit/ir/graph.h"
#include "xjit/transforms/emitter.h"
#include "xjit/transforms/jvp_rules.h"

namespace xjit::transforms {

inline constexpr absl::string_view kCustomJvpPrefix = "xjit_custom_jvp_";
inline constexpr absl::string_view kCustomVjpPrefix = "xjit_custom_vjp_";
inline constexpr absl::string_view kCustomLinPrefix = "xjit_custom_lin_";
inline constexpr absl::string_view kLinearCallPrefix = "xjit_linear_call_";
inline constexpr absl::string_view kCheckpointPrefix = "xjit_checkpoint_";

enum class CustomKind { kJvp, kVjp, kLin, kLinearCall, kCheckpoint };

// The custom_call target of a custom_jvp rule that declined when traced
// (its Python rule raised NotImplementedError): differentiating the call
// raises that error (its backend_config), calling it does not.
inline constexpr char kDeclinedRuleTarget[] = "xjit.custom_jvp_rule_declined";

struct CustomCall {
  CustomKind kind;
  int64_t count = 0;  // jvp/vjp: explicit arguments; lin, linear_call: residuals
  RematPolicy policy = RematPolicy::kNothingSaveable;
  Computation* f = nullptr;    // the function (or lin's zeros)
  Computation* rule = nullptr;  // custom_jvp's rule
  Computation* fwd = nullptr;   // custom_vjp's forward
  Computation* bwd = nullptr;   // custom_vjp's and lin's backward; linear_call's t
};

// Whether a call of `f` is a linear_call (kept whole by rules, transposed by t).
bool IsLinearCall(const Computation& f);

// The marker `call` is, if it is one (nullopt for a plain call); an error
// for a marked call whose callees do not fit the convention above.
absl::StatusOr<std::optional<CustomCall>> AsCustomCall(const Instruction& call);

// Whether a checkpoint with `policy` saves the value of `instr`.
bool RematSaves(RematPolicy policy, const Instruction& instr);

// The JVP of a marked call (jvp_rules.cc's call rule hands it over).
absl::StatusOr<JvpOut> CustomCallJvp(JvpContext& ctx, const CustomCall& custom);

// The transpose of a custom_lin call: bwd applied to its residuals and the
// cotangents of its results (`cts`, one per result, null = zero); of a
// linear_call: the linear_call (t, f) on them. Returns one cotangent per
// operand (null for the residuals).
absl::StatusOr<std::vector<Value>> CustomLinTranspose(Emitter& e, const Instruction& lin,
                                                      const CustomCall& custom,
                                                      const std::vector<Value>& residuals,
                                                      std::vector<Value> cts);

class BatchDriver;
struct BatchOut;
// The batched marked call: each of its computations batched (the call's
// results all batched); a custom_vjp's bwd sums the cotangents of unbatched
// arguments over the batch.
absl::StatusOr<BatchOut> CustomCallBatch(Emitter& e, const Instruction& call,
                                         const CustomCall& custom,
                                         const std::vector<Value>& operands,
                                         const std::vector<bool>& batched, int64_t axis_size);

}  // namespace xjit::transforms
