// Recognising a reduce body that is one known binary op of its two
// parameters, so a backend can run a typed kernel instead of evaluating the
// region per element.
#pragma once

#include <optional>

#include "xjit/ir/graph.h"

namespace xjit {

// add, multiply, maximum, minimum, and, or when `reduce` is a single-input
// reduce whose body is `return op(p0, p1)` (either order) with the input's
// element type throughout; nullopt otherwise.
std::optional<Opcode> RecogniseReduceBody(const Instruction& reduce);

}  // namespace xjit
