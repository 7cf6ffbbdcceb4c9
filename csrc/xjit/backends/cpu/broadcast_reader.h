// Reads a broadcast_in_dim's result in flat (row-major) order straight from
// its operand, a range at a time: how a fused element-wise loop reads a
// broadcast operand (a row or column vector spread over a matrix) without the
// broadcast ever being written out.
#pragma once

#include <cstdint>
#include <vector>

#include "xjit/ir/graph.h"

namespace xjit::cpu {

class BroadcastReader {
 public:
  // `broadcast` is a broadcast_in_dim instruction (non-tuple).
  explicit BroadcastReader(const Instruction& broadcast);
  // Writes result elements [begin, begin + count) to `out` (element 0 of
  // `out` is element `begin`).
  void Read(const void* operand, void* out, int64_t begin, int64_t count) const;

 private:
  template <typename T>
  void ReadTyped(const T* operand, T* out, int64_t begin, int64_t count) const;

  // The result's dims after merging neighbours that step through the operand
  // alike, and the operand's element stride along each (0: broadcast).
  std::vector<int64_t> dims_, strides_;
  int64_t width_;
};

}  // namespace xjit::cpu
