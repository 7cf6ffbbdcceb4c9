// Element-wise ops (unary, binary, compare, select, clamp, convert) on the
// CPU: one templated loop per (op, type), chosen once when the thunk is built.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// Computes elements [begin, end) of one element-wise op. in_strides[i] is 0
// when operand i is a broadcast scalar (select's pred, clamp's bounds) and 1
// otherwise; kernels of ops whose operands always match ignore it.
using ElementwiseKernel = void (*)(const void* const* in, const int64_t* in_strides,
                                   void* out, int64_t begin, int64_t end);

// The kernel for an element-wise instruction, or Unimplemented naming the op
// and element type when there is none.
absl::StatusOr<ElementwiseKernel> GetElementwiseKernel(const Instruction& instr);

absl::StatusOr<std::unique_ptr<Thunk>> MakeElementwiseThunk(const Instruction& instr,
                                                            std::vector<SlotId> inputs,
                                                            SlotId output);

}  // namespace xjit::cpu
