// The lowering of a row fusion (passes/elementwise_fusion.h): a fusion whose
// region reduces rows. Its values are indexed by row: over a whole row
// (row_size elements), one element per row (a reduce's result and what is
// computed from it), or one element in all (a splat). The thunk runs the
// region's ops on a block of whole rows at a time, each block on one thread,
// with the values the region does not return in per-thread block buffers:
// softmax or layer norm read each row from memory once and write it once.
// A column fusion (reduces of the leading dims: (x * x).sum(axis=0)) runs the
// same way, its blocks in chunks of rows: each chunk's blocks in order on one
// thread, their rows accumulated into the chunk's partial results as they
// are computed, the partials combined in chunk order at the end.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// Whether a fusion's region is a row or column fusion's (it holds a reduce).
bool IsRowFusionRegion(const Computation& region);

// inputs: one slot per operand of the fusion; outputs: one per region result.
// *work gets the work estimate of one run (work_estimate.h).
absl::StatusOr<std::unique_ptr<Thunk>> MakeRowFusionThunk(const Instruction& fusion,
                                                          const std::vector<SlotId>& inputs,
                                                          const std::vector<SlotId>& outputs,
                                                          int64_t* work);

}  // namespace xjit::cpu
