// Algebraic simplification, exact rewrites only:
//   reshape to the same shape, transpose by the identity, broadcast_in_dim
//   to the same shape in order, convert to the same type, a slice of all
//   of x, reverse along unit dimensions, pad by nothing, concatenate of
//   one operand -> the operand;
//   reshape(reshape(x)), transpose(transpose(x)),
//   broadcast_in_dim(broadcast_in_dim(x)) -> one op;
//   broadcast_in_dim(reshape(y)) where the reshape only adds unit
//   dimensions (keepdims) -> broadcast_in_dim(y);
//   reshape, transpose, slice or reverse of broadcast_in_dim(scalar) ->
//   broadcast_in_dim(scalar) to the result shape;
//   negate(negate(x)) -> x;
//   x * 1, 1 * x, x / 1 -> x (not complex: (inf+0i)*(1+0i) is inf+nan*i);
//   integers: x + 0, 0 + x, x - 0 -> x;
//   floating point and complex: x + (-0.0), (-0.0) + x, x - (+0.0) -> x.
//   x + (+0.0) is NOT x: (-0.0) + (+0.0) is +0.0.
// "1" and "0" are constants whose elements are all that value, or
// broadcast_in_dim of one. The operands left unused are dead code.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/passes/rewrite_rule.h"

namespace xjit::passes {

std::unique_ptr<RewriteRule> MakeAlgebraicSimplificationRule();

// True when something was simplified.
absl::StatusOr<bool> RunAlgebraicSimplification(Module& module);

}  // namespace xjit::passes
