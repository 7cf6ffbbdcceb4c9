// Thunks of the token and host-transfer ops: after_all writes its token's
// placeholder byte; infeed/recv and outfeed/send move values through the
// running device's queues (runtime/host_transfer_op.h).
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// `in` and `out` are the instruction's operand and result leaves.
absl::StatusOr<std::unique_ptr<Thunk>> MakeHostIoThunk(const Instruction& instr,
                                                       const std::vector<SlotId>& in,
                                                       const std::vector<SlotId>& out);

}  // namespace xjit::cpu
