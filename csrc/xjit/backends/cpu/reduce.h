// reduce on the CPU. A body that is one add/multiply/maximum/minimum/and/or of
// its two parameters gets a typed kernel (vectorisable, float accumulation for
// f16/bf16); any other body, including variadic ones such as argmax, runs
// through the ScalarEvaluator. Both are multi-threaded over the outputs.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// inputs: the N operands then the N init values; outputs: the N results.
absl::StatusOr<std::unique_ptr<Thunk>> MakeReduceThunk(const Instruction& instr,
                                                       std::vector<SlotId> inputs,
                                                       std::vector<SlotId> outputs);

}  // namespace xjit::cpu
