// reduce_window and select_and_scatter on the CPU. reduce_window: a typed
// kernel when the body is one add/multiply/maximum/minimum/and/or of its two
// parameters (pooling), the ScalarEvaluator for any other body (variadic
// included); parallel over output elements. select_and_scatter: a typed
// kernel for a select that is one GE/GT/LE/LT compare of (p0, p1) and a
// scatter that is one add (the max-pool gradient), the ScalarEvaluator
// otherwise; the selection runs in parallel, the scatter in source order.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// inputs: the N operands then the N init values; outputs: the N results.
absl::StatusOr<std::unique_ptr<Thunk>> MakeReduceWindowThunk(const Instruction& instr,
                                                             std::vector<SlotId> inputs,
                                                             std::vector<SlotId> outputs);
// inputs: operand, source, init_value.
absl::StatusOr<std::unique_ptr<Thunk>> MakeSelectAndScatterThunk(const Instruction& instr,
                                                                 std::vector<SlotId> inputs,
                                                                 SlotId output,
                                                                 LoweringContext& ctx);

}  // namespace xjit::cpu
