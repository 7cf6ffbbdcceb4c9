// Element-wise ops (unary, binary, compare, select, clamp, convert) on the
// CPU: one templated loop per (op, type), chosen once when the thunk is built.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/broadcast_reader.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// Computes elements [begin, end) of one element-wise op. in_strides[i] is 0
// when operand i is a broadcast scalar (select's pred, clamp's bounds) and 1
// otherwise; kernels of ops whose operands always match ignore it. After the
// operands' strides come the op's integer parameters (KernelParameters).
using ElementwiseKernel = void (*)(const void* const* in, const int64_t* in_strides,
                                   void* out, int64_t begin, int64_t end);

// The integer attributes an element-wise kernel reads after the operands'
// strides: reduce_precision's exponent_bits and mantissa_bits; none for the
// other ops.
std::vector<int64_t> KernelParameters(const Instruction& instr);

// Whether op's kernel reads an operand splat from one element in place
// (stride 0): binary ops, select and clamp; others need it filled first.
inline bool ReadsSplatInPlace(Opcode op) {
  return IsElementwiseBinary(op) || op == Opcode::kSelect || op == Opcode::kClamp;
}

// The kernel for an element-wise instruction, or Unimplemented naming the op
// and element type when there is none.
absl::StatusOr<ElementwiseKernel> GetElementwiseKernel(const Instruction& instr);

// One element-wise instruction; exposed so that runs of them can be fused.
class ElementwiseThunk : public Thunk {
 public:
  ElementwiseThunk(ElementwiseKernel kernel, std::vector<SlotId> inputs,
                   std::vector<int64_t> strides, std::vector<int64_t> input_widths,
                   SlotId output, int64_t output_width, int64_t n);
  // A broadcast read from its operand (`input`) instead of a kernel.
  ElementwiseThunk(std::shared_ptr<const BroadcastReader> broadcast, SlotId input,
                   int64_t input_width, SlotId output, int64_t n);
  void Execute(void* const* buffers) const override;
  bool AppendSteps(void* const* buffers, std::vector<KernelStep>* steps) const override;

  ElementwiseKernel kernel() const { return kernel_; }
  const std::shared_ptr<const BroadcastReader>& broadcast() const { return broadcast_; }
  const std::vector<SlotId>& inputs() const { return inputs_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  const std::vector<int64_t>& input_widths() const { return input_widths_; }
  SlotId output() const { return output_; }
  int64_t output_width() const { return output_width_; }
  int64_t num_elements() const { return n_; }
  // In a fused chain: every operand is one element splat over the tile, so
  // the op computes element 0 only and its result is read as a splat too.
  void ComputeOneElement() { one_element_ = true; }
  bool one_element() const { return one_element_; }

 private:
  ElementwiseKernel kernel_ = nullptr;
  std::shared_ptr<const BroadcastReader> broadcast_;  // set instead of kernel_
  std::vector<SlotId> inputs_;
  std::vector<int64_t> strides_, input_widths_;
  SlotId output_;
  int64_t output_width_, n_;
  bool one_element_ = false;
};

// Runs a chain of element-wise thunks of the same size tile by tile, under one
// parallel region (the lowering of a fusion instruction, cpu/fusion.h). Values
// produced and consumed only inside the chain (`tile_local`, given negative
// slot ids: they have no slot) never reach memory: they live in a per-thread
// tile buffer.
// Valid because element i of each op reads only element i of its operands (or
// element 0 of a rank-0 operand, which is produced outside the chain).
class FusedElementwiseThunk : public Thunk {
 public:
  FusedElementwiseThunk(std::vector<std::unique_ptr<ElementwiseThunk>> chain,
                        const std::vector<SlotId>& tile_local);
  void Execute(void* const* buffers) const override;
  // One tile of work on one thread, no broadcast reads: its ops' calls on
  // the serial scratch.
  bool AppendSteps(void* const* buffers, std::vector<KernelStep>* steps) const override;

 private:
  struct Operand {
    SlotId slot;
    int32_t local;  // index of its tile buffer, or -1 for a buffer in the table
    int64_t stride, width;
  };
  struct Op {
    ElementwiseKernel kernel;
    const BroadcastReader* broadcast;  // instead of kernel: reads inputs[0] in place
    std::vector<Operand> inputs;
    std::vector<int64_t> strides;
    Operand output;
    bool one_element;  // computes element 0 of each tile only (a splat result)
  };
  void RunTiles(void* const* buffers, unsigned char* scratch, int64_t first_tile,
                int64_t end_tile) const;

  std::vector<Op> ops_;
  std::vector<std::shared_ptr<const BroadcastReader>> readers_;  // owners of ops_' readers
  int64_t n_ = 0;
  std::vector<int64_t> local_offsets_;  // in bytes, within one thread's scratch
  int64_t scratch_bytes_ = 0;
  mutable std::vector<unsigned char> serial_scratch_;  // Run is never concurrent
};

// splat[i]: operand i is read as one element broadcast to every position
// (a fusion region's broadcast of one element: the source is passed instead).
// Only binary ops, select and clamp read a splat operand in place.
absl::StatusOr<std::unique_ptr<ElementwiseThunk>> MakeElementwiseOp(
    const Instruction& instr, std::vector<SlotId> inputs, SlotId output,
    const std::vector<bool>& splat = {});
absl::StatusOr<std::unique_ptr<Thunk>> MakeElementwiseThunk(const Instruction& instr,
                                                            std::vector<SlotId> inputs,
                                                            SlotId output,
                                                            const std::vector<bool>& splat = {});
// A fusion region's broadcast_in_dim of a non-scalar operand held in the
// slot `operand`: its elements are read from the operand where they are needed.
std::unique_ptr<ElementwiseThunk> MakeBroadcastReadOp(const Instruction& broadcast,
                                                      SlotId operand, SlotId output);
// Writes element 0 of `source` (`width` bytes) to all `n` elements of `output`:
// a splat for the ops that cannot read one in place (unary ops, convert).
absl::StatusOr<std::unique_ptr<ElementwiseThunk>> MakeSplatOp(SlotId source, SlotId output,
                                                              int64_t width, int64_t n);

}  // namespace xjit::cpu
