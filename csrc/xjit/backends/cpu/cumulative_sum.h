// Cumulative sums written as a reduce_window (lax.cumsum's lowering, as JAX
// lowers it on TPUs): an add window spanning one whole dim, stride 1, padded
// by size - 1 on one side with a +0 init, every other dim a window of 1. The
// generic walk costs O(size) per output; this runs one pass, each output the
// previous one plus an element.
//
// A prefix (padding size - 1 low) adds in the generic walk's order: init,
// the zeros of the padding, then elements 0..i, so its bits are the walk's.
// A suffix (padding high: cumsum(reverse=True) and the prefix's transpose)
// runs from the end, adding element i to the sum of i+1..n-1; the walk adds
// i..n-1 from the left, so float results may differ in the last bits (the
// spec leaves the order of a window's reduction open).
#pragma once

#include <memory>
#include <vector>

#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// The thunk, or null when `reduce_window` is not such a cumulative sum.
std::unique_ptr<Thunk> MakeCumulativeSumThunk(const Instruction& reduce_window,
                                              const std::vector<SlotId>& in,
                                              const std::vector<SlotId>& out);

}  // namespace xjit::cpu
