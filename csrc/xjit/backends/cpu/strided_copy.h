// The one kernel behind broadcast_in_dim, transpose, slice, reverse, reshape,
// concatenate and pad: each is an affine map from destination index to source
// index, i.e. a copy with per-dimension strides (0 to broadcast, negative to
// reverse) and a start offset.
#pragma once

#include <cstdint>
#include <vector>

namespace xjit::cpu {

struct StridedCopy {
  int64_t elem_bytes = 0;
  // Per dimension of the iteration space; strides and offsets in elements.
  std::vector<int64_t> sizes, dst_strides, src_strides;
  int64_t dst_offset = 0, src_offset = 0;
};

// Drops unit dimensions and merges dimensions that are contiguous in both
// destination and source, so the run-time loop is as flat as it can be.
StridedCopy SimplifyStridedCopy(StridedCopy copy);

// Copies; multi-threaded over the outer dimensions when large.
void RunStridedCopy(const StridedCopy& copy, void* dst, const void* src);

// memcpy, split between threads when it is over 1 MiB.
void ParallelCopy(void* dst, const void* src, int64_t bytes);

// Fills `count` elements of `elem_bytes` each with the element at `value`.
void FillElements(void* dst, const void* value, int64_t elem_bytes, int64_t count);

}  // namespace xjit::cpu
