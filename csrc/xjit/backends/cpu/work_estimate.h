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

// Up to this much work a program runs inline on the caller's thread when the
// device is idle (about a millisecond of element-wise work, 50 us of matmul).
// A handoff to the device's thread and back costs two thread wake-ups, 15-40
// us on a VM: for a caller that waits for the result (most calls) that was
// 2x the time of a 1M-element element-wise call. Bigger programs still go to
// the device's thread, where the handoff is a few percent of the run and the
// caller keeps dispatching meanwhile. An inline run may start an OpenMP team
// from the caller's thread: libgomp then keeps a second pool of workers,
// which sleep after a microsecond's spin (GOMP_SPINCOUNT, xjit/__init__.py)
// and never run at the same time as the device thread's (the queue is idle).
inline constexpr int64_t kInlineWorkLimit = int64_t{1} << 20;

// EstimateInstructionWork in the inline limit's units, which are time: a
// floating-point dot_general or convolution runs on oneDNN or BLAS, whose
// multiply-adds take about a twentieth of an element-wise element's time
// (a millisecond against 50 us a million, above; float64 a tenth). Counted
// one to one, a 256x256 float32 product (0.2 ms here) went to the device
// thread, and the handoff's two wake-ups put it 15% over oneDNN's own time.
int64_t InlineWork(const Instruction& instr, int64_t work);

}  // namespace xjit::cpu
