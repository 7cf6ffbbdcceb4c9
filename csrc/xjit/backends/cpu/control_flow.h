// while, if and case on the cpu backend: each region is compiled once into a
// program of its own (CpuProgram, through the same passes and lowering as an
// entry) that the thunk runs in place on the enclosing program's buffers.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/program.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// Compiles a region (a computation of the module being lowered) into a program.
using RegionCompiler =
    std::function<absl::StatusOr<std::unique_ptr<CpuProgram>>(const Computation&)>;

// while: `in` are the operand buffers (carried values, then captured ones),
// `out` the result buffers. The carry lives in `out` and in a second set of
// scratch buffers: each iteration's body reads one set and writes the other,
// so nothing is copied per iteration; a value the body may update in place
// (CpuProgram::ResultMayReuseParameter) stays in its result buffer instead.
// The condition's i1 is read on the host.
absl::StatusOr<std::unique_ptr<Thunk>> MakeWhileThunk(const Instruction& instr,
                                                      std::vector<SlotId> in,
                                                      std::vector<SlotId> out,
                                                      LoweringContext& context,
                                                      const RegionCompiler& compile);

// if and case: reads the predicate or index on the host and runs that
// branch's program on the captured operands, writing `out` directly.
absl::StatusOr<std::unique_ptr<Thunk>> MakeBranchThunk(const Instruction& instr,
                                                       std::vector<SlotId> in,
                                                       std::vector<SlotId> out,
                                                       const RegionCompiler& compile);

}  // namespace xjit::cpu
