// The CUDA C++ of one program's kernels, generated from its instructions:
// every kernel of a module goes into one source, compiled by NVRTC once
// (nvrtc_compile.h). Each kernel is extern "C", named k<N>, and takes the
// device addresses of its operands, then of its results, then the element
// count it covers (int64_t); it walks those elements in a grid-stride loop,
// one thread per element (KernelLaunch says how many). Shapes are baked into
// the source as constants: a kernel is specific to its instruction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xjit/ir/graph.h"

namespace xjit::cuda {

struct KernelLaunch {
  std::string name;     // the extern "C" symbol
  int64_t threads = 0;  // elements the grid-stride loop covers
  int block = 256;      // threads per block
  // What the kernel's last parameter receives: the element count (-1), or
  // this value (a sort's network stage).
  int64_t argument = -1;
};

class KernelSource {
 public:
  KernelSource();

  // One element-wise op (the XJIT_ELEMENTWISE_*_OPS, bitcast_convert of one
  // width) or a fusion of them (passes/elementwise_fusion.h). Operands with
  // one element are read at index 0 (splats, select's scalar predicate).
  absl::StatusOr<KernelLaunch> AddElementwise(const Instruction& instr);
  // broadcast_in_dim, transpose, slice, reverse, pad, concatenate: each
  // result element reads the operand element its index maps to.
  absl::StatusOr<KernelLaunch> AddDataMovement(const Instruction& instr);
  absl::StatusOr<KernelLaunch> AddIota(const Instruction& instr);
  // dynamic_slice and dynamic_update_slice: the start indices are read from
  // device memory and clamped into range, as on the cpu.
  absl::StatusOr<KernelLaunch> AddDynamicSlice(const Instruction& instr);
  // A reduce of one input whose body is element-wise: one thread per result
  // element when the reduced extent is short, else one block per result
  // element combining per-thread partial results in shared memory.
  absl::StatusOr<KernelLaunch> AddReduce(const Instruction& instr);

  // gather, scatter (indexing_source.h): scatter is two launches, the
  // inputs copied into the results, then the updates applied.
  absl::StatusOr<KernelLaunch> AddGather(const Instruction& instr);
  absl::StatusOr<std::vector<KernelLaunch>> AddScatter(const Instruction& instr);
  // sort (sort_source.h): its kernels take a permutation scratch after
  // the results.
  absl::StatusOr<std::vector<KernelLaunch>> AddSort(const Instruction& instr);
  // reduce_window, select_and_scatter, convolution (window_source.h).
  absl::StatusOr<KernelLaunch> AddWindowOp(const Instruction& instr);

  const std::string& source() const { return source_; }
  int num_kernels() const { return next_; }

 private:
  std::string NewName() { return "k" + std::to_string(next_++); }
  // A kernel of one thread per result element running `body` (statements
  // over the result index i) on the instruction's operands and results.
  absl::StatusOr<KernelLaunch> AddPerElementKernel(const Instruction& instr, absl::string_view body);
  std::string source_;
  int next_ = 0;
};

// Whether the reduce can be generated, and if so whether it uses one block
// per result element (the launch then has threads = results * block).
bool ReduceUsesBlocks(const Instruction& reduce);

}  // namespace xjit::cuda
