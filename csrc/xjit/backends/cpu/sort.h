// sort on the CPU. A comparator that orders by the first operand with one
// compare (common/sort_comparator.h: ascending or descending, plain, total
// order or JAX's canonicalised total order) sorts integer keys made from
// that operand's bits with a stable LSD radix sort and permutes every
// operand by the resulting order (argsort is sort of (keys, iota)). Any other
// comparator runs through the ScalarEvaluator under std::stable_sort. Both
// are parallel over the 1-d slices (the dimensions not sorted). Sorting is
// always stable, which an unstable sort also allows. A sort whose results
// are read only in their first `prefix` elements along the dimension
// (top_k: a sort then slices) selects those with a partial sort of (key,
// position) pairs: the same first elements, the rest in no particular order.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// inputs and outputs: one slot per operand. prefix: 0, or the elements
// along the dimension that are read.
absl::StatusOr<std::unique_ptr<Thunk>> MakeSortThunk(const Instruction& instr,
                                                     std::vector<SlotId> inputs,
                                                     std::vector<SlotId> outputs,
                                                     int64_t prefix = 0);

}  // namespace xjit::cpu
