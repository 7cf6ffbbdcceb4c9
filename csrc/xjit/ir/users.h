// Who uses each instruction of one computation: the instructions that take it
// as an operand, and how often it is one of the computation's results. A
// snapshot: the graph is append-only, so build a new one after appending.
#pragma once

#include <cstdint>
#include <vector>

#include "xjit/ir/graph.h"

namespace xjit {

class Users {
 public:
  explicit Users(const Computation& computation);

  // The instructions that use `instr` as an operand, in instruction order,
  // each once even when it uses `instr` several times. Empty for an
  // instruction of another computation.
  const std::vector<Instruction*>& of(const Instruction& instr) const;
  // How many of the computation's results are `instr` (a value may be
  // returned more than once).
  int64_t result_uses(const Instruction& instr) const;
  bool IsResult(const Instruction& instr) const { return result_uses(instr) > 0; }
  // Neither an operand of anything nor a result.
  bool IsUnused(const Instruction& instr) const { return of(instr).empty() && !IsResult(instr); }

 private:
  bool Owns(const Instruction& instr) const;

  const Computation* computation_;
  std::vector<std::vector<Instruction*>> users_;  // by instruction id
  std::vector<int64_t> result_uses_;              // by instruction id
};

}  // namespace xjit
