// JVP, transpose and batching rules of while, if and case
// (control_flow_rules.cc, control_flow_batching.cc).
//
// if/case: the primal op is cloned as is; the tangent is a second op of the
// same kind on (selector, captured values, their tangents) whose branches
// are the JVPs of the original ones returning only the tangents (each
// recomputes its primal values). That op is linear in the tangents, so Vjp
// transposes it into a third op whose branches run each branch's VJP
// (forward and backward) on the cotangents.
// while: one loop carrying the values and their tangents (forward mode).
// Reverse mode through a while is JAX's error, except for a loop with a
// static trip count (scan, fori_loop with static bounds), unrolled then.
#pragma once

#include "absl/status/statusor.h"
#include "xjit/transforms/batching_rules.h"
#include "xjit/transforms/jvp_rules.h"
#include "xjit/transforms/transpose_rules.h"

namespace xjit::transforms {

absl::StatusOr<JvpOut> BranchJvp(JvpContext& ctx);  // if, case
absl::StatusOr<JvpOut> WhileJvp(JvpContext& ctx);   // builds the primal too
absl::StatusOr<std::vector<Value>> BranchTranspose(TransposeContext& ctx);

// vmap. if/case with a batched selector: every branch runs batched and the
// results are selected per lane; with an unbatched one: the same op on
// batched branches. while: one loop over batched values that runs until
// every lane's condition is false, lanes already done keeping their values.
absl::StatusOr<BatchOut> BranchBatch(BatchContext& ctx);
absl::StatusOr<BatchOut> WhileBatch(BatchContext& ctx);

}  // namespace xjit::transforms
