// rng_bit_generator on the CPU: the blocks of backends/common/rng_bit_generator.h
// split over the OpenMP team.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

absl::StatusOr<std::unique_ptr<Thunk>> MakeRngBitGeneratorThunk(const Instruction& instr,
                                                                SlotId state, SlotId next_state,
                                                                SlotId output);

}  // namespace xjit::cpu
