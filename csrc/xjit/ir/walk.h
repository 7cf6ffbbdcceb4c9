// Walks over a computation's instructions and a module's computations, in
// both orders. Post order visits what a node depends on before the node
// (operands before users, callees before callers); reverse post order the
// other way round.
#pragma once

#include <vector>

#include "absl/functional/function_ref.h"
#include "xjit/ir/graph.h"

namespace xjit {

// Every instruction of `c`, operands before users (the SSA order).
std::vector<Instruction*> PostOrder(const Computation& c);
// Every instruction of `c`, users before operands.
std::vector<Instruction*> ReversePostOrder(const Computation& c);

// Indexed by instruction id: true when some result of `c` or an op with
// side effects depends on it (or it has side effects itself). Parameters
// count only when used (they are never removed, though).
std::vector<bool> LiveInstructions(const Computation& c);
// The instructions some result depends on, operands before users.
std::vector<Instruction*> LivePostOrder(const Computation& c);

// The computations reachable from the entry, each once, callees before
// callers: the entry comes last.
std::vector<Computation*> ComputationPostOrder(const Module& module);
// The same, callers before callees: the entry comes first.
std::vector<Computation*> ComputationReversePostOrder(const Module& module);

// Whether `pred` holds for some instruction of some computation of `module`.
bool AnyInstruction(const Module& module, absl::FunctionRef<bool(const Instruction&)> pred);
// Whether `pred` holds for an array (or tuple leaf) of some instruction's
// result in `module`. Every value is some instruction's result (parameters
// and block arguments too), so this sees every type the module uses, each
// once per definition rather than once per use.
bool AnyResultLeaf(const Module& module, absl::FunctionRef<bool(const Shape&)> pred);
// Whether `pred` holds for an array (or tuple leaf) among the types of
// `instr`'s result and operands.
bool AnyArrayLeafOfTypes(const Instruction& instr, absl::FunctionRef<bool(const Shape&)> pred);

}  // namespace xjit
