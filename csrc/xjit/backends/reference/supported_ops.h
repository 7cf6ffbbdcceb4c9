// The ops the reference backend (plain loops, ground truth) implements, for docs/ops.md
// and the op schema Python reads. A switch without default: declaring a new
// op in ir/opcode.h makes the compiler point here, so its support is stated.
#pragma once

#include <vector>

#include "xjit/ir/opcode.h"

namespace xjit::reference {

bool SupportsOp(Opcode op);
std::vector<Opcode> SupportedOps();  // in enum order

}  // namespace xjit::reference
