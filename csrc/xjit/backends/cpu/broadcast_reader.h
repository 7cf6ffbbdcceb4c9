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

  // Whether every row of `row_size` result elements (a row starts at a
  // multiple of row_size) is a contiguous run of the operand: a row fusion's
  // kernels then read row r in place at RowOffset(r) (x[:, None, :] spread
  // over [n, m, k] rows of k).
  bool RowsContiguous(int64_t row_size) const;
  // The operand elements where rows first_row, first_row + 1, ... start,
  // one Next() a row (RowsContiguous(row_size)): one division per dim for
  // the first row, then additions.
  class RowCursor {
   public:
    RowCursor(const BroadcastReader& reader, int64_t first_row, int64_t row_size);
    int64_t offset() const { return offset_; }
    void Next();

   private:
    const BroadcastReader& r_;
    int64_t row_size_, offset_ = 0;
    int64_t idx_[8] = {};  // merged dims beyond 8 are not made by any rank we carry
  };
  // Whether RowCursor can walk this reader (at most 8 merged dims).
  bool CursorFits() const { return dims_.size() <= 8; }

 private:
  template <typename T>
  void ReadTyped(const T* operand, T* out, int64_t begin, int64_t count) const;

  // The result's dims after merging neighbours that step through the operand
  // alike, and the operand's element stride along each (0: broadcast).
  std::vector<int64_t> dims_, strides_;
  int64_t width_;
};

}  // namespace xjit::cpu
