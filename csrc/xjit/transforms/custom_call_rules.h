// JVP and batching of custom_call. Host callbacks (@xjit_python_callback,
// python/xjit/_src/callbacks.py) batch as their vmap_method says; no
// custom_call has a derivative (JAX's errors: wrap it in custom_jvp).
#pragma once

#include "absl/status/statusor.h"
#include "xjit/transforms/batching_rules.h"
#include "xjit/transforms/jvp_rules.h"

namespace xjit::transforms {

// Only asked for when a tangent reaches a call with float results: an error.
absl::StatusOr<JvpOut> CustomCallJvp(JvpContext& ctx);
absl::StatusOr<BatchOut> CustomCallBatch(BatchContext& ctx);

}  // namespace xjit::transforms
