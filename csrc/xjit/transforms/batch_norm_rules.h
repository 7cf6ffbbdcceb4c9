// JVP and batching rules of batch_norm_inference, batch_norm_training and
// batch_norm_grad (batch_norm_rules.cc, which says how they are built); the
// entries jvp_rules.cc and batching_rules.cc return for these opcodes. None
// of the ops is linear: they have no transpose rule.
#pragma once

#include "xjit/transforms/batching_rules.h"
#include "xjit/transforms/jvp_rules.h"

namespace xjit::transforms {

absl::StatusOr<JvpOut> BatchNormInferenceJvp(JvpContext& ctx);
absl::StatusOr<JvpOut> BatchNormTrainingJvp(JvpContext& ctx);
absl::StatusOr<JvpOut> BatchNormGradJvp(JvpContext& ctx);

// One rule for the three ops: the vmapped dimension merges into the feature one.
absl::StatusOr<BatchOut> BatchNormBatch(BatchContext& ctx);

}  // namespace xjit::transforms
