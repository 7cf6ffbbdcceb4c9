// sort (any comparator region, several operands permuted together) as
// generated CUDA C++: a bitonic sorting network over a permutation of each
// row, padded to a power of two. Ties under the comparator are broken by
// the original position, so the order is the stable one whether or not
// is_stable is set (a network alone is not stable); padding sorts last.
// Kernels follow kernel_source.h's conventions, with one extra pointer
// after the results: the permutation (int32, rows x padded length), which
// the lowering places in scratch memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cuda/kernel_source.h"
#include "xjit/ir/graph.h"

namespace xjit::cuda {

// Bytes of the permutation scratch a sort needs.
int64_t SortScratchBytes(const Instruction& sort);

// Appends the kernels of `sort` named <name>_init, <name>_step and
// <name>_gather; returns the launches in order (the step kernel once per
// stage of the network, its stage in KernelLaunch::argument).
absl::StatusOr<std::vector<KernelLaunch>> AppendSort(const Instruction& sort, const std::string& name,
                                                     std::string* source);

}  // namespace xjit::cuda
