// custom_call on the cpu: the registered host function, called on the
// thunk's buffers (runtime/custom_call_runner.h converts layouts).
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// Fails (naming the target) when no target of that name is registered.
absl::StatusOr<std::unique_ptr<Thunk>> MakeCustomCallThunk(const Instruction& instr,
                                                           std::vector<SlotId> in,
                                                           std::vector<SlotId> out);

}  // namespace xjit::cpu
