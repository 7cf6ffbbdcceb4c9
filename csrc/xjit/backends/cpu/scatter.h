// scatter and dynamic_update_slice on the cpu. Both first copy the inputs to
// the results. scatter then walks each update window, clipped to the inputs'
// bounds (updates outside are skipped, as the spec says): a body that returns
// the update (set) copies runs with memcpy; add, multiply, maximum and
// minimum of one input run a typed loop; any other body (variadic, or
// anything else) runs through the ScalarEvaluator per element. Updates are
// applied in order. In parallel: over index vectors when `unique_indices`
// promises that no two hit the same element; otherwise over parts of the
// results, each thread applying every update to its own part only (so each
// element still sees its updates in the serial order). dynamic_update_slice clamps its
// start and copies the update as a strided box.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// wrap != 0: `inputs`' indices are the raw ones of an absorbed normalisation
// (index_wrap.h); only a scatter of rows (ScatterOfRows) takes it.
absl::StatusOr<std::unique_ptr<Thunk>> MakeScatterThunk(const Instruction& instr,
                                                        std::vector<SlotId> inputs,
                                                        std::vector<SlotId> outputs,
                                                        int64_t wrap = 0);
// Whether the scatter runs on the row kernel (row_indexing.h).
bool ScatterOfRows(const Instruction& instr);
// `splat_update`: inputs[1] is one element, the operand of a broadcast
// update the lowering absorbed (x.at[box].set(scalar)): the box is filled
// with it, the broadcast never written.
absl::StatusOr<std::unique_ptr<Thunk>> MakeDynamicUpdateSliceThunk(const Instruction& instr,
                                                                   std::vector<SlotId> inputs,
                                                                   SlotId output,
                                                                   bool splat_update = false);

}  // namespace xjit::cpu
