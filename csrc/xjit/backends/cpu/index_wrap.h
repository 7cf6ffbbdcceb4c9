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

// JAX's fill mode behind a gather (jnp.take's default, x.at[i].get(mode=
// "fill")): select(lo <= i && i < hi, gathered, fill) over the raw indices,
// as one fusion that is the gather's only user. The cpu lowering lets the
// gather write the fill itself (the fusion gets no thunk): one pass over
// the indices and the result less.
struct IndexFill {
  const Instruction* fusion = nullptr;  // the select, absorbed
  int64_t lo = 0, hi = 0;               // the raw indices kept: [lo, hi)
  uint64_t bits = 0;                    // the fill value's bytes (4 or 8 of them)
};

// The fill that the users of `gather` apply, when they are of that form;
// `raw` is the raw indices (the gather's indices, or the input of their
// absorbed normalisation). `columns`: a gather of columns (x[..., idx],
// take(x, idx, axis=-1)), whose fill reads a mask over the columns computed
// by a fusion of its own and spread over the rows.
std::optional<IndexFill> MatchIndexFill(const Instruction& gather, const Instruction& raw,
                                        const Users& users, bool columns = false);

}  // namespace xjit::cpu
