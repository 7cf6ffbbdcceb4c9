// Vectorisation (vmap) as a graph -> graph transform.
//
// Vmap(f) builds a computation taking each parameter with an extra batch
// dimension (or without, for an unbatched one) and returning each result
// with the batch dimension at its out axis. Inside, every batched value
// carries the batch as its leading dimension: the parameters are transposed
// to that form first, and each op's batching rule (batching_rules.cc, one
// per op) rewrites the op for batched operands, broadcasting the unbatched
// ones where the op needs them batched. Ops no batched value reaches are
// cloned unchanged. Calls and fusions are inlined, their bodies batched.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/builder/builder.h"
#include "xjit/ir/graph.h"

namespace xjit::transforms {

// Not batched (an in_axes/out_axes entry of None).
inline constexpr int64_t kNotMapped = -1;

// `in_axes`: per parameter of `fn`, the dimension of the batched argument
// holding the batch (0..rank), or kNotMapped. `out_axes`: per result, where
// the batch dimension goes in the result (0..rank), or kNotMapped for a
// result that must not depend on the batch. The computation `name` is built
// in `target`, the module of `fn`. `axis_id`: the id of the axis name this
// vmap binds for collectives (collectives.h); -1 binds none (the axis of an
// enclosing Vmap, when a rule batches a region, stays bound).
absl::StatusOr<Computation*> Vmap(const Computation& fn, const std::vector<int64_t>& in_axes,
                                  int64_t axis_size, const std::vector<int64_t>& out_axes,
                                  ModuleBuilder& target, const std::string& name,
                                  int64_t axis_id = -1);

}  // namespace xjit::transforms
