// gather and scatter as generated CUDA C++ (the conventions of
// kernel_source.h: extern "C" kernels taking operand pointers p0.., result
// pointers r0.., then int64_t n; shapes baked in as constants). The index
// arithmetic is a line-by-line translation of reference/gather.cc, so the two
// can be read side by side: gather clamps its starts, scatter skips an update
// element whose result index falls outside (docs/semantics.md).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cuda/kernel_source.h"
#include "xjit/ir/graph.h"

namespace xjit::cuda {

// Appends to `source` the kernel `name` for `gather` (operand p0,
// start_indices p1 of any integer type -> r0), one thread per result
// element. Any GatherDimensionNumbers, batching dimensions included, and
// index_vector_dim == rank of start_indices (an implicit trailing 1).
absl::StatusOr<KernelLaunch> AppendGather(const Instruction& gather, const std::string& name,
                                          std::string* source);

// How AppendScatter applies the updates (tests, and the lowering's notes).
enum class ScatterStrategy {
  kAtomicAdd,    // one thread per update element, atomicAdd
  kAtomicMinMax, // one thread per update element, atomicMin / atomicMax (integers)
  kStore,        // one thread per update element, plain stores (replace + unique_indices)
  kSequential,   // one thread applies every update in the reference's order
};
ScatterStrategy ChooseScatterStrategy(const Instruction& scatter);

// Appends the kernels of a scatter of N inputs (p0..pN-1, scatter_indices pN,
// updates pN+1..p2N -> results r0..rN-1) named <name_prefix>_copy and
// <name_prefix>_update. Returns the launches to run in order, each taking
// all operand pointers, then all result pointers, then n: the inputs copied
// into the results, then the updates applied to the results.
absl::StatusOr<std::vector<KernelLaunch>> AppendScatter(const Instruction& scatter,
                                                        const std::string& name_prefix,
                                                        std::string* source);

}  // namespace xjit::cuda
