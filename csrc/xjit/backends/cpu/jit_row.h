// Row fusions (row_fusion.h) as generated AVX2 code: one function per row
// that runs the region's whole-row ops in a few loops over the row, 8
// elements at a time with every value in a register, and accumulates its
// reduces in registers on the way. A loop ends where a reduce's result is
// needed: softmax is a loop for the max, one for exp and the sum, one for the
// divide; layer norm one for both sums and one for the normalisation. Values
// a later loop reads again are kept in a row buffer (L1), per-row values in
// 8-lane slots. Reduces combine the row's elements in the interpreter's order
// (reduce.cc's 32 lanes, then a tree of them), so both give the same bits.
// bfloat16 values (a softmax of bf16 converted to float32 and back) are
// carried as in jit_avx2.cc: widened when read, each op's result rounded to
// bf16, stored as the top halves; reduces are of float32 only.
#pragma once

#include <memory>
#include <vector>

#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// A thunk running `fusion`'s row region as generated code, or null when it
// cannot: a CPU without AVX2 and FMA, the generator turned off
// (SetFusionJitEnabled), rows of a size that is not a multiple of 32 (or
// under 64), an op or a broadcast the generator does not cover, values not
// float32 or bfloat16, a reduce not of float32, or more live values than
// registers. *work gets the estimate of one run (work_estimate.h).
std::unique_ptr<Thunk> MakeRowJitThunk(const Instruction& fusion,
                                       const std::vector<SlotId>& inputs,
                                       const std::vector<SlotId>& outputs, int64_t* work);

}  // namespace xjit::cpu
