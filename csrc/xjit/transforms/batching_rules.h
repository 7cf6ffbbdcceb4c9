// The batching rule table (batching_rules.cc) and the driver it recurses
// through, internal to transforms/. A batched value always has the batch as
// dimension 0, so a rule sees operands of type [B] + old type (batched) or
// the old type (unbatched).
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/ir/literal.h"
#include "xjit/transforms/emitter.h"
#include "xjit/transforms/jvp_rules.h"

namespace xjit::transforms {

class BatchDriver;

struct BatchContext {
  const Instruction& old;
  std::vector<Value> operands;
  std::vector<bool> batched;  // per operand
  int64_t axis_size;
  Emitter& e;
  BatchDriver& driver;

  // Operand i batched: broadcast along a new leading dimension when it is not.
  ValueOr Batched(int i);
};

struct BatchOut {
  Parts values;
  std::vector<bool> batched;  // per part
};
using BatchRule = absl::StatusOr<BatchOut> (*)(BatchContext& ctx);

// nullptr: no batching rule yet ("vmap: no batching rule for '<op>' yet").
BatchRule BatchRuleFor(Opcode op);

// The identity of a reduce body's op for `dtype` (nullopt if it has none here).
std::optional<Literal> BodyIdentity(Opcode op, DType dtype);

// `x` ([B, ...]) padded like `pad` with a per-lane padding value `value` ([B]).
ValueOr PadWithLanes(Emitter& e, Value x, Value value, const std::vector<int64_t>& low,
                     const std::vector<int64_t>& high, const std::vector<int64_t>& interior);

// `x` with `axis_size` copies along a new leading dimension.
ValueOr BroadcastBatch(Emitter& e, Value x, int64_t axis_size);

class BatchDriver {
 public:
  BatchDriver(ModuleBuilder& module, ComputationBuilder& builder, int64_t axis_size)
      : emitter_(module, builder), axis_size_(axis_size) {}
  Emitter& emitter() { return emitter_; }
  // Batches `source`'s instructions in place, its parameters bound to
  // `params` (batched ones with a leading batch dimension).
  absl::StatusOr<BatchOut> Run(const Computation& source, const Parts& params,
                               const std::vector<bool>& batched);

 private:
  Emitter emitter_;
  int64_t axis_size_;
};

}  // namespace xjit::transforms
