// Kernels of the windowed ops as CUDA C++ source (kernel_source.h's
// conventions: extern "C" kernels named by the caller taking the operands'
// device addresses, then the results', then the element count; a
// grid-stride loop; shapes baked in). Each kernel computes one result
// element per thread, in the order reference/window.cc and
// reference/convolution.cc use, so results agree with the reference where
// the element type's arithmetic does (no atomics anywhere).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "xjit/backends/cuda/kernel_source.h"
#include "xjit/ir/graph.h"

namespace xjit::cuda {

// reduce_window of N inputs and N initial values with an element-wise body:
// each result element starts from the initial values and folds its window
// in row-major window order; positions in padding or base-dilation holes
// fold the initial value, as the reference does.
absl::StatusOr<KernelLaunch> AppendReduceWindow(const Instruction& instr, const std::string& name,
                                                std::string* source);

// select_and_scatter (operand, source, init_value) as a gather: one thread
// per result element, which recomputes the selection of every window that
// covers it and folds the source values of those that select it.
absl::StatusOr<KernelLaunch> AppendSelectAndScatter(const Instruction& instr,
                                                    const std::string& name, std::string* source);

// convolution (any dimension numbers, strides, padding, dilations, window
// reversal, feature and batch groups) as a direct kernel: one thread per
// output element accumulating over the kernel window, then the input
// features, in the reference's order (f16/bf16 in float, rounded once).
absl::StatusOr<KernelLaunch> AppendConvolution(const Instruction& instr, const std::string& name,
                                               std::string* source);

}  // namespace xjit::cuda
