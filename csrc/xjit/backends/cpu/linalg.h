// cholesky and triangular_solve on the CPU: LAPACK potrf and BLAS trsm from
// OpenBLAS (its OpenMP build, so it shares libgomp's thread team with oneDNN
// and our kernels), one call per matrix of the batch. A batch of many small
// matrices runs in parallel over the batch (OpenBLAS then runs each call on
// one thread: it does not nest inside an OpenMP parallel region); one big
// matrix is one call that OpenBLAS parallelises itself. f16/bf16 go through
// f32 copies.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

absl::StatusOr<std::unique_ptr<Thunk>> MakeLinalgThunk(const Instruction& instr,
                                                       const std::vector<SlotId>& in,
                                                       SlotId out);

}  // namespace xjit::cpu
