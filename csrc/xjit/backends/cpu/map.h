// map on the CPU: the computation region runs through the ScalarEvaluator at
// every index, in parallel over the elements.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

absl::StatusOr<std::unique_ptr<Thunk>> MakeMapThunk(const Instruction& instr,
                                                    std::vector<SlotId> inputs, SlotId output);

}  // namespace xjit::cpu
