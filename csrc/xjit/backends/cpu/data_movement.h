// Shape and data-movement ops on the CPU: broadcast_in_dim, transpose, slice,
// reverse, reshape (as a copy), concatenate and pad, all lowered to strided
// copies planned at compile time; iota is evaluated at compile time.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"
#include "xjit/ir/literal.h"

namespace xjit::cpu {

absl::StatusOr<std::unique_ptr<Thunk>> MakeDataMovementThunk(const Instruction& instr,
                                                             std::vector<SlotId> inputs,
                                                             SlotId output);

// A plain byte copy between two slots (results that alias a parameter, a
// constant or another result).
std::unique_ptr<Thunk> MakeCopyThunk(SlotId src, SlotId dst, int64_t bytes);

// The value of an iota of this shape: static, so computed once at compile time.
absl::StatusOr<Literal> EvaluateIota(const Shape& shape, int64_t iota_dimension);

}  // namespace xjit::cpu
