// Collectives over a vmap axis (lax.psum, pmax, pmin, axis_index) in the
// graph: a `call` whose callee is named
//
//   xjit_collective_<kind>_<axis>_*   kind: psum | pmax | pmin | index;
//                                     <axis>: the id of the vmap that binds
//                                     the axis name (Python assigns one per
//                                     vmap call).
//
// The callee is the collective over an axis of size 1 (the identity; for
// index the constant 0), which is what a backend would run. The vmap with
// the same axis id (`ScopedVmapAxis`, set by Vmap while it batches) replaces
// the call: psum sums over the batch (an unbatched value is multiplied by
// the axis size), pmax/pmin take the max/min over it (an unbatched value
// stays), index becomes an iota. A vmap of another axis batches the call
// and keeps the marker, for the vmap that owns the axis. psum is linear:
// its JVP is psum of the tangent and its transpose psum of the cotangent;
// pmax/pmin have no derivative rule yet.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/transforms/batching_rules.h"
#include "xjit/transforms/jvp_rules.h"

namespace xjit::transforms {

struct Collective {
  enum class Kind { kPsum, kPmax, kPmin, kIndex };
  Kind kind;
  int64_t axis = 0;
};

// The collective a call of `callee` is, if it is one.
std::optional<Collective> AsCollective(const Computation& callee);

// Whether `instr` is a collective of the axis the running Vmap binds: its
// rule must run even when no operand is batched (psum of a constant,
// axis_index).
bool BindsCurrentAxis(const Instruction& instr);

// While alive, Vmap binds axis `id` (the innermost scope wins).
class ScopedVmapAxis {
 public:
  explicit ScopedVmapAxis(int64_t id);
  ~ScopedVmapAxis();
  ScopedVmapAxis(const ScopedVmapAxis&) = delete;
  ScopedVmapAxis& operator=(const ScopedVmapAxis&) = delete;

 private:
  int64_t previous_;
};

absl::StatusOr<BatchOut> CollectiveBatch(BatchContext& ctx, const Collective& c);
absl::StatusOr<JvpOut> CollectiveJvp(JvpContext& ctx, const Collective& c);
// The cotangent of a psum's operand: psum of the cotangent.
absl::StatusOr<std::vector<Value>> CollectiveTranspose(Emitter& e, const Instruction& call,
                                                       const Collective& c, Value ct);

}  // namespace xjit::transforms
