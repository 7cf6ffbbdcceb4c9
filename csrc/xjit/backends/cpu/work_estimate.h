// A compile-time estimate of how much work a CPU program does per run, used
// to decide whether Execute may run it inline on the caller's thread.
#pragma once

#include <cstdint>

#include "xjit/backends/cpu/parallel.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// Work of the thunk(s) lowered from one instruction, in the units the kernels'
// ParallelFor costs use: output elements for element-wise and data movement
// ops (libm-bound ops weighted as several), input elements for reductions,
// multiply-adds for dot_general. An upper bound of each kernel's own cost.
int64_t EstimateInstructionWork(const Instruction& instr);

// Up to this much work a program runs inline when the device is idle. Equal
// to the fork threshold, so an inline run never starts an OpenMP team (even a
// fused chain's cost, elements x ops, is at most the program's total): a
// second OpenMP master thread would get its own pool of spinning threads.
// Runs this small take a few microseconds, less than a thread handoff.
inline constexpr int64_t kInlineWorkLimit = kParallelThreshold;

}  // namespace xjit::cpu
