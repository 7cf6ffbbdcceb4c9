// Which transformation rules an op has, for docs/ops.md's transforms column
// (the binding `op_schema` reports it).
#pragma once

#include <string>
#include <vector>

#include "xjit/ir/opcode.h"

namespace xjit::transforms {

// A subset of {"jvp", "transpose", "vmap"}, in that order: the tables of
// jvp_rules.cc, transpose_rules.cc and batching_rules.cc that name a rule
// for `op`.
std::vector<std::string> RulesFor(Opcode op);

}  // namespace xjit::transforms
