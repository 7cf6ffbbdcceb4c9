// The transpose rule table (transpose_rules.cc), internal to transforms/.
// A rule receives the cotangent of a linear instruction's result and returns
// one cotangent per operand: for its linear operands (null when nothing
// flows back), nothing for the others, whose primal values it may read.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/transforms/emitter.h"

namespace xjit::transforms {

struct TransposeContext {
  const Instruction& old;            // the linear instruction (of the JVP graph)
  Value ct;                          // the cotangent of its result
  std::vector<bool> linear;          // per operand
  std::vector<Value> primal;         // per operand: its value in the backward graph, or null if linear
  Emitter& e;
  // For a tuple-shaped result (a custom_vjp linearisation): the cotangent of
  // each element (null = zero); `ct` is then null.
  std::vector<Value> ct_parts = {};

  const Shape& operand_shape(int i) const { return old.operand(i)->shape(); }
};

using TransposeRule = absl::StatusOr<std::vector<Value>> (*)(TransposeContext& ctx);

// nullptr: the op is not linear in any operand (or has no rule yet).
TransposeRule TransposeRuleFor(Opcode op);

}  // namespace xjit::transforms
