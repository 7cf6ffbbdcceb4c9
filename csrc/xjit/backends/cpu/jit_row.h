// Row fusions (row_fusion.h) as generated code: one function per row that
// runs the region's whole-row ops in a few loops over the row, 16 elements
// (AVX-512, jit_row_avx512.cc) or 8 (AVX2, jit_row_avx2.cc) at a time with
// every value in a register, and accumulates its reduces in registers on the
// way. A loop ends where a reduce's result is needed: softmax is a loop for
// the max, one for exp and the sum, one for the divide; layer norm one for
// both sums and one for the normalisation. Values a later loop reads again
// are kept in a row buffer (L1), per-row values in slots (jit_row_region.h).
// Reduces combine the row's elements in the interpreter's order (reduce.cc's
// 32 lanes, then a tree of them), so both give the same bits.
// bfloat16 and float16 values (a softmax of bf16 converted to float32 and
// back) are carried as in the element-wise generators: widened when read,
// each op's result rounded to its type, stored narrowed; a reduce of them
// accumulates in float32 and rounds its result once, as reduce.cc's does.
#pragma once

#include <memory>
#include <vector>

#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// A thunk running `fusion`'s row region as generated code (AVX-512 on a CPU
// with AVX-512F and BW unless SetFusionJitIsa asks for AVX2; AVX2 where the
// AVX-512 generator does not fit the region), or null when it cannot: a CPU
// without AVX2 and FMA, the generator turned off
// (SetFusionJitEnabled), rows of a size that is not a multiple of 32 (or
// under 64), an op or a broadcast the generator does not cover, values not
// float32, bfloat16 or float16, or more live values than registers. *work
// gets the estimate of one run (work_estimate.h).
std::unique_ptr<Thunk> MakeRowJitThunk(const Instruction& fusion,
                                       const std::vector<SlotId>& inputs,
                                       const std::vector<SlotId>& outputs, int64_t* work);

}  // namespace xjit::cpu
