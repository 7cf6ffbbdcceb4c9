// JVP and transpose rules of while, if and case (control_flow_rules.cc).
//
// if/case: the primal op is cloned as is; the tangent is a second op of the
// same kind on (selector, captured values, their tangents) whose branches
// are the JVPs of the original ones returning only the tangents (each
// recomputes its primal values). That op is linear in the tangents, so Vjp
// transposes it into a third op whose branches run each branch's VJP
// (forward and backward) on the cotangents.
// while: one loop carrying the values and their tangents (forward mode).
// Reverse mode through a while is JAX's error.
#pragma once

#include "absl/status/statusor.h"
#include "xjit/transforms/jvp_rules.h"
#include "xjit/transforms/transpose_rules.h"

namespace xjit::transforms {

absl::StatusOr<JvpOut> BranchJvp(JvpContext& ctx);  // if, case
absl::StatusOr<JvpOut> WhileJvp(JvpContext& ctx);   // builds the primal too
absl::StatusOr<std::vector<Value>> BranchTranspose(TransposeContext& ctx);

}  // namespace xjit::transforms
