// scatter and dynamic_update_slice on the cpu. Both first copy the inputs to
// the results. scatter then walks each update window, clipped to the inputs'
// bounds (updates outside are skipped, as the spec says): a body that returns
// the update (set) copies runs with memcpy; add, multiply, maximum and
// minimum of one input run a typed loop; any other body (variadic, or
// anything else) runs through the ScalarEvaluator per element. Updates are
// applied in order, on one thread unless `unique_indices` promises that no
// two index vectors hit the same element. dynamic_update_slice clamps its
// start and copies the update as a strided box.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

absl::StatusOr<std::unique_ptr<Thunk>> MakeScatterThunk(const Instruction& instr,
                                                        std::vector<SlotId> inputs,
                                                        std::vector<SlotId> outputs);
absl::StatusOr<std::unique_ptr<Thunk>> MakeDynamicUpdateSliceThunk(const Instruction& instr,
                                                                   std::vector<SlotId> inputs,
                                                                   SlotId output);

}  // namespace xjit::cpu
