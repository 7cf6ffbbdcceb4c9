// The lowering of a fusion instruction (passes/elementwise_fusion.h): its
// region's element-wise ops become one chain run tile by tile
// (FusedElementwiseThunk); values the region does not return live only in
// tile buffers. A broadcast of one element in the region is read in place
// (stride 0) by binary ops, select and clamp, and filled into a tile buffer
// for the others; a reshape is the value it reshapes. A region of one op is a
// plain ElementwiseThunk.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// inputs: one slot per operand of the fusion; outputs: one per region result.
// *work gets the work estimate of one run (work_estimate.h).
absl::StatusOr<std::unique_ptr<Thunk>> MakeFusionThunk(const Instruction& fusion,
                                                       const std::vector<SlotId>& inputs,
                                                       const std::vector<SlotId>& outputs,
                                                       int64_t* work);

}  // namespace xjit::cpu
