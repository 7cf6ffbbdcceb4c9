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

// One element-wise instruction; exposed so that runs of them can be fused.
class ElementwiseThunk : public Thunk {
 public:
  ElementwiseThunk(ElementwiseKernel kernel, std::vector<SlotId> inputs,
                   std::vector<int64_t> strides, SlotId output, int64_t n);
  void Execute(void* const* buffers) const override;
  // Elements [begin, end) only.
  void ExecuteRange(void* const* buffers, int64_t begin, int64_t end) const;
  int64_t num_elements() const { return n_; }

 private:
  ElementwiseKernel kernel_;
  std::vector<SlotId> inputs_;
  std::vector<int64_t> strides_;
  SlotId output_;
  int64_t n_;
};

// Runs a sequence of element-wise thunks of the same size tile by tile: each
// tile goes through the whole chain while it is in cache, under one parallel
// region. Valid because element i of each op reads only element i of its
// operands (or element 0 of a rank-0 one, produced outside the chain).
class FusedElementwiseThunk : public Thunk {
 public:
  explicit FusedElementwiseThunk(std::vector<std::unique_ptr<ElementwiseThunk>> chain);
  void Execute(void* const* buffers) const override;

 private:
  std::vector<std::unique_ptr<ElementwiseThunk>> chain_;
  int64_t n_;
};

absl::StatusOr<std::unique_ptr<Thunk>> MakeElementwiseThunk(const Instruction& instr,
                                                            std::vector<SlotId> inputs,
                                                            SlotId output);

}  // namespace xjit::cpu
