// Which results of a cpu program may be written into a donated parameter's
// storage (CompiledProgram::ResultMayReuseParameter): the program must never
// read the parameter after it starts writing that result. Certain when the
// buffer assignment puts the parameter's last read at an earlier step than
// the result's first write. At the same step it depends on how the writing
// thunk runs: an element-wise op or a fused element-wise chain (fusion.h)
// reads element i of its operands before writing element i, tile by tile, so
// it may write over a parameter it reads only at the same index and, within
// a chain, only up to the op that writes the result. Data movement, dot and
// reduce read other indices: never at the same step.
#pragma once

#include <cstdint>
#include <vector>

#include "xjit/ir/graph.h"
#include "xjit/passes/buffer_assignment.h"

namespace xjit::cpu {

// Whether result `result` may share parameter `parameter`'s storage (same
// byte size required). The final copy of a result that IS the parameter
// becomes a copy onto itself, which CopyThunk skips.
bool ResultMayReuseParameter(const passes::BufferAssignment& assignment, int64_t result,
                             int64_t parameter);

// The answer for every pair, indexed [result * num_parameters + parameter].
std::vector<bool> ReusableResultParameterPairs(const passes::BufferAssignment& assignment,
                                               int64_t num_results, int64_t num_parameters);

}  // namespace xjit::cpu
