// Element-wise ops of integer and bool splats (every operand a constant of
// one repeated element, or a broadcast of one) evaluated here, as XLA folds
// them: jnp's floor division and modulo build `divisor == 0`, `sign(divisor)`
// and `select(false, 1, divisor)` of a constant divisor, which folded leave
// the divisor a constant (a magic multiply in generated code) and the sign
// fix-ups a compare against constants. Integers only: their semantics
// (wrapping, two's complement) need no backend kernel; division, remainder,
// shifts and every float op stay for the backends.
#pragma once

#include <optional>

#include "absl/types/span.h"
#include "xjit/ir/graph.h"
#include "xjit/ir/literal.h"

namespace xjit::passes {

// The one-element value of `instr` on these operands (its element type, rank
// 0), when every operand is a splat of a whole-byte integer type or bool (not
// int2/int4, which wrap at their own width) and the op is one of:
// compare, select, add, subtract, multiply, negate, abs, sign, maximum,
// minimum, and, or, xor, not, and convert between integer and bool types; or
// a select between splats of any type.
std::optional<Literal> FoldIntegerSplats(const Instruction& instr,
                                         absl::Span<Instruction* const> operands);

}  // namespace xjit::passes
