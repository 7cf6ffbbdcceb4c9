// JVP, transpose and batching rules of the indexing ops (gather, scatter,
// dynamic_slice, dynamic_update_slice), and sort's JVP, which needs gather.
// The rule tables (jvp_rules.cc, transpose_rules.cc, batching_rules.cc) point
// at these. Internal to transforms/.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "xjit/transforms/batching_rules.h"
#include "xjit/transforms/jvp_rules.h"
#include "xjit/transforms/transpose_rules.h"

namespace xjit::transforms {

// gather / dynamic_slice: the same op of the operand's tangent.
// dynamic_update_slice: of both tangents. scatter: scatter-add of the
// tangents for an add body; JAX's id-masking scheme for a body returning the
// update (set); other bodies have no rule yet.
absl::StatusOr<JvpOut> GatherJvp(JvpContext& ctx);
absl::StatusOr<JvpOut> DynamicSliceJvp(JvpContext& ctx);
absl::StatusOr<JvpOut> DynamicUpdateSliceJvp(JvpContext& ctx);
absl::StatusOr<JvpOut> ScatterJvp(JvpContext& ctx);
// sort: sorts an iota along with the keys and gathers the tangents by it.
absl::StatusOr<JvpOut> SortJvp(JvpContext& ctx);

// gather -> scatter-add into zeros (indices clamped as gather clamps them);
// dynamic_slice -> dynamic_update_slice into zeros; dynamic_update_slice ->
// (operand with a zero window, dynamic_slice); scatter-add -> (ct, gather).
absl::StatusOr<std::vector<Value>> GatherT(TransposeContext& ctx);
absl::StatusOr<std::vector<Value>> DynamicSliceT(TransposeContext& ctx);
absl::StatusOr<std::vector<Value>> DynamicUpdateSliceT(TransposeContext& ctx);
absl::StatusOr<std::vector<Value>> ScatterT(TransposeContext& ctx);

// The batch dimension folded into the op: a new window dimension when only
// the operand is batched, a new index batch dimension when only the indices
// are, operand_batching_dims when both are. Batched start indices of the
// dynamic slices turn them into gather / scatter.
absl::StatusOr<BatchOut> GatherB(BatchContext& ctx);
absl::StatusOr<BatchOut> ScatterB(BatchContext& ctx);
absl::StatusOr<BatchOut> DynamicSliceB(BatchContext& ctx);
absl::StatusOr<BatchOut> DynamicUpdateSliceB(BatchContext& ctx);

}  // namespace xjit::transforms
