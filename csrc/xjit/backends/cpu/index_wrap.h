// JAX's index normalisation in front of a gather or scatter, where(i < 0,
// i + n, i) (numpy-style negative indices), as the element-wise fusion pass
// leaves it: one `fusion` instruction, used by nothing but the gather's or
// scatter's indices (through reshapes). The cpu lowering then drops that
// fusion and lets the row kernel (row_indexing.h) wrap the raw indices as it
// reads them: one pass over the indices less.
#pragma once

#include <cstdint>
#include <optional>

#include "xjit/ir/graph.h"
#include "xjit/ir/users.h"

namespace xjit::cpu {

struct IndexWrap {
  const Instruction* raw = nullptr;     // the indices before normalisation
  const Instruction* fusion = nullptr;  // the normalisation, absorbed
  int64_t n = 0;                        // added to negative indices
};

// The normalisation that `indices` (an operand of one gather/scatter) is,
// when it is one.
std::optional<IndexWrap> MatchIndexWrap(const Instruction& indices, const Users& users);

}  // namespace xjit::cpu
